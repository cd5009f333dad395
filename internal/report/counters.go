package report

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
)

// The lecture's second table: why each step is faster. Nsight Compute (ncu) measures the
// kernels of one run of a variant; the counters are summed over those kernels.

// NcuMetrics are the metrics ncu is asked for (--metrics), one a Counters field.
var NcuMetrics = []string{
	"smsp__sass_branch_targets_threads_divergent.sum",
	"l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum",
	"sm__warps_active.avg.pct_of_peak_sustained_active",
	"smsp__warps_launched.sum",
	"dram__bytes_read.sum",
	"dram__bytes_write.sum",
	"smsp__inst_executed.sum",
	"smsp__thread_inst_executed_pred_on.sum",
	"gpu__time_duration.sum",
}

// Counters are one run's hardware counters, summed over its kernels.
type Counters struct {
	Kernels   int `json:"kernels"`            // kernel launches measured (one run's)
	Divergent Num `json:"divergent_branches"` // branch targets where a warp's threads diverged
	// threads that execute an average warp instruction (of 32): where the compiler predicates a
	// short if, divergence shows here and not as branches
	Lanes     Num `json:"threads_per_inst"`
	Conflicts Num `json:"shared_bank_conflicts"`
	// active warps as a % of the peak an SM sustains, over the time each kernel ran (the
	// kernels' figures weighted by their durations)
	ActivePct Num `json:"active_warps_pct"`
	Warps     Num `json:"launched_warps"`
	DRAMRead  Num `json:"dram_read_bytes"`
	DRAMWrite Num `json:"dram_write_bytes"`
	Inst      Num `json:"instructions"`  // warp instructions executed
	InstWarp  Num `json:"inst_per_warp"` // Inst / Warps
	TimeNs    Num `json:"kernel_ns"`     // the kernels' durations under the profiler (clocks as ncu set them)
}

// DRAM is the bytes read and written.
func (c *Counters) DRAM() Num { return c.DRAMRead + c.DRAMWrite }

// CounterKeys name the counters for claims and -plot-counter, in the table's order.
var CounterKeys = []string{"divergent", "lanes", "conflicts", "active", "warps", "dram", "inst"}

// counterTitles are the keys' words in tables, claims and pictures.
var counterTitles = map[string]string{
	"divergent": "divergent branches", "lanes": "threads on per instruction", "conflicts": "shared bank conflicts", "active": "active warps %",
	"warps": "launched warps", "dram": "DRAM bytes", "inst": "instructions per warp",
}

// CounterTitle is a counter key's words ("" for an unknown key).
func CounterTitle(key string) string { return counterTitles[key] }

// Value is the counter of that key (NaN for an unknown key).
func (c *Counters) Value(key string) float64 {
	switch key {
	case "divergent":
		return float64(c.Divergent)
	case "lanes":
		return float64(c.Lanes)
	case "conflicts":
		return float64(c.Conflicts)
	case "active":
		return float64(c.ActivePct)
	case "warps":
		return float64(c.Warps)
	case "dram":
		return float64(c.DRAM())
	case "inst":
		return float64(c.InstWarp)
	}
	return math.NaN()
}

// Launch is one kernel launch in ncu's output: its name and its metrics in base units.
type Launch struct {
	ID      string
	Kernel  string
	Metrics map[string]float64
}

