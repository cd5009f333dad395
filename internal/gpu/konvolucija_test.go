package gpu

import (
	"errors"
	"fmt"
	"math"
	"testing"

	"tecaj/internal/verify"
)

func TestKonvolucijaPlansWithoutGPU(t *testing.T) {
	var dev *Device
	r := KonvolucijaRequest{Request: Request{Variant: find(t, Konvolucija, "t"), N: 100 * 50}, Dim: 2, Width: 100, Height: 50, MaskW: 33, MaskH: 33,
		Mask: make([]float32, 33*33)}
	if _, err := dev.PlanKonvolucija(r); !errors.Is(err, ErrOutsideDomain) {
		t.Errorf("a 33x33 mask: %v, want ErrOutsideDomain", err)
	}
	r.MaskW, r.MaskH = 3, 3
	if _, err := dev.PlanKonvolucija(r); err == nil {
		t.Errorf("a 3x3 mask of 33x33 weights: planned")
	}
	r.Mask = []float32{1, 2, 3, 4, 5, 6, 7, 8, 9}
	pl, err := dev.PlanKonvolucija(r)
	if err != nil || pl.Items != 5000 || pl.Blocks != 4 {
		t.Fatalf("3x3 plan %+v %v", pl, err)
	}
	for i, w := range pl.c.mask { // the request's weights, then zeros
		want := float32(0)
		if i < len(r.Mask) {
			want = r.Mask[i]
		}
		if float32(w) != want {
			t.Fatalf("the plan's mask slot %d: %v, want %v", i, w, want)
		}
	}
}

func init() {
	// a 2-D image n/97 + 1 rows high, box 3x3 and an asymmetric 5x3 mask, replicate border
	fromGo["konvolucija"] = func(t *testing.T, d *Device, v Variant, n int64, cases *tally) error {
		w := 97
		h := int(n)/w + 1
		img := make([]float32, w*h)
		verify.Uniform(img, n)
		for _, spec := range []string{"box", "1,2,3,4,5;0,0,0,0,-1;2,2,2,2,2"} {
			m, err := verify.ParseMask(spec, 3, 2)
			if err != nil {
				return err
			}
			pl, err := d.PlanKonvolucija(KonvolucijaRequest{Request: Request{Variant: v, N: int64(w * h)}, Dim: 2, Width: w, Height: h,
				MaskW: m.W, MaskH: m.H, Mask: m.Weights, Replicate: true})
			if err != nil {
				return err
			}
			in := upload(t, img, false)
			out, err := Alloc(int64(4*w*h), false)
			if err != nil {
				return err
			}
			got := make([]float32, w*h)
			err = firstError(out.Fill(0xFF), RunKonvolucija(pl, in, out), Synchronize("konvolucija"), out.Download(got))
			in.Free()
			out.Free()
			if err != nil {
				return err
			}
			want := verify.Convolve(img, w, h, m, verify.BorderReplicate)
			if _, bad, first := verify.ConvCheck(got, want, verify.ConvTolerance(m, 1)); bad != 0 {
				t.Errorf("konvolucija %s %dx%d %s: %d bad, %s", v.Name, w, h, spec, bad, first)
			}
			cases.checked++
		}
		return nil
	}
}

func init() {
	// square images of about n pixels (and a row of n), every compiled mask size and the general
	// path, both pixel types; the grid's rows within the profile's gridDim.y
	planners["konvolucija"] = func(d *Device, v Variant, n int64) (ls []Launch, err error) {
		side := int(math.Sqrt(float64(n)))
		if side < 1 {
			side = 1
		}
		for _, r := range []KonvolucijaRequest{
			{Dim: 1, Width: int(n), Height: 1, MaskW: 7, MaskH: 1},
			{Dim: 2, Width: side, Height: int(n) / side, MaskW: 3, MaskH: 3},
			{Dim: 2, Width: side, Height: int(n) / side, MaskW: 5, MaskH: 5},
			{Dim: 2, Width: side, Height: int(n) / side, MaskW: 31, MaskH: 31},
			{Dim: 2, Width: side, Height: int(n) / side, MaskW: 3, MaskH: 3, Magnitude: true},
			{Dim: 2, Width: side, Height: int(n) / side, MaskW: 7, MaskH: 7, Uint8: true},
		} {
			r.Request = Request{Variant: v, N: int64(r.Width) * int64(r.Height)}
			r.Mask = make([]float32, r.MaskW*r.MaskH)
			for i := range r.Mask {
				r.Mask[i] = 1
			}
			pl, e := d.PlanKonvolucija(r)
			if e != nil {
				err = e
				continue
			}
			if int(pl.c.grid_y) > int(d.desc.max_grid_y) {
				return nil, fmt.Errorf("%d rows of blocks, past the profile's %d", int(pl.c.grid_y), int(d.desc.max_grid_y))
			}
			ls = append(ls, pl.Launch)
		}
		if len(ls) > 0 {
			err = nil // (only best takes the magnitude and 8-bit pixels)
		}
		return ls, err
	}
}
