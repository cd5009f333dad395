package verify

import (
	"fmt"
	"math"
	"math/rand"

	"tecaj/internal/vocab"
)

// ReductionInput draws n elements of a type from seed (never all zeros): float32 uniform in
// [-1, 1), float64 uniform in [-1, 1), int32 uniform in [-1000, 1000]. The values are returned as
// float64 (exact for every type).
func ReductionInput(dst []float64, typ vocab.Dtype, seed int64) {
	parallel(len(dst), func(c, lo, hi int) {
		r := rand.New(rand.NewSource(seed*1_000_003 + int64(c)))
		for i := lo; i < hi; i++ {
			switch typ {
			case vocab.Float32:
				dst[i] = float64(2*r.Float32() - 1)
			case vocab.Float64:
				dst[i] = 2*r.Float64() - 1
			default:
				dst[i] = float64(r.Intn(2001) - 1000)
			}
		}
	})
}

// ReductionReference is what a reduction must give.
type ReductionReference struct {
	Sum     float64 // of the mapped elements (x, x^2, a*b), compensated (Neumaier) in float64
	SumAbs  float64 // of their magnitudes: the scale of the error bound
	Exact   int64   // int32 inputs: the int64 sum (two's complement, as the device wraps)
	Extreme float64 // min or max: the first NaN, else the smallest (largest)
	Index   int64   // its index: the first NaN's, else the first among equal values
	// Subnormal counts the mapped elements that are nonzero and below float32's smallest normal
	// (2^-126) in magnitude: the terms float32 atomics flush to zero (the check's note names them)
	Subnormal int64
}

// Reference computes the reference of op over a (and b for dot); values are float64 images of
// the elements (float32 squares and products are exact in float64). Its sum is compensated.
func Reference(op vocab.Op, a, b []float64) ReductionReference { return fold(op, a, b, true) }

// fold is the reference (compensated, Neumaier) and the host variant's per-chunk fold (a plain
// float64 running sum): the mapped elements' sum, their magnitudes, the wrapped int64 sum, and
// min/max with the index (the first NaN, else the first of equal values).
func fold(op vocab.Op, a, b []float64, compensated bool) ReductionReference {
	r := ReductionReference{Index: -1}
	less := op.Lowest()
	sum := neumaier{s: negativeZero}
	for i, x := range a {
		m := x
		switch op {
		case vocab.Norm:
			m = x * x
			r.Exact += int64(x) * int64(x)
		case vocab.Dot:
			m = x * b[i]
			r.Exact += int64(x) * int64(b[i])
		default:
			r.Exact += int64(x)
		}
		sum.add(m)
		r.SumAbs += math.Abs(m)
		if compensated && m != 0 && math.Abs(m) < 0x1p-126 { // (the reference's alone: the cpu variant's loop is timed)
			r.Subnormal++
		}
		if r.Index < 0 || (!math.IsNaN(r.Extreme) && (math.IsNaN(x) || (less && x < r.Extreme) || (!less && x > r.Extreme))) {
			r.Index, r.Extreme = int64(i), x
		}
	}
	r.Sum = sum.s // the host variant's plain float64 running sum
	if compensated {
		r.Sum = sum.sum()
	}
	return r
}

// ReductionCheck compares a result with the reference: exactly for min, max, arg and integers;
// within the bound tol (on the sum) for the rest. Error and Tolerance are relative to the result.
type ReductionCheck struct {
	Error, Tolerance float64
	Pass             bool
	Note             string
}

