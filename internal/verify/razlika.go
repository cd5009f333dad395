package verify

import (
	"math"
	"sync"
)

// Difference is the float64 reference of razlika: IEEE subtraction is correctly rounded, and
// rounding the float64 difference to float32 is innocuous (53 >= 2*24+2), so the float32
// result must equal it exactly: the tolerance is 0 ulp.
func Difference(a, b float32) float32 { return float32(float64(a) - float64(b)) }

// DifferenceCheck is the outcome of comparing c with a - b element by element.
type DifferenceCheck struct {
	Mismatches int64 // elements that differ from the reference (unwritten ones included)
	Unwritten  int64 // elements still holding the poison
	Past       int64 // guard words past n overwritten (c longer than a and b: a lesson's padding)
	First      int64 // index of the first mismatch, -1 if none
	MaxAbs     float64
}

// CheckDifference compares c with the reference; NaN matches NaN. Where c is longer than a (a
// lesson's padded output), its elements past len(a) are guard words, each overwritten one counted.
func CheckDifference(a, b, c []float32) DifferenceCheck {
	var mu sync.Mutex
	out := DifferenceCheck{First: -1}
	for _, x := range c[len(a):] {
		if !IsPoison(x) {
			out.Past++
		}
	}
	c = c[:len(a)]
	parallel(len(c), func(_, lo, hi int) {
		local := DifferenceCheck{First: -1}
		for i := lo; i < hi; i++ {
			want, got := Difference(a[i], b[i]), c[i]
			if IsPoison(got) {
				local.Unwritten++
			} else if got == want || (want != want && got != got) {
				continue
			} else if d := math.Abs(float64(got) - float64(want)); d > local.MaxAbs || d != d {
				local.MaxAbs = d
			}
			local.Mismatches++
			if local.First < 0 {
				local.First = int64(i)
			}
		}
		mu.Lock()
		out.Mismatches += local.Mismatches
		out.Unwritten += local.Unwritten
		if local.MaxAbs > out.MaxAbs || local.MaxAbs != local.MaxAbs {
			out.MaxAbs = local.MaxAbs
		}
		if local.First >= 0 && (out.First < 0 || local.First < out.First) {
			out.First = local.First
		}
		mu.Unlock()
	})
	return out
}

// DifferenceCPU is razlika's host variant: every core, float32 arithmetic as on the device.
func DifferenceCPU(a, b, c []float32) {
	parallel(len(c), func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			c[i] = a[i] - b[i]
		}
	})
}