// ParseNcuCSV reads ncu's --csv output: the details page (a row a metric: "Metric Name",
// "Metric Unit", "Metric Value") or the raw page (--page raw: a row a launch, a column a metric,
// a second row of units). Lines before the header (==PROF== lines, the program's own output) and
// ncu's ==...== lines among the rows are skipped; numbers may carry thousands separators and
// unit prefixes (Kbyte, usecond) and are returned in bytes and nanoseconds. Launches come in
// ncu's order.
func ParseNcuCSV(out []byte) ([]Launch, error) {
	var body []string
	for _, line := range strings.Split(string(out), "\n") {
		line = strings.TrimRight(line, "\r")
		if body == nil && !strings.HasPrefix(line, `"ID",`) {
			continue
		}
		if strings.HasPrefix(line, "==") || strings.TrimSpace(line) == "" {
			continue
		}
		body = append(body, line)
	}
	if len(body) == 0 {
		return nil, fmt.Errorf("ncu printed no CSV (no line starts with \"ID\")")
	}
	r := csv.NewReader(strings.NewReader(strings.Join(body, "\n")))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		return nil, fmt.Errorf("ncu's CSV: %v", err)
	}
	col := map[string]int{}
	for i, name := range recs[0] {
		col[name] = i
	}
	get := func(rec []string, name string) string {
		if i, ok := col[name]; ok && i < len(rec) {
			return rec[i]
		}
		return ""
	}
	for _, need := range []string{"ID", "Kernel Name"} {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("ncu's CSV has no column %q", need)
		}
	}
	var launches []Launch
	at := map[string]int{}
	launch := func(rec []string) *Launch {
		id := get(rec, "ID")
		i, ok := at[id]
		if !ok {
			i = len(launches)
			at[id] = i
			launches = append(launches, Launch{ID: id, Kernel: get(rec, "Kernel Name"), Metrics: map[string]float64{}})
		}
		return &launches[i]
	}
	if _, details := col["Metric Name"]; details {
		for _, rec := range recs[1:] {
			l := launch(rec)
			if v, ok := ncuValue(get(rec, "Metric Value"), get(rec, "Metric Unit")); ok {
				l.Metrics[get(rec, "Metric Name")] = v
			}
		}
		return launches, nil
	}
	// the raw page: the row after the header holds the units (its ID is empty)
	rows, units := recs[1:], []string(nil)
	if len(rows) > 0 && get(rows[0], "ID") == "" {
		units, rows = rows[0], rows[1:]
	}
	for _, rec := range rows {
		l := launch(rec)
		for name, i := range col {
			if !strings.Contains(name, "__") || i >= len(rec) {
				continue // (the launch's own columns: ID, Kernel Name, Grid Size ...)
			}
			unit := ""
			if i < len(units) {
				unit = units[i]
			}
			if v, ok := ncuValue(rec[i], unit); ok {
				l.Metrics[name] = v
			}
		}
	}
	return launches, nil
}

