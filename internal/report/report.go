// Package report turns timings into figures (median, GB/s, % of the copy ceiling, speed-up)
// and prints them: one table for people, one JSON document for machines.
package report

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Median of the values (NaN for none); the slice is not changed.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}

// Spread is the noise beside a median: the interquartile range of xs relative to their median,
// in percent (quartiles interpolated linearly, as NumPy's default); NaN for fewer than two values.
func Spread(xs []float64) float64 {
	if len(xs) < 2 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	q := func(p float64) float64 {
		x := p * float64(len(s)-1)
		i := int(x)
		if i+1 >= len(s) {
			return s[len(s)-1]
		}
		return s[i] + (x-float64(i))*(s[i+1]-s[i])
	}
	return 100 * (q(0.75) - q(0.25)) / Median(s)
}

// NoisyPct is the spread over which a row is marked as noisy.
const NoisyPct = 5.0

// GBps is bytes over milliseconds in GB/s (10^9 bytes a second).
func GBps(bytes, ms float64) float64 { return bytes / (ms * 1e-3) / 1e9 }

// Num is a float64 that is written to JSON as null when it is NaN or infinite.
type Num float64

// MarshalJSON writes null for NaN and infinities, which JSON cannot hold.
func (n Num) MarshalJSON() ([]byte, error) {
	f := float64(n)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(f)
}

// Row is one variant's outcome.
type Row struct {
	Variant   string `json:"variant"`
	Threads   int    `json:"threads,omitempty"`
	Blocks    int    `json:"blocks,omitempty"`
	Refused   string `json:"refused,omitempty"` // why the variant did not run (outside its domain: which; its library missing)
	KernelMs  Num    `json:"kernel_ms"`         // median of the timed repetitions
	SpreadPct Num    `json:"spread_pct"`        // their relative interquartile range, % (Spread; a host row's whole runs)
	D2HMs     Num    `json:"d2h_ms"`            // copying the result back
	HostMs    Num    `json:"host_ms"`           // the host's part (finishing a sum; a cpu variant's whole run)
	TotalMs   Num    `json:"total_ms"`
	Bytes     Num    `json:"bytes"` // the bytes the variant must move
	GBps      Num    `json:"gb_per_s"`
	PctCopy   Num    `json:"pct_of_copy"`
	SpeedUp   Num    `json:"speed_up"`        // against the program's baseline variant, on total time (or Report.WorkOnly's)
	Step      Num    `json:"step"`            // against the variant before it in the table (the lecture\'s "step")
	Result    Num    `json:"result"`          // the program's answer where it is a number (a distance, a sum, a minimum)
	Index     *int64 `json:"index,omitempty"` // argmin/argmax: the index of Result
	Error     Num    `json:"error"`           // against the float64 reference
	Tolerance Num    `json:"tolerance"`       // the derived bound Error must stay within
	Items     int64  `json:"items"`           // items one run processes (elements, keys)
	Runs      int    `json:"runs"`            // the timed runs the median is of
	MItemsPS  Num    `json:"mitems_per_s"`    // millions of items a second
	Pass      bool   `json:"pass"`
	// the lecture's counter-example: expected to be wrong; a wrong result says WRONG and does not
	// fail the command
	CounterExample bool   `json:"counter_example,omitempty"`
	Note           string `json:"note,omitempty"`
	// -counters: the hardware counters of one run (counters.go), or why it has none
	Counters    *Counters `json:"counters,omitempty"`
	CountersWhy string    `json:"counters_missing,omitempty"`
}

// spaced is s and two spaces, or nothing.
func spaced(s string) string {
	if s == "" {
		return ""
	}
	return s + "  "
}

// RefusedRow is the row of a variant outside its domain: why, and no figures (null in JSON, empty in CSV).
func RefusedRow(variant, why string) Row {
	nan := Num(math.NaN())
	return Row{Variant: variant, Refused: why, KernelMs: nan, SpreadPct: nan, D2HMs: nan, HostMs: nan, TotalMs: nan,
		Bytes: nan, GBps: nan, PctCopy: nan, SpeedUp: nan, Step: nan, Result: nan, Error: nan, Tolerance: nan, MItemsPS: nan}
}

