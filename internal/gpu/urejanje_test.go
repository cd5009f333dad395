package gpu

import (
	"tecaj/internal/vocab"

	"errors"
	"math"
	"testing"

	"tecaj/internal/verify"
)

func TestUrejanjePlansWithoutGPU(t *testing.T) {
	var dev *Device
	s, err := dev.PlanUrejanje(UrejanjeRequest{Request: Request{Variant: find(t, Urejanje, "nl"), N: 1025}, Batch: 3, Pairs: true})
	if err != nil || s.Padded != 2048 || s.Items != 3*1025 || s.ScratchBytes != 8*2048*3 || s.Launches < 3 || s.Blocks < 1 {
		t.Errorf("nl plan %+v, %v", s, err)
	}
	if _, err := dev.PlanUrejanje(UrejanjeRequest{Request: Request{Variant: find(t, Urejanje, "nl"), N: 1025, Blocks: 4}, Batch: 1}); !errors.Is(err, ErrOutsideDomain) {
		t.Errorf("urejanje with -blocks 4: %v, want ErrOutsideDomain (it sizes its own grid)", err)
	}
	prof, err := Profile(NoGPUProfile)
	if err != nil {
		t.Fatal(err)
	}
	// radix: the histogram, the scan and 4 passes past one tile; its blocks are 256 threads unless
	// asked, or 512 where an array has a tile of 8192 for every SM (pairs here: keys alone past
	// twice the L2 take 384)
	big := int64(prof.Multiprocessors) * 8192
	for _, c := range []struct {
		n              int64
		threads, tiles int
	}{{big - 1, 256, int((big - 1 + 4095) / 4096)}, {big, 512, prof.Multiprocessors}} {
		r, err := dev.PlanUrejanje(UrejanjeRequest{Request: Request{Variant: find(t, Urejanje, "radix"), N: c.n}, Batch: 1, Pairs: true})
		if err != nil || r.Launches != 6 || r.Threads != c.threads || r.Blocks != c.tiles || r.ScratchBytes < 8*c.n {
			t.Errorf("radix plan n=%d: %+v, %v; want %d threads, %d tiles", c.n, r, err, c.threads, c.tiles)
		}
	}
	if _, err := dev.PlanUrejanje(UrejanjeRequest{Request: Request{Variant: find(t, Urejanje, "radix"), N: 5000, Threads: 128}, Batch: 1}); !errors.Is(err, ErrOutsideDomain) {
		t.Errorf("radix with -threads 128: %v, want ErrOutsideDomain (its pass shapes: 256, 384, 512 threads)", err)
	}
	// the passes' block, given, names their tile: 384 x 20 keys
	r, err := dev.PlanUrejanje(UrejanjeRequest{Request: Request{Variant: find(t, Urejanje, "radix"), N: 1<<20 + 3, Threads: 384}, Batch: 1, Pairs: true})
	if err != nil || r.Launches != 6 || r.Threads != 384 || r.Blocks != 137 {
		t.Errorf("radix plan with -threads 384 %+v, %v", r, err)
	}
	// best: one array of at most sqrt(SMs x 2^19) keys the rank sort; radix's sort past the
	// device's SMs x 256 keys an array, the network up to it; arrays of 2049 to UrejanjeBlockTile
	// keys radix's block sort with pairs, or with keys in a batch of at least the SMs
	above, sms := int64(prof.Multiprocessors)*256, int64(prof.Multiprocessors)
	most := int64(math.Sqrt(float64(sms) * (1 << 19)))
	for _, c := range []struct {
		n, batch int64
		threads  int
		keys     bool // keys alone (else pairs)
		radix    bool
	}{{above, 1, 0, false, false}, {above + 1, 1, 0, false, true}, {1 << 20, 3, 0, false, true}, {1024, 1024, 0, false, false},
		{1 << 20, 1, 512, false, false}, {2048, 2, 0, false, false}, {2049, 2, 0, false, true}, {4096, 5, 0, false, true},
		{4096, 1, 256, false, false}, {4096, sms - 1, 0, true, false}, {4096, sms, 0, true, true}, {4096, sms, 256, true, false},
		{1, 1, 0, false, false}, {2049, 1, 0, false, false}, {most, 1, 0, true, false}, {most + 1, 1, 0, true, false}} {
		b, err := dev.PlanUrejanje(UrejanjeRequest{Request: Request{Variant: find(t, Urejanje, "best"), N: c.n, Threads: c.threads},
			Batch: c.batch, Pairs: !c.keys})
		if err != nil {
			t.Errorf("best n=%d batch=%d threads=%d keys %v: %v", c.n, c.batch, c.threads, c.keys, err)
			continue
		}
		launches := 6 // (the histogram, the scan, four passes; an array of at most the block tile: one block sort)
		if c.n <= UrejanjeBlockTile {
			launches = 1
		}
		if b.Radix != c.radix || b.RadixAbove != above || (b.Radix && (b.Launches != launches || (b.Threads != 256) != (c.n >= big))) {
			t.Errorf("best n=%d batch=%d threads=%d keys %v: radix %v (want %v), above %d (want %d): %+v", c.n, c.batch, c.threads,
				c.keys, b.Radix, c.radix, b.RadixAbove, above, b)
		}
		rank := c.batch == 1 && c.threads == 0 && c.n <= most
		if b.Rank != rank || b.RankMost != most || (rank && (b.Launches != 1 || b.Blocks != int((c.n+31)/32))) {
			t.Errorf("best n=%d batch=%d threads=%d: rank %v (want %v), most %d (want %d): %+v", c.n, c.batch, c.threads,
				b.Rank, rank, b.RankMost, most, b)
		}
	}
}

func init() {
	// a float argsort; every bit pattern is a legal key and index, so it runs under two poisons
	// and a slot that follows its poison was not written
	fromGo["urejanje"] = func(t *testing.T, d *Device, v Variant, n int64, cases *tally) error {
		pl, err := d.PlanUrejanje(UrejanjeRequest{Request: Request{Variant: v, N: n}, Batch: 1, Pairs: true})
		if err != nil {
			return err
		}
		ha, _, a, b := inputs(t, v, n)
		defer a.Free()
		defer b.Free()
		keys, values := make([]uint32, n), make([]uint32, n)
		for poison := 0; poison < 2; poison++ {
			var bufs [2]*Buffer
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
			p := 0xFF - byte(poison)*0x5A
			if err := firstError(bufs[0].Fill(p), bufs[1].Fill(p), RunUrejanje(pl, a, nil, bufs[0], bufs[1], scratch),
				Synchronize("urejanje")); err != nil {
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
		if c := verify.CheckSort(in, keys, values, n, 1, vocab.Float32, false); c.Bad != 0 {
			t.Errorf("urejanje %s n=%d: %+v", v.Name, n, c)
		}
		cases.checked++
		return nil
	}
}

func init() {
	planners["urejanje"] = func(d *Device, v Variant, n int64) (ls []Launch, err error) {
		for _, pairs := range []bool{false, true} {
			for _, batch := range []int64{1, 3} {
				pl, e := d.PlanUrejanje(UrejanjeRequest{Request: Request{Variant: v, N: n}, Batch: batch, Pairs: pairs})
				if e != nil {
					return nil, e
				}
				ls = append(ls, pl.Launch)
			}
		}
		return ls, nil
	}
}
