package report

import (
	"bytes"
	"math"
	"os"
	"strings"
	"testing"
)

// ncu's details page (a row a metric) as ncu 2025 prints it with --csv: the ==PROF== lines and the
// program's own table before the CSV, thousands separators, a time in usecond, and a gate kernel.
func TestParseNcuDetails(t *testing.T) {
	out, err := os.ReadFile("testdata/ncu-details.csv")
	if err != nil {
		t.Fatal(err)
	}
	ls, err := ParseNcuCSV(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) != 3 || ls[0].ID != "0" || ls[2].ID != "2" || !strings.HasPrefix(ls[0].Kernel, "void reduce_r0<") {
		t.Fatalf("launches: %+v", ls)
	}
	if got := ls[0].Metrics["dram__bytes_read.sum"]; got != 67176448 {
		t.Errorf("dram read of launch 0 = %v, want 67176448 (thousands separators)", got)
	}
	if got := ls[1].Metrics["gpu__time_duration.sum"]; got != 3650 {
		t.Errorf("duration of launch 1 = %v ns, want 3650 (3.65 usecond)", got)
	}
	c := SumLaunches(ls, "gate_kernel")
	want := map[string]float64{
		"divergent": 2097152 + 8192,
		"conflicts": 1024,
		"warps":     524288 + 2048,
		"dram":      67176448 + 262400 + 0 + 1024,
		"inst":      (30801920.0 + 120320) / (524288 + 2048),
		"active":    (86.42*61344 + 12.50*3650) / (61344 + 3650),
	}
	if c.Kernels != 2 {
		t.Errorf("kernels = %d, want 2 (the gate left out)", c.Kernels)
	}
	for _, k := range CounterKeys {
		if got := c.Value(k); math.Abs(got-want[k]) > 1e-9*math.Abs(want[k]) {
			t.Errorf("%s = %v, want %v", k, got, want[k])
		}
	}
	if all := SumLaunches(ls, ""); all.Kernels != 3 || float64(all.Warps) != 524288+2048+1 {
		t.Errorf("without skip: %d kernels, %v warps", all.Kernels, all.Warps)
	}
}

// ncu's raw page (--page raw: a row a launch, a row of units under the header), with unit
// prefixes and a metric ncu could not give ("n/a").
func TestParseNcuRaw(t *testing.T) {
	out, err := os.ReadFile("testdata/ncu-raw.csv")
	if err != nil {
		t.Fatal(err)
	}
	ls, err := ParseNcuCSV(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) != 2 || ls[1].Kernel != "scan_add" {
		t.Fatalf("launches: %+v", ls)
	}
	if got := ls[0].Metrics["dram__bytes_read.sum"]; math.Abs(got-4.19e6) > 1e-6 {
		t.Errorf("read = %v, want 4.19e6 (Mbyte)", got)
	}
	if got := ls[0].Metrics["dram__bytes_write.sum"]; math.Abs(got-4194.30e3) > 1e-6 {
		t.Errorf("write = %v, want 4194300 (Kbyte, separators)", got)
	}
	if _, ok := ls[1].Metrics["dram__bytes_write.sum"]; ok {
		t.Errorf("n/a parsed as a value")
	}
	c := SumLaunches(ls, "gate_kernel")
	if float64(c.Warps) != 65536 || math.Abs(float64(c.ActivePct)-(91.2+88)/2) > 1e-9 {
		t.Errorf("warps %v active %v (weighted by launched warps without durations)", c.Warps, c.ActivePct)
	}
	if !math.IsNaN(float64(c.Divergent)) || !math.IsNaN(float64(c.InstWarp)) {
		t.Errorf("counters ncu did not give: divergent %v inst/warp %v, want NaN", c.Divergent, c.InstWarp)
	}
}

func TestParseNcuNoCSV(t *testing.T) {
	for _, out := range []string{"", "==PROF== Connected\nsome output\n", "==ERROR== " + NcuPermission + "\n"} {
		if ls, err := ParseNcuCSV([]byte(out)); err == nil {
			t.Errorf("%q: %v launches, want an error", out, len(ls))
		}
	}
	if _, err := ParseNcuCSV([]byte(`"ID","Name"` + "\n" + `"0","x"`)); err == nil {
		t.Errorf("no Kernel Name column: want an error")
	}
}

