package cli

// The checked runs: outputs poisoned first, twice where every bit pattern is a legal answer.

import (
	"tecaj/internal/gpu"
	"tecaj/internal/report"
)

// FirstError is the first non-nil error of a sequence of steps.
func FirstError(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// Poisons are the two fills of an output whose every bit pattern is a legal value (integers,
// sort keys): a slot was not written only where it holds the first after the first run and the
// second after the second.
var Poisons = [2]byte{0xFF, 0x5A}

// RunPoisoned makes the verified run twice, the output filled with each poison first (fill), and
// after each run download(k) copies the output back into the command's k-th copy; the last
// copy's time (TimeCopy) is the row's d2h.
func RunPoisoned(row *report.Row, timer *gpu.Timer, what string, fill func(poison byte) error, run func() error,
	download func(k int) error) error {
	for k, poison := range Poisons {
		if err := fill(poison); err != nil {
			return err
		}
		if err := LaunchOnce(what, run); err != nil {
			return err
		}
		if k < len(Poisons)-1 { // only the last run's copy is timed (the row keeps one d2h)
			if err := download(k); err != nil {
				return err
			}
			continue
		}
		d2h, err := TimeCopy(timer, func() error { return download(k) })
		if err != nil {
			return err
		}
		row.D2HMs = report.Num(d2h)
	}
	return nil
}

// UnwrittenBytes says whether two runs' copies of a span hold the two poisons.
func UnwrittenBytes(first, second []byte) bool {
	for i := range first {
		if first[i] != Poisons[0] || second[i] != Poisons[1] {
			return false
		}
	}
	return true
}

// UnwrittenWords counts the 32-bit slots that hold the two poisons in the two runs' copies.
func UnwrittenWords(first, second []uint32) int {
	p0, p1 := uint32(Poisons[0])*0x01010101, uint32(Poisons[1])*0x01010101
	n := 0
	for i := range first {
		if first[i] == p0 && second[i] == p1 {
			n++
		}
	}
	return n
}
