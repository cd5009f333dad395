package cli

// Timing a row: the kernel behind the gate, the copy back, the host's part.

import (
	"errors"
	"math"
	"time"

	"tecaj/internal/gpu"
	"tecaj/internal/report"
)

// TimeHost runs fn once to warm up, then reps times (three where one run takes over half a
// second), and returns each run's wall time in ms (HostTimes takes their median and spread).
func TimeHost(reps int, fn func()) []float64 {
	start := time.Now()
	fn()
	if time.Since(start) > 500*time.Millisecond && reps > 3 {
		reps = 3 // a slow host run: three timed runs give its median without holding the table up
	}
	var times []float64
	for done := hostStop(reps); !done(times); {
		start := time.Now()
		fn()
		times = append(times, float64(time.Since(start).Nanoseconds())/1e6)
	}
	return times
}

// TimeCopy is a copy's time for a row's d2h: the median of three copies, or of five where one
// takes under a millisecond (a small copy's time is the runtime's latency, which varies by tens of
// microseconds from one copy to the next; a large one's first copy can read twice its bytes' time).
func TimeCopy(timer *gpu.Timer, fn func() error) (float64, error) {
	times := make([]float64, 0, 5)
	for len(times) < cap(times) {
		ms, err := timer.Milliseconds(fn)
		if err != nil {
			return 0, err
		}
		times = append(times, ms)
		if len(times) >= 3 && ms >= 1 {
			break
		}
	}
	return report.Median(times), nil
}

// NaNNum is a missing figure in a report row.
var NaNNum = report.Num(math.NaN())

// LaunchOnce runs a variant's launches once and waits for the device (the verified run).
func LaunchOnce(what string, run func() error) error {
	if err := profileFirst(run)(); err != nil {
		return err
	}
	return gpu.Synchronize("running " + what)
}

// TimeKernel fills row's kernel time (median of reps timed runs of run) and its total time
// (kernel + copy back + host work), the columns every device row shares.
func TimeKernel(row *report.Row, timer *gpu.Timer, reps int, run func() error) error {
	run = profileFirst(run) // (a -counters run whose first run was not LaunchOnce's: razlika's e4)
	times, err := timer.RepeatUntil(StopRule(reps), run)
	if errors.Is(err, gpu.ErrWaitsForDevice) { // a library call that synchronises: timed as it is, and said so
		times, err = timer.RepeatUngated(StopRule(reps), run)
		note := "timed without the timing gate (the call waits for the device inside it): the host's launches are in the time"
		if row.Note != "" {
			note = row.Note + "; " + note
		}
		row.Note = note
	}
	if err != nil {
		return err
	}
	row.KernelMs = report.Num(report.Median(times))
	row.SpreadPct = report.Num(report.Spread(times))
	row.TotalMs = row.KernelMs + row.D2HMs + row.HostMs
	row.Runs = len(times)
	return nil
}

// HostTimes fills a host variant's row from TimeHost's runs: its whole run is host time (their
// median, and their spread); no kernel, no copies.
func HostTimes(row *report.Row, times []float64) {
	ms := report.Median(times)
	row.KernelMs, row.D2HMs, row.HostMs, row.TotalMs = NaNNum, NaNNum, report.Num(ms), report.Num(ms)
	row.SpreadPct = report.Num(report.Spread(times))
	row.Runs = len(times)
}