// Report is one run of a command.
type Report struct {
	Program   string  `json:"program"`
	Device    string  `json:"device"`
	N         int64   `json:"n"`
	Params    string  `json:"params"` // the run's parameters, as the flags that set them (-op min -type int32)
	Seed      int64   `json:"seed"`
	Input     string  `json:"input,omitempty"` // the data files, where the input is not (only) drawn from the seed
	FromFiles bool    `json:"-"`               // the input is wholly a file's: the seed plays no part
	Reps      int     `json:"reps"`
	CopyGBps  Num     `json:"copy_gb_per_s"`      // device-to-device copy, read + write, measured in this run
	H2DMs     Num     `json:"h2d_ms"`             // copying the inputs to the device once
	ErrorKind string  `json:"error_kind"`         // what Error measures
	Scalar    bool    `json:"-"`                  // the answer is a number: the table shows each row's
	L2Bytes   float64 `json:"l2_bytes,omitempty"` // the card's L2 (where a sweep's inputs stop fitting it)
	Baseline  string  `json:"baseline"`           // the variant speed-ups are against
	// WorkOnly: speed-ups and steps on kernel + host time, the copy back left out (every device
	// variant copies the same outputs back: the copy would only dilute each step)
	WorkOnly bool   `json:"speed_up_without_copy_back"`
	Unit     string `json:"unit"`   // what the items are called (elements, keys, pixels)
	Commit   string `json:"commit"` // the commit the command was built from (+dirty: with changes), where known
	Date     string `json:"date"`   // when it ran, UTC (RFC 3339)
	Rows     []Row  `json:"rows"`
	// -counters: why no counters could be read (one line), and the lecture's claims checked
	CountersNote string        `json:"counters_missing,omitempty"`
	Claims       []ClaimResult `json:"claims,omitempty"`
	extra        []string
}

// Note adds a line printed under the table.
func (r *Report) Note(format string, args ...interface{}) {
	r.extra = append(r.extra, fmt.Sprintf(format, args...))
}

// Derive fills GB/s, % of copy and speed-ups from the times. Speed-ups are against the
// Baseline variant, or, where it did not run or ran as a counter-example (wrong by design), the
// first variant that ran and is not one.
func (r *Report) Derive() {
	timed := func(row Row) float64 { // what speed-ups compare
		if r.WorkOnly && !math.IsNaN(float64(row.KernelMs)) {
			return float64(row.KernelMs) + float64(row.HostMs)
		}
		return float64(row.TotalMs)
	}
	if r.WorkOnly && len(r.Rows) > 1 {
		r.Note("speed-up and step: kernel + host time (the copy back, the same outputs for every variant, left out)")
	}
	base, named := math.NaN(), r.Baseline
	why := "did not run: outside its domain at this n, or not chosen"
	for _, row := range r.Rows {
		if row.Variant == named && row.Refused == "" && row.CounterExample {
			why = "is the lecture's failure (wrong by design): no speed-up is against it"
		}
	}
	for _, row := range r.Rows {
		if row.Refused == "" && !row.CounterExample && (row.Variant == named || math.IsNaN(base)) {
			base, r.Baseline = timed(row), row.Variant
			if row.Variant == named {
				break
			}
		}
	}
	if r.Baseline != named {
		r.Note("speed-up: against %s (%s %s)", r.Baseline, named, why)
	}
	previous := math.NaN()
	for i := range r.Rows {
		row := &r.Rows[i]
		if row.Refused != "" {
			continue
		}
		row.Step = Num(previous / timed(*row))
		if !row.CounterExample {
			previous = timed(*row)
		}
		ms := float64(row.KernelMs)
		if math.IsNaN(ms) { // a host variant: its whole run
			ms = float64(row.TotalMs)
		}
		row.GBps = Num(math.NaN()) // where no bytes are counted, no rate is claimed
		if row.Bytes > 0 {
			row.GBps = Num(GBps(float64(row.Bytes), ms))
		}
		row.MItemsPS = Num(float64(row.Items) / (ms * 1e3))
		row.PctCopy = Num(100 * float64(row.GBps) / float64(r.CopyGBps))
		row.SpeedUp = Num(base / timed(*row))
		if row.CounterExample { // (a wrong answer's time buys nothing: no speed-up or step is claimed)
			row.SpeedUp, row.Step = Num(math.NaN()), Num(math.NaN())
		}
	}
}

