package verify

import (
	"fmt"
	"math"
	"math/rand"

	"tecaj/internal/vocab"
)

// ScanInput fills dst with 32-bit elements from seed (never all zeros): float32 uniform in
// [-1, 1) or int32 uniform in [-1000, 1000], as raw bits.
func ScanInput(dst []uint32, typ vocab.Dtype, seed int64) {
	parallel(len(dst), func(c, lo, hi int) {
		r := rand.New(rand.NewSource(seed*1_000_003 + int64(c)))
		for i := lo; i < hi; i++ {
			if typ == vocab.Float32 {
				dst[i] = math.Float32bits(2*r.Float32() - 1)
			} else {
				dst[i] = uint32(int32(r.Intn(2001) - 1000))
			}
		}
	})
}

// SegmentFlags makes head flags: every segment of length seglen, or (seglen 0, "mixed")
// lengths from 1 to 10^6 drawn from seed, half of them of length 1.
func SegmentFlags(flags []byte, seglen int64, seed int64) {
	r := rand.New(rand.NewSource(seed))
	for i := int64(0); i < int64(len(flags)); {
		flags[i] = 1
		step := seglen
		if step <= 0 {
			step = 1
			if r.Intn(2) == 0 {
				step = 1 + r.Int63n(1_000_000)
			}
		}
		i += step
	}
}

// scanOp is one operator on one type: combine two elements' bits, and the identity's bits.
type scanOp struct {
	identity uint32
	combine  func(a, b uint32) uint32
}

func scanOpOf(op vocab.Op, typ vocab.Dtype) scanOp {
	f := math.Float32frombits
	b := math.Float32bits
	switch {
	case typ == vocab.Float32 && op == vocab.Sum:
		return scanOp{b(float32(math.Copysign(0, -1))), func(x, y uint32) uint32 { return b(f(x) + f(y)) }}
	case typ == vocab.Float32:
		less := op == vocab.Min
		return scanOp{b(float32(math.Inf(map[bool]int{true: 1, false: -1}[less]))), func(x, y uint32) uint32 {
			a, c := f(x), f(y)
			switch {
			case a != a:
				return x
			case c != c:
				return y
			case (less && c < a) || (!less && c > a):
				return y
			case a == c && ((less && math.Signbit(float64(c))) || (!less && math.Signbit(float64(a)))):
				return y
			}
			return x
		}}
	case op == vocab.Sum:
		return scanOp{0, func(x, y uint32) uint32 { return x + y }} // wraps as two's complement
	case op == vocab.Max:
		return scanOp{0x80000000, func(x, y uint32) uint32 {
			if int32(y) > int32(x) {
				return y
			}
			return x
		}}
	}
	return scanOp{0x7fffffff, func(x, y uint32) uint32 {
		if int32(y) < int32(x) {
			return y
		}
		return x
	}}
}

// ScanReference is what out[i] must be: for float sums in float64 (Want) with the magnitude
// of what it combines (PrefixAbs, the bound's scale); for everything else the exact bits (Bits).
type ScanReference struct {
	Want      []float64
	PrefixAbs []float64
	Bits      []uint32
}

// Scan computes the reference sequentially: inclusive or exclusive, restarting at every head
// flag (flags nil: one segment; position 0 always heads).
func Scan(op vocab.Op, typ vocab.Dtype, exclusive bool, in []uint32, flags []byte) ScanReference {
	n := len(in)
	r := ScanReference{Want: make([]float64, n), PrefixAbs: make([]float64, n), Bits: make([]uint32, n)}
	o := scanOpOf(op, typ)
	var acc uint32
	var sum, abs float64
	for i, x := range in {
		if i == 0 || (flags != nil && flags[i] != 0) {
			acc, sum, abs = o.identity, 0, 0
		}
		if exclusive {
			r.Bits[i], r.Want[i], r.PrefixAbs[i] = acc, sum, abs
		}
		acc = o.combine(acc, x)
		if typ == vocab.Float32 {
			v := float64(math.Float32frombits(x))
			sum += v
			abs += math.Abs(v)
		}
		if !exclusive {
			r.Bits[i], r.Want[i], r.PrefixAbs[i] = acc, sum, abs
		}
	}
	return r
}

// ScanCheck is the outcome of comparing a scan with its reference.
type ScanCheck struct {
	Bad       int64
	MaxError  float64 // float sums: max |out[i] - want[i]| / prefix_abs[i]; else mismatches
	Tolerance float64 // the bound's relative part (tol(1))
	First     string
}