// CheckReduction checks value (and exact, index) for op over n elements of typ. The bound is
// the caller's, for rounding alone: nothing is allowed for subnormals a variant flushes (float32
// atomics), so a float32 sum of subnormals that comes out 0 fails, its note saying how many terms
// were subnormal.
func CheckReduction(op vocab.Op, typ vocab.Dtype, n int64, value float64, exact, index int64, ref ReductionReference, tol float64) ReductionCheck {
	switch {
	case op.Arg():
		// the index, and the value there (a NaN, or the same number with the same zero sign)
		if index != ref.Index {
			return ReductionCheck{Error: 1, Note: fmt.Sprintf("index %d, want %d", index, ref.Index)}
		}
		ok := (math.IsNaN(value) && math.IsNaN(ref.Extreme)) || (value == ref.Extreme && math.Signbit(value) == math.Signbit(ref.Extreme))
		return ReductionCheck{Error: b2f(!ok), Pass: ok, Note: noteIf(!ok, "value %g at index %d, want %g", value, index, ref.Extreme)}
	case op.Selects():
		ok := value == ref.Extreme || (math.IsNaN(value) && math.IsNaN(ref.Extreme))
		return ReductionCheck{Error: b2f(!ok), Pass: ok, Note: noteIf(!ok, "got %g, want %g", value, ref.Extreme)}
	case typ == vocab.Int32:
		ok := exact == ref.Exact
		return ReductionCheck{Error: b2f(!ok), Pass: ok, Note: noteIf(!ok, "got %d, want %d (exact)", exact, ref.Exact)}
	}
	// compare the sums: mean * n, norm^2 (each adds a rounding of its own in float64)
	sum := value
	switch op {
	case vocab.Mean:
		sum = value * float64(n)
	case vocab.Norm:
		sum = value * value
	}
	want := ref.Sum
	bound := tol + 0x1p-50*math.Abs(want)
	diff := math.Abs(sum - want)
	ok := diff <= bound || (math.IsNaN(sum) && math.IsNaN(want)) || sum == want
	scale := math.Abs(want)
	if scale == 0 {
		scale = 1
	}
	note := noteIf(!ok, "got %g, want %g", value, want)
	if math.IsInf(bound, 1) && !math.IsInf(want, 0) && !math.IsNaN(want) {
		// a chain of k additions with k*u >= 1 has no worst-case bound: what is still checked is
		// that a finite sum stays finite and a nonzero one nonzero (flushed subnormals give 0)
		ok = !math.IsInf(sum, 0) && !math.IsNaN(sum) && (sum != 0 || want == 0)
		note = "no error bound at this depth (k*u >= 1): checked finite and nonzero only"
		if !ok {
			note = fmt.Sprintf("got %g, want %g (no error bound at this depth, but not this)", value, want)
		}
	}
	if !ok && typ == vocab.Float32 && ref.Subnormal > 0 {
		note += fmt.Sprintf(" (%d of the terms are float32 subnormals: float atomics flush them to zero)", ref.Subnormal)
	}
	return ReductionCheck{Error: diff / scale, Tolerance: bound / scale, Pass: ok, Note: note}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func noteIf(cond bool, format string, args ...interface{}) string {
	if !cond {
		return ""
	}
	return fmt.Sprintf(format, args...)
}

// ReduceCPU is redukcija's host variant: every core folds its chunks in float64 (int64 for
// int32 sums), the chunk results combined in order. It returns the sum (or min/max) and index.
func ReduceCPU(op vocab.Op, a, b []float64) (value float64, exact, index int64) {
	chunks := (len(a) + chunk - 1) / chunk
	parts := make([]ReductionReference, chunks)
	parallel(len(a), func(c, lo, hi int) {
		var bb []float64
		if op == vocab.Dot {
			bb = b[lo:hi]
		}
		p := fold(op, a[lo:hi], bb, false)
		p.Index += int64(lo)
		parts[c] = p
	})
	total := ReductionReference{Index: -1, Sum: negativeZero}
	less := op.Lowest()
	for _, p := range parts {
		total.Sum += p.Sum
		total.Exact += p.Exact
		if total.Index < 0 || (!math.IsNaN(total.Extreme) && (math.IsNaN(p.Extreme) || (less && p.Extreme < total.Extreme) || (!less && p.Extreme > total.Extreme))) {
			total.Index, total.Extreme = p.Index, p.Extreme
		}
	}
	if op.Selects() {
		return total.Extreme, int64(total.Extreme), total.Index
	}
	return total.Sum, total.Exact, -1
}

// CPUReductionTolerance bounds ReduceCPU's sum: a float64 running sum of at most chunk terms per
// chunk, then the chunk sums: gamma(chunk + chunks) with u = 2^-53, times sum |x| (float64 inputs'
// products add one rounding).
func CPUReductionTolerance(n int64, sumAbs float64) float64 {
	return gamma(float64(chunk+(n+chunk-1)/chunk+1), 0x1p-53) * sumAbs
}
