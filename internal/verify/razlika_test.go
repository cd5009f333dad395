package verify

import (
	"math"
	"testing"
)

func TestCheckDifferenceCatchesWrongUnwrittenAndNaN(t *testing.T) {
	a := []float32{1, 2, float32(math.NaN()), 4, 5, float32(math.Inf(1))}
	b := []float32{0.5, 1, 1, 4, 6, float32(math.Inf(1))}
	c := make([]float32, len(a))
	DifferenceCPU(a, b, c)
	if got := CheckDifference(a, b, c); got.Mismatches != 0 || got.First != -1 {
		t.Fatalf("correct output rejected: %+v", got)
	}
	c[1] = math.Nextafter32(c[1], 2) // one ulp off
	c[4] = PoisonFloat
	got := CheckDifference(a, b, c)
	if got.Mismatches != 2 || got.Unwritten != 1 || got.First != 1 || got.MaxAbs == 0 {
		t.Fatalf("want 2 mismatches (one unwritten) from index 1, got %+v", got)
	}
	c = make([]float32, len(a))
	DifferenceCPU(a, b, c)
	c[2] = 0 // NaN expected
	if got := CheckDifference(a, b, c); got.Mismatches != 1 || got.First != 2 {
		t.Fatalf("a lost NaN was not caught: %+v", got)
	}
}

// A lesson's padded output: guard words past len(a) that were overwritten are counted apart from
// the n elements' check.
func TestCheckDifferenceCountsWritesPastN(t *testing.T) {
	a, b := []float32{3, 2, 1}, []float32{1, 1, 1}
	c := []float32{2, 1, PoisonFloat, 7, PoisonFloat, 9}
	got := CheckDifference(a, b, c)
	if got.Past != 2 || got.Unwritten != 1 || got.Mismatches != 1 || got.First != 2 {
		t.Errorf("%+v: want 2 past n, 1 unwritten at 2", got)
	}
	if got := CheckDifference(a, b, c[:3]); got.Past != 0 {
		t.Errorf("no padding, %d past", got.Past)
	}
}
