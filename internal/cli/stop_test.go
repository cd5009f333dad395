package cli

import (
	"testing"
	"time"
)

// -reps N is exactly N runs; without it, steady runs stop once there are 10 of them and 50 ms
// have passed, and noisy ones run on to the time limit.
func TestStopRule(t *testing.T) {
	run := func(done func([]float64) bool, next func(i int) float64, pause time.Duration) int {
		var times []float64
		for !done(times) {
			time.Sleep(pause)
			times = append(times, next(len(times)))
		}
		return len(times)
	}
	if n := run(StopRule(7), func(int) float64 { return 1 }, 0); n != 7 {
		t.Errorf("-reps 7: %d runs", n)
	}
	if n := run(StopRule(0), func(int) float64 { return 1 }, 0); n < StopMinRuns || n > StopMaxRuns {
		t.Errorf("steady runs: %d", n)
	}
	start := time.Now()
	if n := run(StopRule(0), func(int) float64 { return 1 }, 7*time.Millisecond); n < StopMinRuns || n > StopMinRuns+2 {
		t.Errorf("steady runs of 7 ms: %d, want about %d", n, StopMinRuns)
	}
	noisy := func(i int) float64 { return float64(1 + i%2) }
	start = time.Now()
	n := run(StopRule(0), noisy, 20*time.Millisecond)
	if took := time.Since(start); took < StopMaxTime || took > StopMaxTime+200*time.Millisecond || n < 30 {
		t.Errorf("noisy runs: %d in %v, want the %v limit", n, took, StopMaxTime)
	}
	if n := run(hostStop(0), func(int) float64 { return 5 }, 0); n != hostMinRuns {
		t.Errorf("steady host runs: %d", n)
	}
}
