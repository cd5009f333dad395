package gpu

import (
	"errors"
	"fmt"
	"testing"

	"tecaj/internal/verify"
)

func TestRazlikaPlansWithoutGPU(t *testing.T) {
	var dev *Device // plans for NoGPUProfile without a GPU
	if _, err := dev.PlanRazlika(Request{Variant: find(t, Razlika, "1"), N: 1025, Threads: 256}, false); !errors.Is(err, ErrOutsideDomain) {
		t.Errorf("razlika 1 at n=1025: %v, want ErrOutsideDomain", err)
	}
	if _, err := dev.PlanRazlika(Request{Variant: find(t, Razlika, "4"), N: 0, Threads: 256}, true); err == nil || errors.Is(err, ErrOutsideDomain) {
		t.Errorf("n=0: %v, want a bad-argument error", err)
	}
}

// Which requests run as the lecture's failure (named: lesson), which are refused, and what the
// lesson's launch reaches. Plans only: no GPU needed.
func TestRazlikaLessonPlans(t *testing.T) {
	const refused = -1
	tests := []struct {
		variant         string
		n               int64
		threads, blocks int
		lesson          bool // named (-variant 1, or a list; not all)
		// the plan: threads (refused: outside the domain), blocks (0: not checked), lesson, reach
		wantThreads, wantBlocks int
		wantLesson              bool
		wantReach               int64
	}{
		// 1 in its domain: a block of exactly n threads, named or not
		{"1", 1000, 0, 0, true, 1000, 1, false, 1000},
		{"1", 64, 64, 0, true, 64, 1, false, 64},
		{"1", 1000, 1024, 0, false, 1000, 1, false, 1000}, // not named: -threads ignored, as ever
		// 1 named past it: the index exceeds n (a block larger than n) ...
		{"1", 1000, 1024, 0, true, 1024, 1, true, 1024},
		{"1", 1, 32, 0, true, 32, 1, true, 32},
		// ... or a block short of n (the largest block where n is larger than any)
		{"1", 100, 32, 0, true, 32, 1, true, 100},
		{"1", 5000, 0, 0, true, 1024, 1, true, 5000},
		{"1", 5000, 256, 0, true, 256, 1, true, 5000},
		{"1", 5000, 0, 0, false, refused, 0, false, 0},
		{"1", 1025, 1024, 0, false, refused, 0, false, 0},
		// 3: the grid covers n, or (named) a grid short of n leaves the rest unwritten; its bounds
		// check keeps every write inside n
		{"3", 1025, 256, 0, true, 256, 5, false, 1025},
		{"3", 1025, 256, 5, true, 256, 5, false, 1025},
		{"3", 1025, 256, 4, true, 256, 4, true, 1025},
		{"3", 1<<20 + 3, 256, 7, true, 256, 7, true, 1<<20 + 3},
		{"3", 1025, 256, 4, false, refused, 0, false, 0},
		// the other variants have no lesson: refused outside their domain, named or not
		{"2", 257, 256, 0, true, refused, 0, false, 0},
		{"4", 5000, 256, 3, true, 256, 3, false, 5000},
		{"best", 5000, 256, 0, true, 256, 0, false, 5000},
	}
	var dev *Device
	for _, tt := range tests {
		r := Request{Variant: find(t, Razlika, tt.variant), N: tt.n, Threads: tt.threads, Blocks: tt.blocks}
		pl, err := dev.PlanRazlika(r, tt.lesson)
		what := fmt.Sprintf("razlika %s n=%d threads=%d blocks=%d lesson=%v", tt.variant, tt.n, tt.threads, tt.blocks, tt.lesson)
		if tt.wantThreads == refused {
			if !errors.Is(err, ErrOutsideDomain) {
				t.Errorf("%s: %v, want ErrOutsideDomain", what, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", what, err)
			continue
		}
		if pl.Threads != tt.wantThreads || (tt.wantBlocks != 0 && pl.Blocks != tt.wantBlocks) || pl.Lesson != tt.wantLesson || pl.Reach != tt.wantReach ||
			(pl.BytesMoved == 0) != tt.wantLesson { // a wrong run claims no rate

			t.Errorf("%s: threads %d blocks %d lesson %v reach %d bytes %g; want %d %d %v %d", what, pl.Threads, pl.Blocks, pl.Lesson, pl.Reach,
				pl.BytesMoved, tt.wantThreads, tt.wantBlocks, tt.wantLesson, tt.wantReach)
		}
	}
}

func init() {
	fromGo["razlika"] = func(t *testing.T, d *Device, v Variant, n int64, cases *tally) error {
		pl, err := d.PlanRazlika(Request{Variant: v, N: n, Threads: 256}, false)
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
		cases.checked++
		return nil
	}
}

func init() {
	planners["razlika"] = func(d *Device, v Variant, n int64) ([]Launch, error) {
		pl, err := d.PlanRazlika(Request{Variant: v, N: n}, false)
		if err != nil && !errors.Is(err, ErrOutsideDomain) {
			return nil, err
		}
		var launches []Launch
		if err == nil {
			launches = append(launches, pl.Launch)
		}
		// the lessons too: their launches must fit the device as well
		lesson, lerr := d.PlanRazlika(Request{Variant: v, N: n}, true)
		if lerr != nil {
			return launches, lerr
		}
		if lesson.Lesson {
			launches = append(launches, lesson.Launch)
		}
		return launches, nil
	}
}