// Failed says whether any variant that ran failed its verification.
func (r *Report) Failed() bool {
	for _, row := range r.Rows {
		if row.Refused == "" && !row.Pass && !row.CounterExample {
			return true
		}
	}
	return false
}

func us(ms Num) string {
	f := float64(ms) * 1000
	switch {
	case math.IsNaN(f):
		return "-"
	case f < 100:
		return fmt.Sprintf("%.2f", f)
	case f < 10000:
		return fmt.Sprintf("%.1f", f)
	}
	return fmt.Sprintf("%.0f", f)
}

func fixed(x Num, digits int) string {
	if math.IsNaN(float64(x)) {
		return "-"
	}
	return fmt.Sprintf("%.*f", digits, float64(x))
}

func sci(x Num) string {
	if math.IsNaN(float64(x)) {
		return "-"
	}
	if x == 0 {
		return "0"
	}
	return fmt.Sprintf("%.1e", float64(x))
}

// WriteTable prints the header lines and the table.
func (r *Report) WriteTable(w io.Writer) error {
	fmt.Fprintln(w, r.heading())
	if line := r.copyLine(); line != "" {
		fmt.Fprintln(w, line)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	cells, noisy := r.tableCells()
	for _, line := range cells {
		// (the note, after the last tab, is not aligned)
		fmt.Fprintf(tw, "%s\t%s\n", strings.Join(line[:len(line)-1], "\t"), line[len(line)-1])
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if noisy {
		fmt.Fprintln(w, noisyLine)
	}
	if len(r.extra) > 0 {
		fmt.Fprintln(w, strings.Join(r.extra, "\n"))
	}
	return r.writeCounters(w)
}

var noisyLine = fmt.Sprintf("\u00b1%%: the timed runs' interquartile range over their median; * over %.0f%%: noisy, run it again or with more -reps", NoisyPct)

// heading is the table's first line: the program, its parameters, n, seed, reps, the device.
func (r *Report) heading() string {
	reps := "auto"
	if r.Reps > 0 {
		reps = strconv.Itoa(r.Reps)
	}
	source := fmt.Sprintf("seed=%d", r.Seed)
	switch {
	case r.FromFiles:
		source = "input: " + r.Input
	case r.Input != "":
		source += "  input: " + r.Input
	}
	return fmt.Sprintf("%s  %sn=%d  %s  reps=%s  device: %s", r.Program, spaced(r.Params), r.N, source, reps, r.Device)
}

// copyLine is the copy ceiling's line ("" without a device).
func (r *Report) copyLine() string {
	if math.IsNaN(float64(r.CopyGBps)) {
		return ""
	}
	return fmt.Sprintf("device-to-device copy (read+write, 256 MiB): %.0f GB/s; inputs host-to-device: %s us", float64(r.CopyGBps), us(r.H2DMs))
}

// tableCells is the timing table: a header and a line a row, each ending with its note (a
// refused row: its reason); noisy says whether a row's spread passed NoisyPct.
func (r *Report) tableCells() (cells [][]string, noisy bool) {
	results := r.Scalar // a column for the answer where the program's is a number
	head := []string{"variant", "threads", "blocks", "kernel us", "\u00b1%", "GB/s", "M" + r.Unit + "/s", "% copy", "d2h us", "host us",
		"total us", "speed-up", "step"}
	if results {
		head = append(head, "result")
	}
	cells = append(cells, append(head, r.ErrorKind, "tolerance", "check", ""))
	for _, row := range r.Rows {
		if row.Refused != "" {
			line := []string{row.Variant}
			for len(line) < len(head)+2 {
				line = append(line, "")
			}
			cells = append(cells, append(line, "skip", "  "+row.Refused))
			continue
		}
		check := "PASS"
		switch {
		case !row.Pass && row.CounterExample:
			check = "WRONG"
		case !row.Pass:
			check = "FAIL"
		}
		threads, blocks := "-", "-"
		if row.Threads > 0 {
			threads, blocks = fmt.Sprint(row.Threads), fmt.Sprint(row.Blocks)
		}
		note := ""
		if row.Note != "" {
			note = "  " + row.Note
		}
		spread := fixed(row.SpreadPct, 1)
		if float64(row.SpreadPct) > NoisyPct {
			spread += "*"
			noisy = true
		}
		line := []string{row.Variant, threads, blocks, us(row.KernelMs), spread, fixed(row.GBps, 0), fixed(row.MItemsPS, 0),
			fixed(row.PctCopy, 1), us(row.D2HMs), us(row.HostMs), us(row.TotalMs), fixed(row.SpeedUp, 2), fixed(row.Step, 2)}
		if results {
			line = append(line, row.resultText())
		}
		cells = append(cells, append(line, sci(row.Error), sci(row.Tolerance), check, note))
	}
	return cells, noisy
}

// resultText is the answer as the table shows it: integers whole, other values to 8 significant
// digits (-0 keeps its sign), argmin/argmax as the index and the value there.
func (row Row) resultText() string {
	v := float64(row.Result)
	text := "NaN"
	switch {
	case math.IsNaN(v):
	case math.IsInf(v, 0):
		text = fmt.Sprint(v)
	case v == math.Trunc(v) && math.Abs(v) < 1<<53 && !(v == 0 && math.Signbit(v)):
		text = fmt.Sprintf("%.0f", v)
	default:
		text = fmt.Sprintf("%.8g", v)
	}
	if row.Index != nil {
		return fmt.Sprintf("%s at %d", text, *row.Index)
	}
	return text
}

// WriteJSON prints the report as one JSON document.
func (r *Report) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// WriteJSONs prints several reports (a sweep over sizes) as one JSON array, a report a size.
func WriteJSONs(w io.Writer, reports []*Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(reports)
}

// csvHeader is the columns of WriteCSV: the run's parameters, then the row's figures.
var csvHeader = []string{"program", "params", "device", "unit", "n", "seed", "reps", "copy_gb_per_s", "variant", "threads", "blocks",
	"kernel_ms", "spread_pct", "d2h_ms", "host_ms", "total_ms", "bytes", "gb_per_s", "pct_of_copy", "mitems_per_s",
	"speed_up", "step", "result", "index", "error", "tolerance", "pass", "refused", "note", "l2_bytes", "commit", "date"}

// WriteCSV writes one line per (variant, size) of the reports, each with the run's parameters.
// NaN is an empty field.
func WriteCSV(w io.Writer, reports []*Report) error {
	c := csv.NewWriter(w)
	if err := c.Write(append(append([]string(nil), csvHeader...), counterCSV...)); err != nil {
		return err
	}
	num := func(x Num) string {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return ""
		}
		return strconv.FormatFloat(float64(x), 'g', -1, 64)
	}
	for _, r := range reports {
		for _, row := range r.Rows {
			index := ""
			if row.Index != nil {
				index = strconv.FormatInt(*row.Index, 10)
			}
			rec := []string{r.Program, r.Params, r.Device, r.Unit, strconv.FormatInt(r.N, 10), strconv.FormatInt(r.Seed, 10),
				strconv.Itoa(r.Reps), num(r.CopyGBps), row.Variant, strconv.Itoa(row.Threads), strconv.Itoa(row.Blocks),
				num(row.KernelMs), num(row.SpreadPct), num(row.D2HMs), num(row.HostMs), num(row.TotalMs), num(row.Bytes),
				num(row.GBps), num(row.PctCopy), num(row.MItemsPS), num(row.SpeedUp), num(row.Step), num(row.Result), index,
				num(row.Error), num(row.Tolerance), strconv.FormatBool(row.Pass), row.Refused, row.Note, num(Num(r.L2Bytes)),
				r.Commit, r.Date}
			if err := c.Write(append(rec, counterRecord(row.Counters, num)...)); err != nil {
				return err
			}
		}
	}
	c.Flush()
	return c.Error()
}

// WriteCSVFile writes WriteCSV's lines to path, beside it first and renamed once whole.
func WriteCSVFile(path string, reports []*Report) error {
	return writeFile(path, "-csv", func(w io.Writer) error { return WriteCSV(w, reports) })
}

// WriteSVGFile draws the reports to path (WriteSVG; with a counter key, one size's bars of that
// counter: WriteCounterSVG), beside it first and renamed once whole.
func WriteSVGFile(path string, reports []*Report, counter ...string) error {
	return writeFile(path, "-plot", func(w io.Writer) error { return writePicture(w, reports, counter...) })
}

func writePicture(w io.Writer, reports []*Report, counter ...string) error {
	if len(counter) > 0 && counter[0] != "" && len(reports) == 1 {
		return WriteCounterSVG(w, reports[0], counter[0])
	}
	return WriteSVG(w, reports, reports[0].L2Bytes)
}

func writeFile(path, flag string, write func(io.Writer) error) error {
	tmp := filepath.Join(filepath.Dir(path), fmt.Sprintf(".tmp-%d-%s", os.Getpid(), filepath.Base(path)))
	f, err := os.Create(tmp)
	if err == nil {
		err = write(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("%s %s: %v (what was there is kept)", flag, path, Cause(err))
	}
	return nil
}

// Cause is a file error without the path it names (a temporary file's, where the message is
// about its target): "no space left on device".
func Cause(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

// ReadCSV reads what WriteCSV wrote back into reports, one a (program, params, n) in file order,
// with each row's figures (for pictures drawn again from kept results: docs/results).
func ReadCSV(r io.Reader) ([]*Report, error) {
	recs, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, err
	}
	if len(recs) < 2 {
		return nil, fmt.Errorf("no rows")
	}
	col := map[string]int{}
	for i, name := range recs[0] {
		col[name] = i
	}
	for _, name := range []string{"program", "device", "unit", "n", "copy_gb_per_s", "variant", "kernel_ms", "gb_per_s", "step"} {
		if _, ok := col[name]; !ok {
			return nil, fmt.Errorf("no column %q", name)
		}
	}
	get := func(rec []string, name string) string {
		if i, ok := col[name]; ok && i < len(rec) {
			return rec[i]
		}
		return ""
	}
	num := func(rec []string, name string) Num {
		f, err := strconv.ParseFloat(get(rec, name), 64)
		if err != nil {
			return Num(math.NaN())
		}
		return Num(f)
	}
	var out []*Report
	for _, rec := range recs[1:] {
		n, err := strconv.ParseInt(get(rec, "n"), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("n %q: %v", get(rec, "n"), err)
		}
		if len(out) == 0 || out[len(out)-1].N != n || out[len(out)-1].Program != get(rec, "program") {
			out = append(out, &Report{Program: get(rec, "program"), Params: get(rec, "params"), Device: get(rec, "device"),
				Unit: get(rec, "unit"), N: n, CopyGBps: num(rec, "copy_gb_per_s"), L2Bytes: float64(num(rec, "l2_bytes")),
				Commit: get(rec, "commit"), Date: get(rec, "date")})
			if math.IsNaN(out[len(out)-1].L2Bytes) {
				out[len(out)-1].L2Bytes = 0
			}
		}
		r := out[len(out)-1]
		r.Rows = append(r.Rows, Row{Variant: get(rec, "variant"), Refused: get(rec, "refused"), KernelMs: num(rec, "kernel_ms"),
			SpreadPct: num(rec, "spread_pct"), HostMs: num(rec, "host_ms"), TotalMs: num(rec, "total_ms"), Bytes: num(rec, "bytes"), GBps: num(rec, "gb_per_s"), MItemsPS: num(rec, "mitems_per_s"),
			Step: num(rec, "step"), SpeedUp: num(rec, "speed_up"), Result: num(rec, "result"), Pass: get(rec, "pass") == "true", Note: get(rec, "note"),
			Counters: readCounters(func(name string) Num { return num(rec, name) }, func(name string) string { return get(rec, name) })})
	}
	return out, nil
}
