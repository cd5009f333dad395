package gpu

import (
	"errors"
	"testing"

	"tecaj/internal/verify"
)

func TestRazlikaPlansWithoutGPU(t *testing.T) {
	var dev *Device // plans for NoGPUProfile without a GPU
	if _, err := dev.PlanRazlika(Request{Variant: find(t, Razlika, "1"), N: 1025, Threads: 256}); !errors.Is(err, ErrOutsideDomain) {
		t.Errorf("razlika 1 at n=1025: %v, want ErrOutsideDomain", err)
	}
	if _, err := dev.PlanRazlika(Request{Variant: find(t, Razlika, "4"), N: 0, Threads: 256}); err == nil || errors.Is(err, ErrOutsideDomain) {
		t.Errorf("n=0: %v, want a bad-argument error", err)
	}
}

func init() {
	fromGo["razlika"] = func(t *testing.T, d *Device, v Variant, n int64) error {
		pl, err := d.PlanRazlika(Request{Variant: v, N: n, Threads: 256})
		if err != nil {
			return err
		}
		ha, hb, a, b := inputs(t, v, n)
		defer a.Free()
		defer b.Free()
		out, err := Alloc(4*n, v.Managed)
		if err != nil {
			return err
		}
		defer out.Free()
		if err := firstError(out.Fill(0xFF), RunRazlika(pl, a, b, out), Synchronize("razlika")); err != nil {
			return err
		}
		c := make([]float32, n)
		if v.Managed {
			copy(c, out.Floats())
		} else if err := out.Download(c); err != nil {
			return err
		}
		if got := verify.CheckDifference(ha, hb, c); got.Mismatches != 0 {
			t.Errorf("razlika %s n=%d: %+v", v.Name, n, got)
		}
		return nil
	}
}

func init() {
	planners["razlika"] = func(d *Device, v Variant, n int64) ([]Launch, error) {
		pl, err := d.PlanRazlika(Request{Variant: v, N: n})
		if err != nil {
			return nil, err
		}
		return []Launch{pl.Launch}, nil
	}
}
