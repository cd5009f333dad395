package cli

import (
	"fmt"
	"time"

	"tecaj/internal/report"
)

// The stop rule of a row's timed runs when -reps is not given, nvbench's scaled to a table of many
// rows: at least StopMinRuns runs and StopMinTime of them; then stop once their spread (the
// interquartile range over the median) is at most StopSpreadPct, or at StopMaxTime or
// StopMaxRuns. -reps N times exactly N runs.
const (
	StopMinRuns   = 10
	StopMinTime   = 50 * time.Millisecond
	StopSpreadPct = 1.0
	StopMaxTime   = time.Second
	StopMaxRuns   = 5000
	// a host variant's runs (seconds each at large n): at least 3, the spread at most 2%, 1 s
	hostMinRuns   = 3
	hostSpreadPct = 2.0
	// several GPUs' rounds, and the copy ceiling, without -reps
	defaultRounds = 20
)

// StopRule is -reps as a test of the times so far: exactly reps runs, or (reps 0) the rule above.
func StopRule(reps int) func(times []float64) bool {
	if reps > 0 {
		return func(times []float64) bool { return len(times) >= reps }
	}
	start := time.Now()
	return func(times []float64) bool {
		n, elapsed := len(times), time.Since(start)
		switch {
		case n >= StopMaxRuns || elapsed >= StopMaxTime && n >= 1:
			return true
		case n < StopMinRuns || elapsed < StopMinTime:
			return false
		}
		return report.Spread(times) <= StopSpreadPct
	}
}

// hostStop is the rule for a host variant's runs, each of which may take seconds.
func hostStop(reps int) func(times []float64) bool {
	if reps > 0 {
		return StopRule(reps)
	}
	start := time.Now()
	return func(times []float64) bool {
		n := len(times)
		return n >= hostMinRuns && (time.Since(start) >= StopMaxTime || report.Spread(times) <= hostSpreadPct)
	}
}

// StopNote is the line under a table whose rows ran by the rule.
func StopNote() string {
	return fmt.Sprintf("runs: each row's until their spread is at most %g%% (at least %d runs and %v, at most %v or %d runs; "+
		"a host row's: %d runs, %g%%); -reps N for exactly N", StopSpreadPct, StopMinRuns, StopMinTime, StopMaxTime, StopMaxRuns,
		hostMinRuns, hostSpreadPct)
}

// rounds is -reps, or defaultRounds where the rule would need every GPU's agreement to stop.
func rounds(reps int) int {
	if reps > 0 {
		return reps
	}
	return defaultRounds
}
