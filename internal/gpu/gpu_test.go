package gpu

import (
	"errors"
	"math"
	"testing"

	"tecaj/internal/verify"
)

func find(t *testing.T, p *Program, name string) Variant {
	t.Helper()
	for _, v := range p.Variants() {
		if v.Name == name {
			return v
		}
	}
	t.Fatalf("%s has no variant %s", p.Name, name)
	return Variant{}
}

func TestProgramsRegisterThemselves(t *testing.T) {
	if len(Programs()) < 3 {
		t.Fatalf("programs: %v", Programs())
	}
	for _, p := range Programs() {
		if p.Unit == "" || len(p.Variants()) == 0 {
			t.Errorf("%s: unit %q, %d variants", p.Name, p.Unit, len(p.Variants()))
		}
		for _, v := range p.Variants() {
			if len(v.Kernels) == 0 && !v.Library {
				t.Errorf("%s %s lists no kernels", p.Name, v.Name)
			}
		}
	}
}

func TestPlansWithoutGPU(t *testing.T) {
	var dev *Device // plans for an H100 without one
	if _, err := dev.PlanRazlika(Request{Variant: find(t, Razlika, "1"), N: 1025, Threads: 256}); !errors.Is(err, ErrOutsideDomain) {
		t.Errorf("razlika 1 at n=1025: %v, want ErrOutsideDomain", err)
	}
	if _, err := dev.PlanRazlika(Request{Variant: find(t, Razlika, "4"), N: 0, Threads: 256}); err == nil || errors.Is(err, ErrOutsideDomain) {
		t.Errorf("n=0: %v, want a bad-argument error", err)
	}
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
	s, err := dev.PlanUrejanje(SortRequest{Request: Request{Variant: find(t, Urejanje, "nl"), N: 1025}, Batch: 3, Pairs: true})
	if err != nil || s.Padded != 2048 || s.Items != 3*1025 || s.ScratchBytes != 8*2048*3 || s.Launches < 3 || s.Blocks < 1 {
		t.Errorf("nl plan %+v, %v", s, err)
	}
	if _, err := dev.PlanUrejanje(SortRequest{Request: Request{Variant: find(t, Urejanje, "nl"), N: 1025, Blocks: 4}, Batch: 1}); !errors.Is(err, ErrOutsideDomain) {
		t.Errorf("urejanje with -blocks 4: %v, want ErrOutsideDomain (it sizes its own grid)", err)
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

// The library from Go, one table: each program's every variant at sizes that are multiples of
// nothing, through the cgo layer (plan, scratch, run, copy back, the host's part), checked
// against the float64 reference.
func TestEveryProgramFromGo(t *testing.T) {
	d := openOrSkip(t)
	sizes := []int64{1, 31, 33, 1025, 1<<20 + 3}
	type run func(t *testing.T, v Variant, n int64, a, b *Buffer, ha, hb []float32) error
	for _, c := range []struct {
		program *Program
		run     run
	}{
		{Razlika, func(t *testing.T, v Variant, n int64, a, b *Buffer, ha, hb []float32) error {
			pl, err := d.PlanRazlika(Request{Variant: v, N: n, Threads: 256})
			if err != nil {
				return err
			}
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
		}},
		{Razdalja, func(t *testing.T, v Variant, n int64, a, b *Buffer, ha, hb []float32) error {
			pl, err := d.PlanRazdalja(Request{Variant: v, N: n, Threads: 128})
			if err != nil {
				return err
			}
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
			if err := firstError(out.Fill(0xFF), RunRazdalja(pl, a, b, out, scratch), Synchronize("razdalja")); err != nil {
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
			return nil
		}},
		{Urejanje, func(t *testing.T, v Variant, n int64, a, _ *Buffer, ha, _ []float32) error {
			pl, err := d.PlanUrejanje(SortRequest{Request: Request{Variant: v, N: n}, Batch: 1, Pairs: true})
			if err != nil {
				return err
			}
			keys, values := make([]uint32, n), make([]uint32, n)
			for poison := 0; poison < 2; poison++ { // two poisons: every bit pattern is a legal key
				bufs := make([]*Buffer, 3)
				for i := range bufs {
					if bufs[i], err = Alloc(4*n, false); err != nil {
						return err
					}
					defer bufs[i].Free()
				}
				scratch, err := pl.AllocScratch()
				if err != nil {
					return err
				}
				defer scratch.Free()
				if err := firstError(bufs[0].Fill(0xFF-byte(poison)*0x5A), bufs[1].Fill(0xFF-byte(poison)*0x5A),
					RunUrejanje(pl, Float32, false, a, nil, bufs[0], bufs[1], scratch), Synchronize("urejanje")); err != nil {
					return err
				}
				k, vals := make([]uint32, n), make([]uint32, n)
				if err := firstError(bufs[0].DownloadWords(k), bufs[1].DownloadWords(vals)); err != nil {
					return err
				}
				if poison == 0 {
					keys, values = k, vals
					continue
				}
				for i := range k {
					if k[i] != keys[i] || vals[i] != values[i] {
						t.Fatalf("urejanje %s n=%d: slot %d follows the poison (unwritten)", v.Name, n, i)
					}
				}
			}
			in := make([]uint32, n)
			for i, f := range ha {
				in[i] = math.Float32bits(f)
			}
			if c := verify.CheckSort(in, keys, values, n, 1, verify.Float32, false); c.Bad != 0 {
				t.Errorf("urejanje %s n=%d: %+v", v.Name, n, c)
			}
			return nil
		}},
	} {
		for _, v := range c.program.Variants() {
			for _, n := range sizes {
				ha, hb := make([]float32, n), make([]float32, n)
				verify.Uniform(ha, 3*n)
				verify.Uniform(hb, 3*n+1)
				a, b := upload(t, ha, v.Managed), upload(t, hb, v.Managed)
				err := c.run(t, v, n, a, b, ha, hb)
				a.Free()
				b.Free()
				if errors.Is(err, ErrOutsideDomain) {
					continue
				}
				if err != nil {
					t.Fatalf("%s %s n=%d: %v", c.program.Name, v.Name, n, err)
				}
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
