package gpu

import (
	"tecaj/internal/vocab"

	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"tecaj/internal/verify"
)

func TestRedukcijaPlansWithoutGPU(t *testing.T) {
	var dev *Device
	r := RedukcijaRequest{Request: Request{Variant: find(t, Redukcija, "r3"), N: 1 << 20, Threads: 256}, Op: vocab.ArgMin}
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
	fromGo["redukcija"] = func(t *testing.T, d *Device, v Variant, n int64, cases *tally) error {
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
			pl, err := d.PlanRedukcija(RedukcijaRequest{Request: Request{Variant: v, N: n}, Op: op, Type: vocab.Float32})
			if errors.Is(err, ErrOutsideDomain) {
				cases.refused++
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
			err = firstError(out.Fill(0xA5), RunRedukcija(pl, a, b, out, scratch, nil), Synchronize("redukcija"), out.DownloadBytes(host))
			scratch.Free()
			if err != nil {
				return err
			}
			if v.CounterExample {
				continue // (expected wrong: run, not checked)
			}
			r := FinishRedukcija(pl, host)
			ref := verify.Reference(op, a64, b64)
			if c := verify.CheckReduction(op, vocab.Float32, n, r.Value, r.Exact, r.Index, ref, RedukcijaTolerance(pl, ref.SumAbs)); !c.Pass {
				t.Errorf("redukcija %s %s n=%d: %s (error %g, tolerance %g)", v.Name, op, n, c.Note, c.Error, c.Tolerance)
			}
			if op == vocab.Norm && !(r.Value >= 0) || math.IsNaN(r.Value) {
				t.Errorf("redukcija %s %s n=%d: %g", v.Name, op, n, r.Value)
			}
			cases.checked++
		}
		return nil
	}
}

