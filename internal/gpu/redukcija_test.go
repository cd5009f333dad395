package gpu

import (
	"tecaj/internal/vocab"

	"errors"
	"math"
	"testing"

	"tecaj/internal/verify"
)

func TestRedukcijaPlansWithoutGPU(t *testing.T) {
	var dev *Device
	r := ReductionRequest{Request: Request{Variant: find(t, Redukcija, "r3"), N: 1 << 20, Threads: 256}, Op: vocab.ArgMin}
	if _, err := dev.PlanRedukcija(r); !errors.Is(err, ErrOutsideDomain) {
		t.Errorf("r3 argmin: %v, want ErrOutsideDomain (argmin is best's, cub's and cpu's)", err)
	}
	r.Op = 0
	pl, err := dev.PlanRedukcija(r)
	if err != nil || pl.Launches != 3 || pl.Blocks != 2048 || RedukcijaTolerance(pl, 1) <= 0 {
		t.Errorf("r3 sum plan %+v, %v", pl, err)
	}
}

func init() {
	// every operator that the variant covers, float32
	fromGo["redukcija"] = func(t *testing.T, d *Device, v Variant, n int64) error {
		ha, hb, a, b := inputs(t, v, n)
		defer a.Free()
		defer b.Free()
		a64, b64 := make([]float64, n), make([]float64, n)
		for i := range ha {
			a64[i], b64[i] = float64(ha[i]), float64(hb[i])
		}
		out, err := Alloc(ReductionOutBytes, false)
		if err != nil {
			return err
		}
		defer out.Free()
		for _, op := range ReduceOps {
			name := op.String()
			pl, err := d.PlanRedukcija(ReductionRequest{Request: Request{Variant: v, N: n}, Op: op, Type: vocab.Float32})
			if errors.Is(err, ErrOutsideDomain) {
				continue
			}
			if err != nil {
				return err
			}
			scratch, err := pl.AllocScratch()
			if err != nil {
				return err
			}
			host := make([]byte, ReductionOutBytes)
			err = firstError(out.Fill(0xA5), RunRedukcija(pl, a, b, out, scratch), Synchronize("redukcija"), out.DownloadBytes(host))
			scratch.Free()
			if err != nil {
				return err
			}
			if v.CounterExample {
				continue
			}
			r := FinishRedukcija(pl, host)
			ref := verify.Reference(name, a64, b64)
			if c := verify.CheckReduction(name, "float32", n, r.Value, r.Exact, r.Index, ref, RedukcijaTolerance(pl, ref.SumAbs)); !c.Pass {
				t.Errorf("redukcija %s %s n=%d: %s (error %g, tolerance %g)", v.Name, name, n, c.Note, c.Error, c.Tolerance)
			}
			if name == "norm" && !(r.Value >= 0) || math.IsNaN(r.Value) {
				t.Errorf("redukcija %s %s n=%d: %g", v.Name, name, n, r.Value)
			}
		}
		return nil
	}
}

func init() {
	planners["redukcija"] = func(d *Device, v Variant, n int64) (ls []Launch, err error) {
		for _, op := range ReduceOps {
			for _, ty := range ReduceTypes {
				pl, e := d.PlanRedukcija(ReductionRequest{Request: Request{Variant: v, N: n}, Op: op, Type: ty})
				if e != nil {
					err = e
					continue
				}
				ls = append(ls, pl.Launch)
			}
		}
		if len(ls) > 0 {
			err = nil // (argmin in best and cub only: the others refuse it)
		}
		return ls, err
	}
}
