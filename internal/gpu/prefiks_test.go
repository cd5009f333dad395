package gpu

import (
	"tecaj/internal/vocab"

	"errors"
	"testing"

	"tecaj/internal/verify"
)

func TestPrefiksPlansWithoutGPU(t *testing.T) {
	var dev *Device
	if _, err := dev.PlanPrefiks(PrefiksRequest{Request: Request{Variant: find(t, Prefiks, "hs"), N: 257, Threads: 256}}); !errors.Is(err, ErrOutsideDomain) {
		t.Errorf("hs at n=257: %v, want ErrOutsideDomain", err)
	}
	pl, err := dev.PlanPrefiks(PrefiksRequest{Request: Request{Variant: find(t, Prefiks, "grid"), N: 1 << 20}, Type: vocab.Float32})
	if err != nil || pl.Levels != 3 || pl.Launches != 5 || PrefiksTolerance(pl, 1) <= 0 {
		t.Errorf("grid plan %+v, %v", pl, err)
	}
}

func init() {
	// inclusive and exclusive int32 sums (exact), plain, and segmented for the variants that take segments
	fromGo["prefiks"] = func(t *testing.T, d *Device, v Variant, n int64, cases *tally) error {
		in := make([]uint32, n)
		verify.ScanInput(in, vocab.Int32, n)
		flags := make([]byte, n)
		verify.SegmentFlags(flags, 0, n)
		bufs := make([]*Buffer, 3)
		var err error
		for i := range bufs {
			if bufs[i], err = Alloc(4*n, false); err != nil {
				return err
			}
			defer bufs[i].Free()
		}
		if err := firstError(bufs[0].UploadWords(in), bufs[2].UploadBytes(flags)); err != nil {
			return err
		}
		for _, segmented := range []bool{false, true} {
			for _, excl := range []bool{false, true} {
				pl, err := d.PlanPrefiks(PrefiksRequest{Request: Request{Variant: v, N: n}, Op: vocab.Sum, Type: vocab.Int32, Exclusive: excl, Segmented: segmented})
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
				var f []byte
				var fb *Buffer
				if segmented {
					f, fb = flags, bufs[2]
				}
				out := make([]uint32, n)
				err = firstError(bufs[1].Fill(0xFF), RunPrefiks(pl, bufs[0], fb, bufs[1], scratch), Synchronize("prefiks"), bufs[1].DownloadWords(out))
				scratch.Free()
				if err != nil {
					return err
				}
				if c := verify.CheckScan(vocab.Sum, vocab.Int32, out, verify.Scan(vocab.Sum, vocab.Int32, excl, in, f), func(float64) float64 { return 0 }); c.Bad != 0 {
					t.Errorf("prefiks %s n=%d exclusive=%v segmented=%v: %s", v.Name, n, excl, segmented, c.First)
				}
				cases.checked++
			}
		}
		return nil
	}
}

func init() {
	planners["prefiks"] = func(d *Device, v Variant, n int64) (ls []Launch, err error) {
		for _, seg := range []bool{false, true} {
			for i, op := range ScanOps {
				for _, ty := range ScanTypes {
					pl, e := d.PlanPrefiks(PrefiksRequest{Request: Request{Variant: v, N: n}, Op: op, Type: ty, Exclusive: i == 1, Segmented: seg})
					if e != nil {
						err = e
						continue
					}
					ls = append(ls, pl.Launch)
				}
			}
		}
		if len(ls) > 0 {
			err = nil // (seg takes segments only, the lecture's scans plain ones)
		}
		return ls, err
	}
}
