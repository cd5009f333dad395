package gpu

import (
	"errors"
	"math"
	"testing"

	"tecaj/internal/verify"
)

func find(t *testing.T, p Program, name string) Variant {
	t.Helper()
	for _, v := range Variants(p) {
		if v.Name == name {
			return v
		}
	}
	t.Fatalf("no variant %s", name)
	return Variant{}
}

func TestPlansWithoutGPU(t *testing.T) {
	dev := h100Like()
	if _, err := planFor(Razlika, find(t, Razlika, "1"), 1025, 256, 0, dev); !errors.Is(err, ErrOutsideDomain) {
		t.Errorf("razlika 1 at n=1025: %v, want ErrOutsideDomain", err)
	}
	if _, err := planFor(Razlika, find(t, Razlika, "4"), 0, 256, 0, dev); err == nil || errors.Is(err, ErrOutsideDomain) {
		t.Errorf("n=0: %v, want a bad-argument error", err)
	}
	pl, err := planFor(Razdalja, find(t, Razdalja, "ls2"), 1<<20, 128, 0, dev)
	if err != nil || pl.OutCount != int64(pl.Blocks) || pl.Threads != 128 || pl.BytesMoved != 8*(1<<20)+4*float64(pl.Blocks) {
		t.Errorf("ls2 plan %+v, %v", pl, err)
	}
	if tol := RazdaljaTolerance(pl); !(tol > 0 && tol < 1e-5) {
		t.Errorf("ls2 tolerance %g", tol)
	}
	if _, err := planFor(Razdalja, find(t, Razdalja, "la2"), 1<<23, 256, 0, dev); !errors.Is(err, ErrOutsideDomain) {
		t.Errorf("la2 at 2^23: %v, want ErrOutsideDomain", err)
	}
}

func TestNoGPUClassification(t *testing.T) {
	if !NoGPU(&Error{Code: 35}) || !NoGPU(&Error{Code: 100}) || NoGPU(&Error{Code: 2}) || NoGPU(errors.New("x")) {
		t.Error("NoGPU misclassifies")
	}
}

func openOrSkip(t *testing.T) *Device {
	t.Helper()
	d, err := Open()
	if err != nil {
		if NoGPU(err) {
			t.Skip("no usable GPU: " + err.Error())
		}
		t.Fatal(err)
	}
	return d
}

func upload(t *testing.T, xs []float32, managed bool) *Buffer {
	t.Helper()
	b, err := Alloc(int64(len(xs))*4, managed)
	if err != nil {
		t.Fatal(err)
	}
	if managed {
		copy(b.Floats(), xs)
	} else if err := b.Upload(xs); err != nil {
		t.Fatal(err)
	}
	return b
}

var sizes = []int64{1, 31, 33, 1025, 1<<20 + 3}

func TestRazlikaFromGo(t *testing.T) {
	d := openOrSkip(t)
	for _, v := range Variants(Razlika) {
		for _, n := range sizes {
			pl, err := d.PlanLaunch(Razlika, v, n, 256, 0)
			if errors.Is(err, ErrOutsideDomain) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			a, b, c := make([]float32, n), make([]float32, n), make([]float32, n)
			verify.Uniform(a, n)
			verify.Uniform(b, n+1)
			da, db := upload(t, a, v.Managed), upload(t, b, v.Managed)
			dc, err := Alloc(4*n, v.Managed)
			if err != nil {
				t.Fatal(err)
			}
			if err := dc.Fill(0xFF); err != nil {
				t.Fatal(err)
			}
			if err := RunRazlika(pl, da, db, dc); err != nil {
				t.Fatal(err)
			}
			if err := Synchronize("razlika"); err != nil {
				t.Fatal(err)
			}
			if v.Managed {
				copy(c, dc.Floats())
			} else if err := dc.Download(c); err != nil {
				t.Fatal(err)
			}
			if got := verify.CheckDifference(a, b, c); got.Mismatches != 0 {
				t.Errorf("razlika %s n=%d: %+v", v.Name, n, got)
			}
			da.Free()
			db.Free()
			dc.Free()
		}
	}
}

func TestRazdaljaFromGo(t *testing.T) {
	d := openOrSkip(t)
	for _, v := range Variants(Razdalja) {
		for _, n := range sizes {
			pl, err := d.PlanLaunch(Razdalja, v, n, 128, 0)
			if errors.Is(err, ErrOutsideDomain) {
				continue
			}
			if err != nil {
				t.Fatal(err)
			}
			a, b := make([]float32, n), make([]float32, n)
			verify.Uniform(a, 3*n)
			verify.Uniform(b, 3*n+1)
			da, db := upload(t, a, false), upload(t, b, false)
			out, err1 := Alloc(4*pl.OutCount, false)
			scratch, err2 := pl.AllocScratch()
			if err := firstError(err1, err2); err != nil {
				t.Fatal(err)
			}
			if err := firstError(out.Fill(0xFF), RunRazdalja(pl, da, db, out, scratch), Synchronize("razdalja")); err != nil {
				t.Fatal(err)
			}
			host := make([]float32, pl.OutCount)
			if err := out.Download(host); err != nil {
				t.Fatal(err)
			}
			got, want := math.Sqrt(FinishRazdalja(pl, host)), math.Sqrt(verify.SquaredDistance(a, b))
			if tol := RazdaljaTolerance(pl); !verify.Within(got, want, tol) {
				t.Errorf("razdalja %s n=%d: %v, want %v (error %g, tolerance %g)", v.Name, n, got, want, verify.RelativeError(got, want), tol)
			}
			for _, f := range []*Buffer{da, db, out, scratch} {
				f.Free()
			}
		}
	}
}

func firstError(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