func countersOf(div, conf, warps, inst float64) *Counters {
	return &Counters{Kernels: 1, Divergent: Num(div), Conflicts: Num(conf), Warps: Num(warps), Inst: Num(inst * warps),
		InstWarp: Num(inst), ActivePct: 50, DRAMRead: 1000, DRAMWrite: 10}
}

func TestClaims(t *testing.T) {
	r := &Report{Program: "redukcija", N: 1 << 24, Unit: "elements", Rows: []Row{
		{Variant: "r0", Bytes: 1000, Counters: countersOf(100, 5, 1000, 40)},
		{Variant: "r1", Bytes: 1000, Counters: countersOf(10, 50, 1000, 30)},
		{Variant: "r2", Bytes: 1000, Counters: countersOf(10, 60, 1000, 30)},
		{Variant: "r3", Bytes: 900, Counters: countersOf(10, 0, 520, 30)},
		{Variant: "cpu"},
	}}
	claims := []Claim{
		{Variant: "r1", Than: "r0", Counter: "divergent", Fewer: true},
		{Variant: "r2", Than: "r1", Counter: "conflicts", Fewer: true},
		{Variant: "r3", Than: "r2", Counter: "warps", Factor: 0.5},
		{Variant: "r1", Than: "r0", Counter: "conflicts"},
		{Variant: "r3", Counter: "dram"},
		{Variant: "r6", Than: "r5", Counter: "warps", Fewer: true},
	}
	r.Check(claims)
	want := []string{"seen", "not seen on this GPU", "seen", "seen", "not seen on this GPU", "not measured"}
	if len(r.Claims) != len(want) {
		t.Fatalf("%d results, want %d", len(r.Claims), len(want))
	}
	for i, c := range r.Claims {
		if c.Seen != want[i] {
			t.Errorf("%s: %s (%s), want %s", c.Claim, c.Seen, c.Measured, want[i])
		}
	}
	if r.Claims[0].Claim != "r1: fewer divergent branches than r0" || r.Claims[2].Claim != "r3: half the launched warps of r2" {
		t.Errorf("texts: %q, %q", r.Claims[0].Claim, r.Claims[2].Claim)
	}
	r.Rows[4].CountersWhy = "host: no GPU counters"
	var b bytes.Buffer
	if err := r.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	text := b.String()
	for _, s := range []string{"hardware counters of one run", "divergent branches", "inst/warp", "1,000", "host: no GPU counters",
		"not seen on this GPU  r2 60, r1 50", "r1: fewer divergent branches than r0"} {
		if !strings.Contains(text, s) {
			t.Errorf("the table lacks %q:\n%s", s, text)
		}
	}
	// why none could be read: one line, no table
	r.CountersNote = "no ncu (Nsight Compute) on PATH"
	b.Reset()
	r.WriteTable(&b)
	if strings.Count(b.String(), "counters: no ncu") != 1 || strings.Contains(b.String(), "hardware counters of one run") {
		t.Errorf("with a note:\n%s", b.String())
	}
}

// -csv keeps the counters, and ReadCSV reads them back; rows without counters stay without.
func TestCountersCSV(t *testing.T) {
	r := &Report{Program: "redukcija", N: 33, Unit: "elements", Rows: []Row{
		{Variant: "r0", Bytes: 132, MItemsPS: 12.5, Counters: countersOf(7, 3, 2, 40.5)}, {Variant: "cpu"}}}
	var b bytes.Buffer
	if err := WriteCSV(&b, []*Report{r}); err != nil {
		t.Fatal(err)
	}
	back, err := ReadCSV(&b)
	if err != nil {
		t.Fatal(err)
	}
	c := back[0].Rows[0].Counters
	if c == nil || c.Divergent != 7 || c.Conflicts != 3 || c.Warps != 2 || c.InstWarp != 40.5 || c.DRAM() != 1010 || c.Kernels != 1 {
		t.Fatalf("read back: %+v", c)
	}
	if back[0].Rows[0].MItemsPS != 12.5 { // (a sort's sweep draws it)
		t.Errorf("items a second read back: %v", back[0].Rows[0].MItemsPS)
	}
	if back[0].Rows[1].Counters != nil {
		t.Errorf("cpu got counters: %+v", back[0].Rows[1].Counters)
	}
}
