package cli

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"tecaj/internal/data"
	"tecaj/internal/gpu"
	"tecaj/internal/report"
	"tecaj/internal/verify"
	"tecaj/internal/vocab"
)

// VectorFiles are the -a and -b flags: two float32 vectors from .npy files instead of the seed.
type VectorFiles struct {
	A, B string
	a, b []float32
}

// Flags adds -a and -b.
func (v *VectorFiles) Flags(fs *flag.FlagSet) {
	fs.StringVar(&v.A, "a", "", "vector a from a 1-D .npy file (float32, or float64 rounded to float32); sets -n")
	fs.StringVar(&v.B, "b", "", "vector b from a 1-D .npy file of the same length as -a")
}

// Load reads the files, when given, and sets o.N to their length (an -n that disagrees is an
// error). Rounding float64 to float32 is noted on stderr.
func (v *VectorFiles) Load(program string, o *Options) error {
	if v.A == "" && v.B == "" {
		return nil
	}
	if v.A == "" || v.B == "" {
		return fmt.Errorf("-a and -b go together (got only %s)", map[bool]string{true: "-a", false: "-b"}[v.A != ""])
	}
	var err error
	var notes [2]string
	if v.a, notes[0], err = readVector(program, v.A); err != nil {
		return err
	}
	if v.b, notes[1], err = readVector(program, v.B); err != nil {
		return err
	}
	if len(v.a) != len(v.b) {
		return fmt.Errorf("%s has %d elements and %s has %d: a and b must have the same length", v.A, len(v.a), v.B, len(v.b))
	}
	if o.Set["n"] && o.N != int64(len(v.a)) {
		return fmt.Errorf("-n %d does not match the %d elements of %s (leave -n out with -a and -b)", o.N, len(v.a), v.A)
	}
	o.N = int64(len(v.a))
	for _, note := range notes {
		if note != "" {
			fmt.Fprintln(os.Stderr, note)
		}
	}
	return nil
}

// readVector reads a 1-D float vector; the note says where float64 values were rounded.
func readVector(program, path string) (values []float32, note string, err error) {
	a, err := data.LoadVector(path, vocab.Float32, vocab.Float64)
	if err != nil {
		return nil, "", err
	}
	values, changed, err := a.Float32s()
	return values, data.RoundingNote(program, path, changed, len(values)), err
}

// Inputs are two float32 vectors a and b, from files or random from the seed, on the host
// (pinned where a device will copy them) and, with a device, on the device.
type Inputs struct {
	A, B   *gpu.Host
	DA, DB *gpu.Buffer // nil without a device
	H2DMs  float64     // copying both to the device (NaN without a device)
}

// OpenInputs takes a and b from files (when loaded), else draws a from seed and b from seed+1,
// and copies them to the device when there is one.
func OpenInputs(n, seed int64, files *VectorFiles, dev *gpu.Device) (in *Inputs, err error) {
	in = &Inputs{H2DMs: math.NaN()}
	defer func() {
		if err != nil {
			in.Free()
		}
	}()
	if in.A, err = gpu.AllocHost(n, dev != nil); err != nil {
		return nil, err
	}
	if in.B, err = gpu.AllocHost(n, dev != nil); err != nil {
		return nil, err
	}
	if files != nil && files.a != nil {
		copy(in.A.Floats, files.a)
		copy(in.B.Floats, files.b)
	} else {
		verify.Uniform(in.A.Floats, seed)
		verify.Uniform(in.B.Floats, seed+1)
	}
	if dev == nil {
		return in, nil
	}
	if in.DA, err = gpu.Alloc(4*n, false); err != nil {
		return nil, err
	}
	if in.DB, err = gpu.Alloc(4*n, false); err != nil {
		return nil, err
	}
	timer, err := gpu.NewTimer()
	if err != nil {
		return nil, err
	}
	defer timer.Free()
	in.H2DMs, err = timer.Milliseconds(func() error {
		if err := in.DA.Upload(in.A.Floats); err != nil {
			return err
		}
		return in.DB.Upload(in.B.Floats)
	})
	return in, err
}

// Free releases everything; safe on a partly opened value.
func (in *Inputs) Free() {
	in.DA.Free()
	in.DB.Free()
	in.A.Free()
	in.B.Free()
}

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

// Writer is the -o flag: the result of the first variant that passes goes to a file. The path
// is checked before anything is computed (Check), and the file is written beside its target and
// renamed onto it once whole, so that a failed write leaves what was there.
type Writer struct {
	Path    string
	Exts    []string // the extensions it takes (".npy", ".png"), matched case-insensitively
	written bool
}

// Flags adds -o, for files with one of the extensions exts.
func (w *Writer) Flags(fs *flag.FlagSet, what string, exts ...string) {
	w.Exts = exts
	fs.StringVar(&w.Path, "o", "", "write "+what+" of the first variant that passes to this file")
}

// Ext is -o's extension in lower case ("" without -o).
func (w *Writer) Ext() string { return strings.ToLower(filepath.Ext(w.Path)) }

// Check refuses, before any computing, an -o whose extension is not one of Exts or whose folder
// does not exist or cannot take a new file; others are the files written beside the target
// (FILE.values.npy), which must be writable too.
func (w *Writer) Check(others ...string) error {
	if w.Path == "" {
		return nil
	}
	ok := false
	for _, e := range w.Exts {
		ok = ok || w.Ext() == e
	}
	if !ok {
		return usagef("-o %s: the file must end in %s", w.Path, strings.Join(w.Exts, " or "))
	}
	for _, target := range append([]string{w.Path}, others...) {
		if target == "" {
			continue
		}
		if st, err := os.Stat(target); err == nil && st.IsDir() {
			return usagef("-o %s: %s is a directory", w.Path, target)
		}
		f, err := os.CreateTemp(filepath.Dir(target), ".tecaj-check-*")
		if err != nil {
			return usagef("-o %s: cannot write in %s: %v", w.Path, filepath.Dir(target), errors.Unwrap(err))
		}
		f.Close()
		os.Remove(f.Name())
	}
	return nil
}

// Write calls write once, for the first row that passes, with temp(target): the file to write
// for target (-o's path, or a file beside it), a temporary one in the same folder with the same
// extension. Once write returns, every temporary file is renamed onto its target; where it
// fails, none is, and the targets keep what they held.
func (w *Writer) Write(row report.Row, write func(temp func(target string) string) error) error {
	if w.Path == "" || w.written || !row.Pass {
		return nil
	}
	w.written = true
	var targets, temps []string
	temp := func(target string) string {
		t := filepath.Join(filepath.Dir(target), fmt.Sprintf(".tmp-%d-%d-%s", os.Getpid(), len(temps), filepath.Base(target)))
		targets, temps = append(targets, target), append(temps, t)
		return t
	}
	err := write(temp)
	failed := w.Path // the target whose temporary file failed (-o's, unless a file beside it)
	var renamed []string
	for i := range temps {
		if err == nil {
			if err = os.Rename(temps[i], targets[i]); err != nil {
				failed = targets[i]
			} else {
				renamed = append(renamed, targets[i])
			}
		} else if strings.Contains(err.Error(), temps[i]) {
			failed = targets[i]
		}
		if err != nil {
			os.Remove(temps[i])
		}
	}
	if err == nil {
		return nil
	}
	kept := "what was there is kept"
	if len(renamed) > 0 { // (a rename past the first failed: those before it are the new files)
		kept = strings.Join(renamed, ", ") + " was written; " + failed + " keeps what it held"
	}
	return fmt.Errorf("-o: writing %s: %v (%s)", failed, report.Cause(err), kept)
}

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
