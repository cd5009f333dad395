package gpu

import (
	"errors"
	"strings"
	"testing"
	"time"

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

func TestNoGPUClassification(t *testing.T) {
	if !NoGPU(&Error{Code: 35}) || !NoGPU(&Error{Code: 100}) || NoGPU(&Error{Code: 2}) || NoGPU(errors.New("x")) {
		t.Error("NoGPU misclassifies")
	}
}

// A timer on a stream passes cgo's pointer checks before any CUDA call (without a GPU its calls
// fail; with one they succeed): a Go pointer held inside what cgo is passed panics.
func TestTimerOnAStreamPassesCgoChecks(t *testing.T) {
	tm, err := NewTimerOn(&Stream{})
	if err != nil {
		t.Logf("no timer here (%v); its cgo arguments were checked", err)
		return
	}
	defer tm.Free()
	if err := tm.Begin(true); err != nil {
		t.Fatal(err)
	}
	tm.Open()
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

// The library from Go: each program's every variant at sizes that are multiples of nothing,
// through the cgo layer (plan, scratch, run, copy back, the host's part), checked against the
// float64 reference. Each program's test file registers how to run one variant (fromGo); it
// counts each case it checks and each it refuses within itself (an operator or shape outside the
// variant's domain) in the tally, and returns ErrOutsideDomain where it refuses the whole run.
type goRun func(t *testing.T, d *Device, v Variant, n int64, c *tally) error

var fromGo = map[string]goRun{}

// tally counts a variant's cases from Go: checked against the reference, refused (outside its
// domain), unavailable (a library loaded at run time, not installed on this host).
type tally struct{ checked, refused, unavailable int }

// The floors make a run that checks nothing fail: every variant checks a case (but the lecture's
// counter-examples, which are expected wrong, and a library not installed here), and at least
// half of a program's variant-and-size pairs check one.
func TestEveryProgramFromGo(t *testing.T) {
	d := openOrSkip(t)
	sizes := []int64{1, 31, 33, 1025, 1<<20 + 3}
	for _, p := range Programs() {
		run, ok := fromGo[p.Name]
		if !ok {
			t.Errorf("%s: no test from Go (register one in internal/gpu/%s_test.go)", p.Name, p.Name)
			continue
		}
		var all tally
		pairs := 0 // (variant, size) pairs that checked a case
		for _, v := range p.Variants() {
			var vt tally
			for _, n := range sizes {
				before := vt.checked
				err := run(t, d, v, n, &vt)
				switch {
				case errors.Is(err, ErrOutsideDomain):
					vt.refused++
				case errors.Is(err, ErrUnavailable): // (npp where NPP is not installed)
					vt.unavailable++
				case err != nil:
					t.Fatalf("%s %s n=%d: %v", p.Name, v.Name, n, err)
				}
				if vt.checked > before {
					pairs++
				}
			}
			if vt.checked == 0 && !v.CounterExample && vt.unavailable < len(sizes) {
				t.Errorf("%s %s: no case checked at n = %v (%d refused, %d unavailable)", p.Name, v.Name, sizes, vt.refused, vt.unavailable)
			}
			all.checked, all.refused, all.unavailable = all.checked+vt.checked, all.refused+vt.refused, all.unavailable+vt.unavailable
		}
		floor := len(p.Variants()) * len(sizes) / 2
		t.Logf("%s: %d cases checked, %d refused, %d unavailable; %d of %d variant-size pairs checked (floor %d)",
			p.Name, all.checked, all.refused, all.unavailable, pairs, len(p.Variants())*len(sizes), floor)
		if pairs < floor {
			t.Errorf("%s: only %d of %d variant-size pairs checked a case, want at least %d", p.Name, pairs, len(p.Variants())*len(sizes), floor)
		}
	}
}

// inputs are a and b uniform from the seed n, on the host and the device.
func inputs(t *testing.T, v Variant, n int64) (ha, hb []float32, a, b *Buffer) {
	ha, hb = make([]float32, n), make([]float32, n)
	verify.Uniform(ha, 3*n)
	verify.Uniform(hb, 3*n+1)
	return ha, hb, upload(t, ha, v.Managed), upload(t, hb, v.Managed)
}

func firstError(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

func timerOrSkip(t *testing.T) *Timer {
	t.Helper()
	openOrSkip(t)
	timer, err := NewTimer()
	if err != nil {
		t.Fatal(err)
	}
	return timer
}

// The timing gate keeps the host's lateness out of a timed run: a run that queues a small copy
// and then sleeps 2 ms on the host before its stop event is queued times the copy (a few
// microseconds), where a fixed delay of 50 us in front of it timed the sleep.
func TestRepeatLeavesTheHostsLatenessOut(t *testing.T) {
	timer := timerOrSkip(t)
	defer timer.Free()
	src, dst := upload(t, make([]float32, 1024), false), upload(t, make([]float32, 1024), false)
	defer src.Free()
	defer dst.Free()
	times, err := timer.Repeat(5, func() error {
		if err := dst.CopyFrom(src, 4096); err != nil {
			return err
		}
		time.Sleep(2 * time.Millisecond)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, ms := range times {
		if ms <= 0 || ms > 0.5 {
			t.Errorf("a 4 KB copy behind a 2 ms host sleep timed %.4f ms (times %v); want the copy's, under 0.5 ms", ms, times)
		}
	}
}

// A run that waits for the device inside it would hold its own gate shut: the gate gives up
// after its limit, the run is timed again, and after three tries Repeat says why.
func TestRepeatRefusesARunThatWaitsForTheDevice(t *testing.T) {
	timer := timerOrSkip(t)
	defer timer.Free()
	runs := 0
	_, err := timer.Repeat(1, func() error {
		runs++
		return Synchronize("waiting inside a timed run")
	})
	if err == nil || !strings.Contains(err.Error(), "gate") || !errors.Is(err, ErrWaitsForDevice) || runs != 1+gateTries {
		t.Errorf("Repeat of a run that waits for the device: %v after %d runs; want the gate's error after %d", err, runs, 1+gateTries)
	}
	// RepeatUngated times it (TimeKernel's fallback, the row then says so)
	times, err := timer.RepeatUngated(func(t []float64) bool { return len(t) >= 3 }, func() error { return Synchronize("waiting inside a timed run") })
	if err != nil || len(times) != 3 || times[0] < 0 {
		t.Errorf("RepeatUngated: %v, %v", times, err)
	}
}
