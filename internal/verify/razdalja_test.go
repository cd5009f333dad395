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

// The host variant is right wherever best is: inputs near 1e20 (float32 squares overflow) and
// near 1e-41 (float32 squares vanish) give the float64 reference within its bound.
func TestSquaredDistanceCPUExtremeMagnitudes(t *testing.T) {
	for _, scale := range []float32{1e20, 3e38, 1e-41} {
		n := chunk + 7
		a, b := make([]float32, n), make([]float32, n)
		Uniform(a, 5)
		Uniform(b, 6)
		for i := range a {
			a[i] *= scale
			b[i] *= scale
		}
		ref, cpu := math.Sqrt(SquaredDistance(a, b)), math.Sqrt(SquaredDistanceCPU(a, b))
		if tol := DistanceCPUTolerance(int64(n)); ref == 0 || math.IsInf(ref, 0) || !Within(cpu, ref, tol) {
			t.Errorf("scale %g: cpu %v vs reference %v: error %g over tolerance %g", scale, cpu, ref, RelativeError(cpu, ref), tol)
		}
	}
}