// ncuScale takes ncu's units to bytes and nanoseconds.
var ncuScale = map[string]float64{"Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "Tbyte": 1e12, "KB": 1e3, "MB": 1e6, "GB": 1e9,
	"KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "usecond": 1e3, "msecond": 1e6, "second": 1e9}

// ncuValue is a metric's value in base units (bytes, nanoseconds, counts, %); ok false for none
// ("n/a", empty).
func ncuValue(text, unit string) (float64, bool) {
	v, err := strconv.ParseFloat(strings.ReplaceAll(strings.TrimSpace(text), ",", ""), 64)
	if err != nil {
		return 0, false
	}
	if s, ok := ncuScale[strings.TrimSpace(unit)]; ok {
		v *= s
	}
	return v, true
}

// SumLaunches adds up one run's launches into Counters (the kernels whose name holds skip, the
// timing gate, left out). Active warps % is weighted by each kernel's duration (by its launched
// warps where ncu gave no duration). A counter no launch reported is NaN.
func SumLaunches(launches []Launch, skip string) *Counters {
	c := &Counters{}
	sums := map[string]float64{}
	seen := map[string]bool{}
	var activeW, weight float64
	for _, l := range launches {
		if skip != "" && strings.Contains(l.Kernel, skip) {
			continue
		}
		c.Kernels++
		for name, v := range l.Metrics {
			sums[name] += v
			seen[name] = true
		}
		a, ok := l.Metrics["sm__warps_active.avg.pct_of_peak_sustained_active"]
		w, okw := l.Metrics["gpu__time_duration.sum"]
		if !okw {
			w, okw = l.Metrics["smsp__warps_launched.sum"]
		}
		if ok && okw && w > 0 {
			activeW += a * w
			weight += w
		}
	}
	sum := func(name string) Num {
		if !seen[name] {
			return Num(math.NaN())
		}
		return Num(sums[name])
	}
	c.Divergent = sum("smsp__sass_branch_targets_threads_divergent.sum")
	c.Conflicts = sum("l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum")
	c.Warps = sum("smsp__warps_launched.sum")
	c.DRAMRead = sum("dram__bytes_read.sum")
	c.DRAMWrite = sum("dram__bytes_write.sum")
	c.Inst = sum("smsp__inst_executed.sum")
	c.TimeNs = sum("gpu__time_duration.sum")
	c.ActivePct = Num(math.NaN())
	if weight > 0 {
		c.ActivePct = Num(activeW / weight)
	}
	c.InstWarp, c.Lanes = Num(math.NaN()), Num(math.NaN())
	if c.Warps > 0 {
		c.InstWarp = c.Inst / c.Warps
	}
	if on := sum("smsp__thread_inst_executed_pred_on.sum"); c.Inst > 0 && !math.IsNaN(float64(on)) {
		c.Lanes = on / c.Inst
	}
	return c
}

// Claim is what a lecture says a step changes, as data: Variant has fewer (or more) of Counter
// than Than, by more than 5%; with Factor, about Factor times Than's (0.5: half), within 10%. Than "" compares
// with the bytes the variant must move (for "dram": no more than 5% over them).
type Claim struct {
	Variant, Than string
	Counter       string // a CounterKeys key
	Fewer         bool   // fewer (true) or more (false)
	Factor        float64
}

// Text is the claim in words: "r1: fewer divergent branches than r0".
func (c Claim) Text() string {
	what := CounterTitle(c.Counter)
	switch {
	case c.Than == "":
		return fmt.Sprintf("%s: %s within 5%% of the bytes it must move", c.Variant, what)
	case c.Factor == 0.5:
		return fmt.Sprintf("%s: half the %s of %s", c.Variant, what, c.Than)
	case c.Factor > 0:
		return fmt.Sprintf("%s: %g times the %s of %s", c.Variant, c.Factor, what, c.Than)
	case c.Fewer:
		return fmt.Sprintf("%s: fewer %s than %s", c.Variant, what, c.Than)
	}
	return fmt.Sprintf("%s: more %s than %s", c.Variant, what, c.Than)
}

// ClaimResult is a claim checked on this run's counters.
type ClaimResult struct {
	Claim string `json:"claim"`
	// Seen: "seen", "not seen on this GPU", or "not measured" (a variant did not run or has no
	// counters)
	Seen     string `json:"seen"`
	Measured string `json:"measured,omitempty"` // the two figures compared
}

// Check marks each claim against the rows' counters.
func (r *Report) Check(claims []Claim) {
	rows := map[string]*Row{}
	for i := range r.Rows {
		rows[r.Rows[i].Variant] = &r.Rows[i]
	}
	r.Claims = nil
	for _, c := range claims {
		res := ClaimResult{Claim: c.Text(), Seen: "not measured"}
		a := rows[c.Variant]
		if a == nil || a.Counters == nil {
			r.Claims = append(r.Claims, res)
			continue
		}
		x := a.Counters.Value(c.Counter)
		var y float64
		if c.Than == "" {
			y = float64(a.Bytes)
			res.Measured = fmt.Sprintf("%s %s, must move %s", c.Variant, countText(x), countText(y))
			if r.L2Bytes > 0 && y < r.L2Bytes { // (its output can stay in L2 when the kernel ends)
				res.Measured += fmt.Sprintf(": fits in the %.0f MiB L2, run a larger -n", r.L2Bytes/(1<<20))
				r.Claims = append(r.Claims, res)
				continue
			}
		} else {
			b := rows[c.Than]
			if b == nil || b.Counters == nil {
				r.Claims = append(r.Claims, res)
				continue
			}
			y = b.Counters.Value(c.Counter)
			res.Measured = fmt.Sprintf("%s %s, %s %s", c.Variant, countText(x), c.Than, countText(y))
		}
		if math.IsNaN(x) || math.IsNaN(y) {
			r.Claims = append(r.Claims, res)
			continue
		}
		var seen bool
		switch {
		case c.Than == "":
			seen = x <= 1.05*y && x >= 0.95*y
		case c.Factor > 0:
			seen = y > 0 && math.Abs(x/y-c.Factor) <= 0.1*c.Factor
		case c.Fewer: // (by more than the counters' run-to-run noise: 5%)
			seen = x < 0.95*y
		default:
			seen = x > 1.05*y
		}
		res.Seen = map[bool]string{true: "seen", false: "not seen on this GPU"}[seen]
		r.Claims = append(r.Claims, res)
	}
}

// countText writes a counter: whole numbers with thousands separators, others to 3 significant
// digits, "-" for none.
func countText(x float64) string {
	switch {
	case math.IsNaN(x):
		return "-"
	case x != math.Trunc(x) || math.Abs(x) >= 1e15:
		return strconv.FormatFloat(x, 'g', 3, 64)
	}
	s := strconv.FormatInt(int64(math.Abs(x)), 10)
	var b strings.Builder
	if x < 0 {
		b.WriteByte('-')
	}
	for i, ch := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(ch)
	}
	return b.String()
}

// hasCounters says whether the counters' table has anything to show: a row's counters, or why
// there are none.
func (r *Report) hasCounters() bool {
	if r.CountersNote != "" {
		return true
	}
	for _, row := range r.Rows {
		if row.Counters != nil {
			return true
		}
	}
	return false
}

