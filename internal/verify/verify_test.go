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