func init() {
	planners["redukcija"] = func(d *Device, v Variant, n int64) (ls []Launch, err error) {
		for _, op := range ReduceOps {
			for _, ty := range ReduceTypes {
				pl, e := d.PlanRedukcija(RedukcijaRequest{Request: Request{Variant: v, N: n}, Op: op, Type: ty})
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

// cg's domain, without a GPU: one cooperative launch whose blocks are all resident at once.
// -blocks 0 takes a resident wave (fewer where n needs fewer); the most it takes plans, one more
// is refused with the most named; argmin/argmax are refused as in the other lecture variants.
// Every profile's wave is at most its SMs times the blocks an SM holds.
func TestCgPlansWithoutGPU(t *testing.T) {
	cg := find(t, Redukcija, "cg")
	for _, name := range append([]string{""}, Profiles()...) {
		d := (*Device)(nil) // NoGPUProfile
		if name != "" {
			var err error
			if d, err = Profile(name); err != nil {
				t.Fatal(err)
			}
		}
		for _, ty := range ReduceTypes {
			r := RedukcijaRequest{Request: Request{Variant: cg, N: 1<<24 + 1}, Op: vocab.Sum, Type: ty}
			wave, err := d.PlanRedukcija(r)
			if err != nil {
				t.Fatalf("%s: cg %s 2^24+1: %v", name, ty, err)
			}
			desc := d.described()
			if most := int(desc.multiprocessors * desc.max_blocks_per_multiprocessor); wave.Blocks < int(desc.multiprocessors) || wave.Blocks > most ||
				wave.Launches != 1 || wave.ScratchBytes < int64(wave.Blocks)*int64(wave.Accumulator.Bytes()) || wave.Depth < (1<<24)/int64(wave.Blocks*wave.Threads) {
				t.Errorf("%s: cg %s 2^24+1: %d blocks (want %d..%d), %d launches, %d bytes of scratch, depth %d", name, ty,
					wave.Blocks, desc.multiprocessors, most, wave.Launches, wave.ScratchBytes, wave.Depth)
			}
			r.Blocks = wave.Blocks
			if _, err := d.PlanRedukcija(r); err != nil {
				t.Errorf("%s: cg %s at the most blocks (%d): %v", name, ty, r.Blocks, err)
			}
			r.Blocks++
			_, err = d.PlanRedukcija(r)
			if want := fmt.Sprintf("at most %d blocks of 256 threads", wave.Blocks); !errors.Is(err, ErrOutsideDomain) || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: cg %s with %d blocks: %v, want ErrOutsideDomain naming %q", name, ty, r.Blocks, err, want)
			}
		}
		if pl, err := d.PlanRedukcija(RedukcijaRequest{Request: Request{Variant: cg, N: 33}, Op: vocab.Max}); err != nil || pl.Blocks != 1 {
			t.Errorf("%s: cg max of 33: %+v, %v, want one block", name, pl, err)
		}
		for _, op := range []vocab.Op{vocab.ArgMin, vocab.ArgMax} {
			if _, err := d.PlanRedukcija(RedukcijaRequest{Request: Request{Variant: cg, N: 1000}, Op: op}); !errors.Is(err, ErrOutsideDomain) {
				t.Errorf("%s: cg %s: %v, want ErrOutsideDomain", name, op, err)
			}
		}
	}
}

// Subnormals that float32 atomics flush are allowed nothing: atomic's bound for a float32 sum of
// 65,537 x 1e-41 (6.6e-37) is rounding's alone, and its check refuses the 0 that the flushed
// atomics give, naming the subnormal terms; its domain says so.
func TestAtomicBoundAllowsNoFlushedSubnormals(t *testing.T) {
	atomic := find(t, Redukcija, "atomic")
	if !strings.Contains(atomic.Domain, "flushes subnormal") {
		t.Errorf("atomic's domain does not say that float atomics flush subnormals: %s", atomic.Domain)
	}
	a := tinyVector(65537)
	ref := verify.Reference(vocab.Sum, a, nil)
	pl, err := (*Device)(nil).PlanRedukcija(RedukcijaRequest{Request: Request{Variant: atomic, N: 65537}, Op: vocab.Sum})
	if err != nil {
		t.Fatal(err)
	}
	tol := RedukcijaTolerance(pl, ref.SumAbs)
	if !(tol > 0 && tol < ref.Sum/100) {
		t.Errorf("atomic's bound %g for a sum of %g: want rounding's alone, far below the sum", tol, ref.Sum)
	}
	if c := verify.CheckReduction(vocab.Sum, vocab.Float32, 65537, 0, 0, -1, ref, tol); c.Pass || !strings.Contains(c.Note, "subnormal") {
		t.Errorf("atomic's 0 for 65537 x 1e-41 checked %+v, want a failure naming the subnormals", c)
	}
}

// tinyVector is n float32 values of 1e-41 (subnormal), as float64.
func tinyVector(n int) []float64 {
	a := make([]float64, n)
	for i := range a {
		a[i] = float64(float32(1e-41))
	}
	return a
}

// On the GPU: atomic's float32 sum of 65,537 x 1e-41 is 0 (the hardware's float atomic add
// flushes subnormal operands, PTX atom.add.f32) and its check fails, where r0's float32 tree
// (plain adds keep subnormals) passes.
func TestAtomicFlushesSubnormalsOnTheGPU(t *testing.T) {
	d := openOrSkip(t)
	const n = 65537
	a := tinyVector(n)
	ref := verify.Reference(vocab.Sum, a, nil)
	host := make([]float32, n)
	for i := range host {
		host[i] = float32(a[i])
	}
	buf := upload(t, host, false)
	defer buf.Free()
	out, err := Alloc(ReductionOutBytes, false)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Free()
	for _, name := range []string{"atomic", "r0"} {
		pl, err := d.PlanRedukcija(RedukcijaRequest{Request: Request{Variant: find(t, Redukcija, name), N: n}, Op: vocab.Sum})
		if err != nil {
			t.Fatal(err)
		}
		scratch, err := pl.AllocScratch()
		if err != nil {
			t.Fatal(err)
		}
		res := make([]byte, ReductionOutBytes)
		err = firstError(out.Fill(0xA5), RunRedukcija(pl, buf, buf, out, scratch, nil), Synchronize("redukcija"), out.DownloadBytes(res))
		scratch.Free()
		if err != nil {
			t.Fatal(err)
		}
		r := FinishRedukcija(pl, res)
		c := verify.CheckReduction(vocab.Sum, vocab.Float32, n, r.Value, r.Exact, r.Index, ref, RedukcijaTolerance(pl, ref.SumAbs))
		switch {
		case name == "atomic" && (r.Value != 0 || c.Pass || !strings.Contains(c.Note, "65537 of the terms are float32 subnormals")):
			t.Errorf("atomic: %g, check %+v; want 0 (flushed) and a failing check naming the subnormals", r.Value, c)
		case name == "r0" && !c.Pass:
			t.Errorf("r0: %g, check %+v; want %g within its bound", r.Value, c, ref.Sum)
		}
	}
}
