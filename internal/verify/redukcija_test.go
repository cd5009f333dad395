package verify

import (
	"math"
	"strings"
	"testing"

	"tecaj/internal/vocab"
)

var (
	withNaNs    = []float64{3, -1, math.NaN(), -1, math.NaN(), 7}
	withTies    = []float64{3, -1, 5, -1, 7}
	bigInts     = []float64{2147483000, 2147483000, -5}
	signedZeros = []float64{0, math.Copysign(0, -1), 0}
)

// referenceTest is what Reference gives for op over in: for min, max, argmin and argmax the
// extreme and its index; for sum the sum and, for integer inputs, the wrapped int64 sum.
type referenceTest struct {
	op      vocab.Op
	in      []float64
	index   int64
	extreme float64 // (NaN: the first NaN)
	sum     float64
	exact   int64 // (0: the inputs are not integers, not checked)
}

var referenceTests = []referenceTest{
	{op: vocab.ArgMin, in: withNaNs, index: 2, extreme: math.NaN()}, // the first NaN
	{op: vocab.ArgMin, in: withTies, index: 1, extreme: -1},         // the first of two ties
	{op: vocab.ArgMax, in: withTies, index: 4, extreme: 7},
	{op: vocab.Sum, in: []float64{1, 1e100, -1e100}, sum: 1}, // compensated: 1 + 1e100 - 1e100 is 1
	{op: vocab.Sum, in: bigInts, sum: 4294965995, exact: 4294965995},
}

func TestReductionReference(t *testing.T) {
	for i := range referenceTests {
		test := &referenceTests[i]
		r := Reference(test.op, test.in, nil)
		var ok bool
		if test.op == vocab.Sum {
			ok = r.Sum == test.sum && (test.exact == 0 || r.Exact == test.exact)
		} else {
			ok = r.Index == test.index && (r.Extreme == test.extreme || math.IsNaN(r.Extreme) && math.IsNaN(test.extreme))
		}
		if !ok {
			t.Errorf("Reference(%s, %v) = %+v, want %+v", test.op, test.in, r, *test)
		}
	}
}

// checkTest is a result (value, exact int64 sum, index) of op over in, checked by CheckReduction
// against Reference(op, in) within tol; pass is whether it must pass.
type checkTest struct {
	name  string
	op    vocab.Op
	typ   vocab.Dtype
	in    []float64
	value float64
	exact int64
	index int64 // (-1: no index)
	tol   float64
	pass  bool
}

var checkTests = []checkTest{
	{name: "an exact sum", op: vocab.Sum, typ: vocab.Float32, in: []float64{0.5, 0.25}, value: 0.75, index: -1, pass: true},
	{name: "a wrong sum", op: vocab.Sum, typ: vocab.Float32, in: []float64{0.5, 0.25}, value: 0.76, index: -1, tol: 1e-6},
	{name: "an int sum off by one", op: vocab.Sum, typ: vocab.Int32, in: bigInts, exact: 4294965994, index: -1},
	{name: "the second of two ties as argmin", op: vocab.ArgMin, typ: vocab.Float32, in: withTies, value: -1, index: 3},
	{name: "argmin's right index and value", op: vocab.ArgMin, typ: vocab.Float32, in: withTies, value: -1, index: 1, pass: true},
	{name: "argmin's right index with another value", op: vocab.ArgMin, typ: vocab.Float32, in: withTies, value: 3, index: 1},
	{name: "argmax's index 0 with -0.0 for the +0.0 there", op: vocab.ArgMax, typ: vocab.Float32, in: signedZeros, value: math.Copysign(0, -1), index: 0},
	{name: "argmin's first NaN index with a number for its value", op: vocab.ArgMin, typ: vocab.Float32, in: withNaNs, value: -1, index: 2},
	{name: "a min that dropped the NaN", op: vocab.Min, typ: vocab.Float32, in: withNaNs, value: 3, index: -1},
}

func TestReductionCheck(t *testing.T) {
	for i := range checkTests {
		test := &checkTests[i]
		c := CheckReduction(test.op, test.typ, int64(len(test.in)), test.value, test.exact, test.index, Reference(test.op, test.in, nil), test.tol)
		if c.Pass != test.pass {
			t.Errorf("%s (%s %s of %v: %v, exact %d, index %d, tolerance %g): pass %v, want %v (%+v)",
				test.name, test.op, test.typ, test.in, test.value, test.exact, test.index, test.tol, c.Pass, test.pass, c)
		}
	}
}

func TestReduceCPUAgreesWithTheReference(t *testing.T) {
	n := 3<<20 + 5
	a, b := make([]float64, n), make([]float64, n)
	ReductionInput(a, vocab.Float32, 1)
	ReductionInput(b, vocab.Float32, 2)
	for _, op := range []vocab.Op{vocab.Sum, vocab.Min, vocab.Max, vocab.Norm, vocab.Dot, vocab.ArgMin, vocab.ArgMax} {
		ref := Reference(op, a, b)
		v, exact, idx := ReduceCPU(op, a, b)
		c := CheckReduction(op, vocab.Float32, int64(n), v, exact, idx, ref, CPUReductionTolerance(int64(n), ref.SumAbs))
		if op == vocab.Norm {
			c = CheckReduction(op, vocab.Float32, int64(n), math.Sqrt(v), exact, idx, ref, CPUReductionTolerance(int64(n), ref.SumAbs))
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
	ref := Reference(vocab.Sum, a, nil)
	tol := gamma(n, 0x1p-24) * ref.SumAbs
	if ref.Subnormal != n || !(ref.Sum > 6.5e-37 && ref.Sum < 6.6e-37) || !(tol < ref.Sum/100) {
		t.Fatalf("reference %+v, bound %g: want 65537 subnormal terms summing to 6.55e-37, a bound far below it", ref, tol)
	}
	c := CheckReduction(vocab.Sum, vocab.Float32, n, 0, 0, -1, ref, tol)
	if c.Pass || !strings.Contains(c.Note, "65537 of the terms are float32 subnormals") {
		t.Errorf("0 for a sum of 65537 x 1e-41: %+v, want a failure naming the subnormal terms", c)
	}
	if c := CheckReduction(vocab.Mean, vocab.Float32, n, 0, 0, -1, Reference(vocab.Mean, a, nil), tol); c.Pass {
		t.Errorf("a mean of 0 for 65537 x 1e-41 passed: %+v", c)
	}
	if c := CheckReduction(vocab.Sum, vocab.Float32, n, ref.Sum, 0, -1, ref, tol); !c.Pass {
		t.Errorf("the right sum of subnormals rejected: %+v", c)
	}
	mixed := []float64{1, float64(float32(1e-41)), 0.5}
	ref = Reference(vocab.Sum, mixed, nil)
	if c := CheckReduction(vocab.Sum, vocab.Float32, 3, 1.5, 0, -1, ref, gamma(3, 0x1p-24)*ref.SumAbs); !c.Pass || ref.Subnormal != 1 {
		t.Errorf("a subnormal flushed from 1.5 (a loss far below the bound) rejected: %+v (reference %+v)", c, ref)
	}
}