// CheckScan compares out (raw bits) with the reference: float sums within tol(prefix_abs[i]), a
// NaN or Inf of the reference matched as NaN (any) or the same Inf, and Inf or NaN accepted where
// the magnitudes summed pass float32's range (a partial sum may overflow); everything else bit
// for bit (float NaN matches any NaN; -0.0 matches +0.0 in max and min).
func CheckScan(op vocab.Op, typ vocab.Dtype, out []uint32, ref ScanReference, tol func(prefixAbs float64) float64) ScanCheck {
	c := ScanCheck{Tolerance: tol(1)}
	for i, g := range out {
		ok := true
		if typ == vocab.Float32 && op == vocab.Sum {
			got, want := float64(math.Float32frombits(g)), ref.Want[i]
			switch {
			case math.IsNaN(want): // a NaN came in (or Inf - Inf): any NaN
				ok = math.IsNaN(got)
			case math.IsInf(want, 0):
				ok = got == want
			case math.IsNaN(got) || math.IsInf(got, 0):
				// float32 partial sums may overflow where the float64 reference does not: only
				// where the magnitudes summed pass float32's range
				ok = ref.PrefixAbs[i] > math.MaxFloat32
			default:
				d := math.Abs(got - want)
				ok = d <= tol(ref.PrefixAbs[i])
				if ref.PrefixAbs[i] > 0 && d/ref.PrefixAbs[i] > c.MaxError {
					c.MaxError = d / ref.PrefixAbs[i]
				}
			}
		} else if typ == vocab.Float32 {
			a, b := math.Float32frombits(g), math.Float32frombits(ref.Bits[i])
			ok = a == b || (a != a && b != b)
		} else {
			ok = g == ref.Bits[i]
		}
		if !ok {
			if c.Bad == 0 {
				c.First = fmt.Sprintf("position %d: got %08x, want %08x", i, g, ref.Bits[i])
			}
			c.Bad++
		}
	}
	if typ != vocab.Float32 || op != vocab.Sum { // exact: the error counts mismatches, the bound is 0
		c.MaxError, c.Tolerance = float64(c.Bad), 0
	}
	return c
}

// ScanCPU is prefiks's host variant: chunks scanned in parallel (float sums in float64), each
// chunk's carry (its total since its last head) combined in order, then every chunk's elements
// before its first head combine the carry coming in.
func ScanCPU(op vocab.Op, typ vocab.Dtype, exclusive bool, in []uint32, flags []byte, out []uint32) {
	n := len(in)
	chunks := (n + chunk - 1) / chunk
	o := scanOpOf(op, typ)
	carry := make([]uint32, chunks)
	heads := make([]bool, chunks)
	parallel(n, func(c, lo, hi int) {
		acc, sum := o.identity, 0.0
		for i := lo; i < hi; i++ {
			if i == 0 || (flags != nil && flags[i] != 0) {
				acc, sum, heads[c] = o.identity, 0, true
			}
			if typ == vocab.Float32 && op == vocab.Sum {
				sum += float64(math.Float32frombits(in[i]))
				acc = math.Float32bits(float32(sum))
			} else {
				acc = o.combine(acc, in[i])
			}
			out[i] = acc
		}
		carry[c] = acc
	})
	incoming := make([]uint32, chunks)
	running := o.identity
	for c := 0; c < chunks; c++ {
		incoming[c] = running
		if heads[c] {
			running = carry[c]
		} else {
			running = o.combine(running, carry[c])
		}
	}
	parallel(n, func(c, lo, hi int) {
		if c == 0 {
			return // position 0 heads: nothing comes in
		}
		for i := lo; i < hi && (flags == nil || flags[i] == 0); i++ {
			out[i] = o.combine(incoming[c], out[i])
		}
	})
	if exclusive { // shift by one within each segment, from the end (direct: no subtraction)
		for i := n - 1; i >= 0; i-- {
			if i == 0 || (flags != nil && flags[i] != 0) {
				out[i] = o.identity
			} else {
				out[i] = out[i-1]
			}
		}
	}
}

// CPUScanTolerance bounds ScanCPU's float sums: each chunk's float64 sum rounded to float32, the
// carries summed in float32 over the chunks before, and the carry's addition: at most
// n/chunk + 3 float32 roundings (the float64 sums' own error is far below one of them).
func CPUScanTolerance(n int64, prefixAbs float64) float64 {
	return gamma(float64((n+chunk-1)/chunk+3), 0x1p-24) * prefixAbs
}
