// Package verify holds the host side of every check: seeded inputs, float64 references, the
// comparisons and tolerances, and the host (cpu) variants. It needs no GPU.
package verify

import (
	"math"
	"math/rand"
	"runtime"
	"sync"
)

// PoisonBits is what outputs are filled with before a launch (every byte 0xFF): a NaN that no
// kernel produces (the GPU's own NaN is 0x7FFFFFFF), so an element still holding it was not written.
const PoisonBits = 0xFFFFFFFF

// IsPoison says whether f still holds the poison.
func IsPoison(f float32) bool { return math.Float32bits(f) == PoisonBits }

// chunk is the unit of parallel work and of seeding: fixed, so results do not depend on the
// number of cores.
const chunk = 1 << 20

// parallel runs fn over [0, n) in chunks on every core.
func parallel(n int, fn func(c, lo, hi int)) {
	chunks := (n + chunk - 1) / chunk
	workers := runtime.NumCPU()
	if workers > chunks {
		workers = chunks
	}
	var next int
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				c := next
				next++
				mu.Unlock()
				if c >= chunks {
					return
				}
				hi := (c + 1) * chunk
				if hi > n {
					hi = n
				}
				fn(c, c*chunk, hi)
			}
		}()
	}
	wg.Wait()
}

// Uniform fills dst with values uniform in [-1, 1) from seed (never all zeros); the same seed
// gives the same values on any machine.
func Uniform(dst []float32, seed int64) {
	parallel(len(dst), func(c, lo, hi int) {
		r := rand.New(rand.NewSource(seed*1_000_003 + int64(c)))
		for i := lo; i < hi; i++ {
			dst[i] = 2*r.Float32() - 1
		}
	})
}

// Difference is the float64 reference of razlika: IEEE subtraction is correctly rounded, and
// rounding the float64 difference to float32 is innocuous (53 >= 2*24+2), so the float32
// result must equal it exactly: the tolerance is 0 ulp.
func Difference(a, b float32) float32 { return float32(float64(a) - float64(b)) }

// DifferenceCheck is the outcome of comparing c with a - b element by element.
type DifferenceCheck struct {
	Mismatches int64 // elements that differ from the reference (unwritten ones included)
	Unwritten  int64 // elements still holding the poison
	First      int64 // index of the first mismatch, -1 if none
	MaxAbs     float64
}

// CheckDifference compares c with the reference; NaN matches NaN.
func CheckDifference(a, b, c []float32) DifferenceCheck {
	var mu sync.Mutex
	out := DifferenceCheck{First: -1}
	parallel(len(c), func(_, lo, hi int) {
		local := DifferenceCheck{First: -1}
		for i := lo; i < hi; i++ {
			want, got := Difference(a[i], b[i]), c[i]
			if IsPoison(got) {
				local.Unwritten++
			} else if got == want || (want != want && got != got) {
				continue
			} else if d := math.Abs(float64(got) - float64(want)); d > local.MaxAbs || d != d {
				local.MaxAbs = d
			}
			local.Mismatches++
			if local.First < 0 {
				local.First = int64(i)
			}
		}
		mu.Lock()
		out.Mismatches += local.Mismatches
		out.Unwritten += local.Unwritten
		if local.MaxAbs > out.MaxAbs || local.MaxAbs != local.MaxAbs {
			out.MaxAbs = local.MaxAbs
		}
		if local.First >= 0 && (out.First < 0 || local.First < out.First) {
			out.First = local.First
		}
		mu.Unlock()
	})
	return out
}

// SquaredDistance is the float64 reference of razdalja's sum of squares (NaN and Inf
// propagate as IEEE says).
func SquaredDistance(a, b []float32) float64 {
	return sumChunks(len(a), func(lo, hi int) float64 {
		s := 0.0
		for i := lo; i < hi; i++ {
			d := float64(a[i]) - float64(b[i])
			s += d * d
		}
		return s
	})
}

// sumChunks adds per-chunk float64 sums in chunk order (deterministic).
func sumChunks(n int, fn func(lo, hi int) float64) float64 {
	parts := make([]float64, (n+chunk-1)/chunk)
	parallel(n, func(c, lo, hi int) { parts[c] = fn(lo, hi) })
	s := 0.0
	for _, p := range parts {
		s += p
	}
	return s
}

// RelativeError is |got - want| / |want|: 0 where both are the same NaN-ness or infinity,
// +Inf where exactly one is NaN or infinite.
func RelativeError(got, want float64) float64 {
	switch {
	case math.IsNaN(want) || math.IsNaN(got):
		if math.IsNaN(want) && math.IsNaN(got) {
			return 0
		}
		return math.Inf(1)
	case math.IsInf(want, 0) || math.IsInf(got, 0):
		if got == want {
			return 0
		}
		return math.Inf(1)
	case want == 0:
		return math.Abs(got)
	}
	return math.Abs(got-want) / math.Abs(want)
}

// Within says whether got agrees with want to the relative tolerance.
func Within(got, want, tolerance float64) bool { return RelativeError(got, want) <= tolerance }

// DifferenceCPU is razlika's host variant: every core, float32 arithmetic as on the device.
func DifferenceCPU(a, b, c []float32) {
	parallel(len(c), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			c[i] = a[i] - b[i]
		}
	})
}

// SquaredDistanceCPU is razdalja's host variant: float32 differences and squares as on the
// device, each core summing its chunks in float64, the chunk sums added in order.
func SquaredDistanceCPU(a, b []float32) float64 {
	return sumChunks(len(a), func(lo, hi int) float64 {
		s := 0.0
		for i := lo; i < hi; i++ {
			d := a[i] - b[i]
			s += float64(d * d)
		}
		return s
	})
}

// DistanceCPUTolerance bounds SquaredDistanceCPU's distance: the float32 difference and square
// round twice (gamma_2 with u = 2^-24), the float64 sums at most n times (gamma_n with 2^-53),
// and the root halves the relative error of the sum.
func DistanceCPUTolerance(n int64) float64 {
	return 0.5*(gamma(2, 0x1p-24)+gamma(float64(n), 0x1p-53)) + 0x1p-52
}

func gamma(k, unit float64) float64 {
	if k*unit >= 1 {
		return math.Inf(1)
	}
	return k * unit / (1 - k*unit)
}

// PoisonFloat is the poison as a float32.
var PoisonFloat = math.Float32frombits(PoisonBits)
