package gpu

import (
	"errors"
	"math"
	"testing"

	"tecaj/internal/verify"
)

func TestRazdaljaPlansWithoutGPU(t *testing.T) {
	var dev *Device
	pl, err := dev.PlanRazdalja(Request{Variant: find(t, Razdalja, "ls2"), N: 1 << 20, Threads: 128})
	if err != nil || pl.OutCount != int64(pl.Blocks) || pl.Threads != 128 || pl.BytesMoved != 8*(1<<20)+4*float64(pl.Blocks) {
		t.Errorf("ls2 plan %+v, %v", pl, err)
	}
	if tol := RazdaljaTolerance(pl); !(tol > 0 && tol < 1e-5) {
		t.Errorf("ls2 tolerance %g", tol)
	}
	if _, err := dev.PlanRazdalja(Request{Variant: find(t, Razdalja, "la2"), N: 1 << 23}); !errors.Is(err, ErrOutsideDomain) {
		t.Errorf("la2 at 2^23: %v, want ErrOutsideDomain", err)
	}
}

func init() {
	fromGo["razdalja"] = func(t *testing.T, d *Device, v Variant, n int64, cases *tally) error {
		threads := 128
		if v.Name == "best" {
			threads = 0 // (best's blocks are 256 or 512 threads: it chooses)
		}
		pl, err := d.PlanRazdalja(Request{Variant: v, N: n, Threads: threads})
		if err != nil {
			return err
		}
		ha, hb, a, b := inputs(t, v, n)
		defer a.Free()
		defer b.Free()
		out, err := Alloc(4*pl.OutCount, false)
		if err != nil {
			return err
		}
		defer out.Free()
		scratch, err := pl.AllocScratch()
		if err != nil {
			return err
		}
		defer scratch.Free()
		if err := firstError(out.Fill(0xFF), RunRazdalja(pl, a, b, out, scratch, nil), Synchronize("razdalja")); err != nil {
			return err
		}
		host := make([]float32, pl.OutCount)
		if err := out.Download(host); err != nil {
			return err
		}
		got, want := math.Sqrt(FinishRazdalja(pl, host)), math.Sqrt(verify.SquaredDistance(ha, hb))
		if tol := RazdaljaTolerance(pl); !verify.Within(got, want, tol) {
			t.Errorf("razdalja %s n=%d: %v, want %v (error %g, tolerance %g)", v.Name, n, got, want, verify.RelativeError(got, want), tol)
		}
		cases.checked++
		return nil
	}
}

func init() {
	planners["razdalja"] = func(d *Device, v Variant, n int64) ([]Launch, error) {
		pl, err := d.PlanRazdalja(Request{Variant: v, N: n})
		if err != nil {
			return nil, err
		}
		return []Launch{pl.Launch}, nil
	}
}
