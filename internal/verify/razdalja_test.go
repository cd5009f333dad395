package verify

import (
	"math"
	"testing"
)

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

func TestToleranceGrowsWithN(t *testing.T) {
	small, large := DistanceCPUTolerance(10), DistanceCPUTolerance(1<<30)
	if !(small > 0 && large > small && large < 1e-6) {
		t.Fatalf("tolerances %g (n=10), %g (n=2^30)", small, large)
	}
}