// counterCells is the counters' table as cells: a header and a row a variant that has counters
// or says why not.
func (r *Report) counterCells() [][]string {
	cells := [][]string{{"variant", "kernels", "divergent branches", "threads/inst", "bank conflicts", "active warps %", "launched warps",
		"DRAM read+write", "must move", "DRAM/moved", "inst/warp", ""}}
	for _, row := range r.Rows {
		c := row.Counters
		if c == nil {
			if row.CountersWhy != "" {
				cells = append(cells, []string{row.Variant, " " + row.CountersWhy}) // (the text after the last tab: not aligned)
			}
			continue
		}
		ratio := "-"
		if row.Bytes > 0 && !math.IsNaN(float64(c.DRAM())) {
			ratio = fmt.Sprintf("%.2f", float64(c.DRAM())/float64(row.Bytes))
		}
		active, inst, lanes := "-", "-", "-"
		if !math.IsNaN(float64(c.Lanes)) {
			lanes = fmt.Sprintf("%.1f", float64(c.Lanes))
		}
		if !math.IsNaN(float64(c.ActivePct)) {
			active = fmt.Sprintf("%.1f", float64(c.ActivePct))
		}
		if !math.IsNaN(float64(c.InstWarp)) {
			inst = fmt.Sprintf("%.1f", float64(c.InstWarp))
		}
		cells = append(cells, []string{row.Variant, strconv.Itoa(c.Kernels), countText(float64(c.Divergent)), lanes,
			countText(float64(c.Conflicts)), active, countText(float64(c.Warps)), countText(float64(c.DRAM())),
			countText(float64(row.Bytes)), ratio, inst, ""})
	}
	return cells
}

// writeCounters prints the counters' table, why counters are missing, and the claims.
func (r *Report) writeCounters(w io.Writer) error {
	if !r.hasCounters() {
		return nil
	}
	if r.CountersNote != "" {
		_, err := fmt.Fprintf(w, "counters: %s\n", r.CountersNote)
		return err
	}
	fmt.Fprintf(w, "\nhardware counters of one run (Nsight Compute; summed over its kernels):\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, line := range r.counterCells() {
		fmt.Fprintln(tw, strings.Join(line, "\t"))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(r.Claims) > 0 {
		fmt.Fprintf(w, "the lecture's claims, on this GPU:\n")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, c := range r.Claims {
			fmt.Fprintf(tw, "  %s\t%s\t%s\n", c.Claim, c.Seen, c.Measured)
		}
		return tw.Flush()
	}
	return nil
}

// counterCSV is the counters' columns of WriteCSV (appended after the old ones: readers find
// columns by name).
var counterCSV = []string{"divergent_branches", "shared_bank_conflicts", "active_warps_pct", "launched_warps",
	"dram_read_bytes", "dram_write_bytes", "inst_per_warp", "counter_kernels", "threads_per_inst"}

func counterRecord(c *Counters, num func(Num) string) []string {
	if c == nil {
		return make([]string, len(counterCSV))
	}
	return []string{num(c.Divergent), num(c.Conflicts), num(c.ActivePct), num(c.Warps), num(c.DRAMRead), num(c.DRAMWrite),
		num(c.InstWarp), strconv.Itoa(c.Kernels), num(c.Lanes)}
}

// readCounters is a CSV row's counters, nil where it has none.
func readCounters(num func(string) Num, get func(string) string) *Counters {
	k, err := strconv.Atoi(get("counter_kernels"))
	if err != nil {
		return nil
	}
	c := &Counters{Kernels: k, Divergent: num("divergent_branches"), Conflicts: num("shared_bank_conflicts"),
		ActivePct: num("active_warps_pct"), Warps: num("launched_warps"), DRAMRead: num("dram_read_bytes"),
		DRAMWrite: num("dram_write_bytes"), InstWarp: num("inst_per_warp"), Inst: Num(math.NaN()), TimeNs: Num(math.NaN()),
		Lanes: num("threads_per_inst")}
	c.Inst = c.InstWarp * c.Warps
	return c
}

// NcuPermission is the text of ncu's refusal when counters are reserved to administrators.
const NcuPermission = "ERR_NVGPUCTRPERM"

// NcuRefused says whether ncu's output holds its permission refusal.
func NcuRefused(out []byte) bool { return bytes.Contains(out, []byte(NcuPermission)) }
