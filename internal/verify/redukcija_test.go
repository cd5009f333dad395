package verify

import (
	"math"
	"strings"
	"testing"
)

func TestReductionReferenceAndCheck(t *testing.T) {
	a := []float64{3, -1, math.NaN(), -1, math.NaN(), 7}
	if r := Reference("argmin", a, nil); r.Index != 2 || !math.IsNaN(r.Extreme) {
		t.Errorf("argmin with NaNs: %+v, want the first NaN (2)", r)
	}
	b := []float64{3, -1, 5, -1, 7}
	if r := Reference("argmin", b, nil); r.Index != 1 || r.Extreme != -1 {
		t.Errorf("argmin ties: %+v, want the first -1 (1)", r)
	}
	if r := Reference("argmax", b, nil); r.Index != 4 {
		t.Errorf("argmax: %+v", r)
	}
	// compensated: 1 + 1e100 - 1e100 is 1
	if r := Reference("sum", []float64{1, 1e100, -1e100}, nil); r.Sum != 1 {
		t.Errorf("compensated sum %g, want 1", r.Sum)
	}
	ints := []float64{2147483000, 2147483000, -5}
	if r := Reference("sum", ints, nil); r.Exact != 4294965995 {
		t.Errorf("int sum %d", r.Exact)
	}
	ref := Reference("sum", []float64{0.5, 0.25}, nil)
	if c := CheckReduction("sum", "float32", 2, 0.75, 0, -1, ref, 0); !c.Pass {
		t.Errorf("exact sum rejected: %+v", c)
	}
	if c := CheckReduction("sum", "float32", 2, 0.76, 0, -1, ref, 1e-6); c.Pass {
		t.Errorf("a wrong sum passed: %+v", c)
	}
	if c := CheckReduction("sum", "int32", 3, 0, 4294965994, -1, Reference("sum", ints, nil), 0); c.Pass {
		t.Errorf("an int sum off by one passed")
	}
	if c := CheckReduction("argmin", "float32", 5, -1, 0, 3, Reference("argmin", b, nil), 0); c.Pass {
		t.Errorf("the second of two ties passed as argmin")
	}
	if c := CheckReduction("argmin", "float32", 5, -1, 0, 1, Reference("argmin", b, nil), 0); !c.Pass {
		t.Errorf("argmin's right index and value rejected: %+v", c)
	}
	if c := CheckReduction("argmin", "float32", 5, 3, 0, 1, Reference("argmin", b, nil), 0); c.Pass {
		t.Errorf("argmin's right index with another value passed")
	}
	zeros := []float64{0, math.Copysign(0, -1), 0}
	if c := CheckReduction("argmax", "float32", 3, math.Copysign(0, -1), 0, 0, Reference("argmax", zeros, nil), 0); c.Pass {
		t.Errorf("argmax's index 0 with -0.0 for the +0.0 there passed")
	}
	if c := CheckReduction("argmin", "float32", 6, -1, 0, 2, Reference("argmin", a, nil), 0); c.Pass {
		t.Errorf("argmin's first NaN index with a number for its value passed")
	}
	if c := CheckReduction("min", "float32", 6, 3, 0, -1, Reference("min", a, nil), 0); c.Pass {
		t.Errorf("a min that dropped the NaN passed")
	}
}

func TestReduceCPUAgreesWithTheReference(t *testing.T) {
	n := 3<<20 + 5
	a, b := make([]float64, n), make([]float64, n)
	ReductionInput(a, "float32", 1)
	ReductionInput(b, "float32", 2)
	for _, op := range []string{"sum", "min", "max", "norm", "dot", "argmin", "argmax"} {
		ref := Reference(op, a, b)
		v, exact, idx := ReduceCPU(op, a, b)
		c := CheckReduction(op, "float32", int64(n), v, exact, idx, ref, CPUReductionTolerance(int64(n), ref.SumAbs))
		if op == "norm" {
			c = CheckReduction(op, "float32", int64(n), math.Sqrt(v), exact, idx, ref, CPUReductionTolerance(int64(n), ref.SumAbs))
		}
		if !c.Pass {
			t.Errorf("%s: %+v", op, c)
		}
	}
}

// A float32 sum of subnormals that comes out 0 (float32 atomics flush them) fails: the bound is
// rounding's alone (gamma(n) sum |x|, here far below the sum), with nothing allowed for flushing,
// and the note counts the subnormal terms. The same sum kept whole passes; a sum with one
// subnormal term among normal ones loses less than its bound and passes too.
func TestCheckRefusesAFlushedSubnormalSum(t *testing.T) {
	const n = 65537
	a := make([]float64, n)
	for i := range a {
		a[i] = float64(float32(1e-41))
	}
	ref := Reference("sum", a, nil)
	tol := gamma(n, 0x1p-24) * ref.SumAbs
	if ref.Subnormal != n || !(ref.Sum > 6.5e-37 && ref.Sum < 6.6e-37) || !(tol < ref.Sum/100) {
		t.Fatalf("reference %+v, bound %g: want 65537 subnormal terms summing to 6.55e-37, a bound far below it", ref, tol)
	}
	c := CheckReduction("sum", "float32", n, 0, 0, -1, ref, tol)
	if c.Pass || !strings.Contains(c.Note, "65537 of the terms are float32 subnormals") {
		t.Errorf("0 for a sum of 65537 x 1e-41: %+v, want a failure naming the subnormal terms", c)
	}
	if c := CheckReduction("mean", "float32", n, 0, 0, -1, Reference("mean", a, nil), tol); c.Pass {
		t.Errorf("a mean of 0 for 65537 x 1e-41 passed: %+v", c)
	}
	if c := CheckReduction("sum", "float32", n, ref.Sum, 0, -1, ref, tol); !c.Pass {
		t.Errorf("the right sum of subnormals rejected: %+v", c)
	}
	mixed := []float64{1, float64(float32(1e-41)), 0.5}
	ref = Reference("sum", mixed, nil)
	if c := CheckReduction("sum", "float32", 3, 1.5, 0, -1, ref, gamma(3, 0x1p-24)*ref.SumAbs); !c.Pass || ref.Subnormal != 1 {
		t.Errorf("a subnormal flushed from 1.5 (a loss far below the bound) rejected: %+v (reference %+v)", c, ref)
	}
}
