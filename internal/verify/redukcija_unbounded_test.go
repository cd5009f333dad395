package verify

import (
	"math"
	"strings"
	"testing"

	"tecaj/internal/vocab"
)

// Where a variant's chain of additions has no worst-case bound (tolerance +Inf: atomic's serial
// sum past 2^24 float32 terms), the check still refuses 0 for a nonzero sum and an infinite or
// NaN sum for a finite one, and says in its note what it checked.
func TestUnboundedCheckStillRefusesZeroAndInfinity(t *testing.T) {
	ref := ReductionReference{Sum: -534.99, SumAbs: 8.4e6}
	inf := math.Inf(1)
	for _, c := range []struct {
		got  float64
		pass bool
	}{
		{-535.2, true}, {-534.99, true}, {1e3, true},
		{0, false}, {math.Inf(-1), false}, {math.NaN(), false},
	} {
		r := CheckReduction(vocab.Sum, vocab.Float32, 1<<24, c.got, 0, 0, ref, inf)
		if r.Pass != c.pass || !strings.Contains(r.Note, "no error bound") {
			t.Errorf("got %g under no bound: pass %v (want %v), note %q", c.got, r.Pass, c.pass, r.Note)
		}
	}
	if r := CheckReduction(vocab.Sum, vocab.Float32, 1<<24, 0, 0, 0, ReductionReference{}, inf); !r.Pass {
		t.Errorf("0 for a zero sum under no bound: %+v", r)
	}
}
