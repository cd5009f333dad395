// Package verify holds the host side of every check: seeded inputs, float64 references, the
// comparisons and tolerances, and the host (cpu) variants, one file per program beside the
// shared pieces here. It needs no GPU.
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

func gamma(k, unit float64) float64 {
	if k*unit >= 1 {
		return math.Inf(1)
	}
	return k * unit / (1 - k*unit)
}

// PoisonFloat is the poison as a float32.
var PoisonFloat = math.Float32frombits(PoisonBits)

// neumaier is a compensated running sum (Neumaier's variant of Kahan's): s is the plain running
// sum, sum() the compensated one (references of sums: redukcija's, razdalja's).
type neumaier struct{ s, c float64 }

func (k *neumaier) add(x float64) {
	t := k.s + x
	if math.Abs(k.s) >= math.Abs(x) {
		k.c += (k.s - t) + x
	} else {
		k.c += (x - t) + k.s
	}
	k.s = t
}

func (k neumaier) sum() float64 {
	if math.IsInf(k.s, 0) || math.IsNaN(k.s) || k.c == 0 { // (c == 0: a sum of only -0.0 stays -0.0)
		return k.s
	}
	return k.s + k.c
}

// negativeZero is the identity of float sums: x + -0.0 is x for every x, -0.0 included.
var negativeZero = math.Copysign(0, -1)
