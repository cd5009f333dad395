package verify

import (
	"math"
	"testing"
)

func TestUniformIsSeededAndNotZero(t *testing.T) {
	n := 3*chunk + 17
	a, b, c := make([]float32, n), make([]float32, n), make([]float32, n)
	Uniform(a, 5)
	Uniform(b, 5)
	Uniform(c, 6)
	same, zeros := 0, 0
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("same seed, different value at %d", i)
		}
		if a[i] == c[i] {
			same++
		}
		if a[i] == 0 {
			zeros++
		}
		if a[i] < -1 || a[i] >= 1 {
			t.Fatalf("value %g outside [-1, 1)", a[i])
		}
	}
	if same > n/1000 || zeros > n/1000 {
		t.Errorf("%d equal across seeds, %d zeros of %d", same, zeros, n)
	}
}

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

func TestSquaredDistance(t *testing.T) {
	// 3-4-5: the reference is exact here.
	if got := SquaredDistance([]float32{3, 0}, []float32{0, 4}); got != 25 {
		t.Fatalf("SquaredDistance = %g, want 25", got)
	}
	n := 2*chunk + 5
	a, b := make([]float32, n), make([]float32, n)
	Uniform(a, 1)
	Uniform(b, 2)
	ref, cpu := math.Sqrt(SquaredDistance(a, b)), math.Sqrt(SquaredDistanceCPU(a, b))
	if tol := DistanceCPUTolerance(int64(n)); !Within(cpu, ref, tol) {
		t.Fatalf("cpu %v vs reference %v: error %g over tolerance %g", cpu, ref, RelativeError(cpu, ref), tol)
	}
	b[n-1] = float32(math.Inf(1))
	if !math.IsInf(SquaredDistance(a, b), 1) || !math.IsInf(SquaredDistanceCPU(a, b), 1) {
		t.Fatal("Inf did not propagate")
	}
	a[n-1] = float32(math.Inf(1)) // Inf - Inf
	if !math.IsNaN(SquaredDistance(a, b)) || !math.IsNaN(SquaredDistanceCPU(a, b)) {
		t.Fatal("NaN did not propagate")
	}
}

func TestRelativeError(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct{ got, want, err float64 }{
		{1, 1, 0}, {1.5, 1, 0.5}, {nan, nan, 0}, {inf, inf, 0}, {nan, 1, inf}, {1, nan, inf},
		{inf, 1, inf}, {1, inf, inf}, {-inf, inf, inf}, {0, 0, 0},
	}
	for _, c := range cases {
		if got := RelativeError(c.got, c.want); got != c.err {
			t.Errorf("RelativeError(%v, %v) = %v, want %v", c.got, c.want, got, c.err)
		}
	}
	if Within(1+1e-6, 1, 1e-7) || !Within(1+1e-8, 1, 1e-7) {
		t.Error("Within misjudges the tolerance")
	}
}

func TestToleranceGrowsWithN(t *testing.T) {
	small, large := DistanceCPUTolerance(10), DistanceCPUTolerance(1<<30)
	if !(small > 0 && large > small && large < 1e-6) {
		t.Fatalf("tolerances %g (n=10), %g (n=2^30)", small, large)
	}
}
