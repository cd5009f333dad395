package report

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"strings"
	"testing"
)

func TestMedian(t *testing.T) {
	if m := Median([]float64{5, 1, 3}); m != 3 {
		t.Errorf("odd: %v", m)
	}
	xs := []float64{4, 1, 3, 2}
	if m := Median(xs); m != 2.5 || xs[0] != 4 {
		t.Errorf("even: %v, input changed: %v", m, xs)
	}
	if !math.IsNaN(Median(nil)) {
		t.Error("empty: want NaN")
	}
}

func TestDeriveAndPrint(t *testing.T) {
	r := &Report{Program: "p", CopyGBps: 3000, Baseline: "slow", ErrorKind: "err", Rows: []Row{
		{Variant: "slow", KernelMs: 4, TotalMs: 8, Bytes: 12e9, Pass: true},
		{Variant: "fast", KernelMs: 4.8, TotalMs: 2, Bytes: 12e9, Pass: false, Error: Num(math.NaN())},
		{Variant: "refused", Refused: "outside domain: n <= 1024"},
	}}
	r.Derive()
	if r.Rows[0].GBps != 3000 || r.Rows[0].PctCopy != 100 || r.Rows[1].SpeedUp != 4 {
		t.Fatalf("derived %+v", r.Rows)
	}
	if !r.Failed() {
		t.Error("a failing row was not reported")
	}
	var table bytes.Buffer
	if err := r.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"FAIL", "PASS", "outside domain: n <= 1024", "4000", "4.00"} {
		if !strings.Contains(table.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, table.String())
		}
	}
	var js bytes.Buffer
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back map[string]interface{}
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatalf("JSON with NaN does not parse: %v\n%s", err, js.String())
	}
}

func TestSpeedUpFallsBackToTheFirstVariantThatRan(t *testing.T) {
	r := &Report{CopyGBps: 1, Baseline: "1", Rows: []Row{
		{Variant: "1", Refused: "n <= 1024"},
		{Variant: "3", KernelMs: 1, TotalMs: 6, Bytes: 1},
		{Variant: "best", KernelMs: 1, TotalMs: 2, Bytes: 1},
	}}
	r.Derive()
	if r.Baseline != "3" || r.Rows[2].SpeedUp != 3 || len(r.extra) != 1 {
		t.Fatalf("baseline %q, speed-up %v, notes %v", r.Baseline, r.Rows[2].SpeedUp, r.extra)
	}
}

// A counter-example (razlika 1 named past its domain: the lecture's failure) is no baseline.
func TestSpeedUpIsNeverAgainstACounterExample(t *testing.T) {
	r := &Report{CopyGBps: 1, Baseline: "1", Rows: []Row{
		{Variant: "1", KernelMs: 1, TotalMs: 1, Bytes: 1, CounterExample: true},
		{Variant: "4", KernelMs: 1, TotalMs: 6, Bytes: 1},
		{Variant: "best", KernelMs: 1, TotalMs: 2, Bytes: 1},
	}}
	r.Derive()
	if r.Baseline != "4" || r.Rows[2].SpeedUp != 3 || len(r.extra) != 1 {
		t.Fatalf("baseline %q, speed-up %v, notes %v", r.Baseline, r.Rows[2].SpeedUp, r.extra)
	}
}

// The step column is the speed-up over the row above (refused rows and counter-examples skipped:
// no speed-up is claimed against a wrong answer, nor for one); a counter-example that is wrong
// says WRONG and does not fail the report; no bytes counted means no GB/s.
func TestStepCounterExampleAndUncountedBytes(t *testing.T) {
	r := &Report{Program: "p", CopyGBps: 3000, Baseline: "a", Unit: "keys", Rows: []Row{
		{Variant: "race", KernelMs: 1, TotalMs: 9, Bytes: 4e6, Items: 1e6, Pass: false, CounterExample: true},
		{Variant: "a", KernelMs: 1, TotalMs: 6, Bytes: 4e6, Items: 1e6, Pass: true},
		{Variant: "skipped", Refused: "n <= 1024"},
		{Variant: "b", KernelMs: 1, TotalMs: 2, Bytes: 0, Items: 1e6, Pass: true},
	}}
	r.Derive()
	if !math.IsNaN(float64(r.Rows[0].Step)) || !math.IsNaN(float64(r.Rows[0].SpeedUp)) || !math.IsNaN(float64(r.Rows[1].Step)) || r.Rows[3].Step != 3 {
		t.Errorf("steps %v %v %v", r.Rows[0].Step, r.Rows[1].Step, r.Rows[3].Step)
	}
	if r.Failed() {
		t.Error("a wrong counter-example failed the report")
	}
	if !math.IsNaN(float64(r.Rows[3].GBps)) || r.Rows[3].MItemsPS != 1000 {
		t.Errorf("uncounted bytes: %v GB/s, %v Mkeys/s", r.Rows[3].GBps, r.Rows[3].MItemsPS)
	}
	var table bytes.Buffer
	if err := r.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	out := table.String()
	if !strings.Contains(out, "WRONG") || !strings.Contains(out, "Mkeys/s") || !strings.Contains(out, "step") {
		t.Errorf("table:\n%s", out)
	}
	r.Rows[1].Pass = false
	if !r.Failed() {
		t.Error("a failing row that is no counter-example did not fail the report")
	}
}

// WorkOnly: speed-ups and steps on kernel + host time, the copy back (the same for every
// variant) left out; a host variant compares its whole run; the table says so.
func TestWorkOnlySpeedUpsLeaveTheCopyBackOut(t *testing.T) {
	r := &Report{Program: "p", CopyGBps: 3000, Baseline: "a", WorkOnly: true, Rows: []Row{
		{Variant: "a", KernelMs: 8, D2HMs: 20, HostMs: 0, TotalMs: 28, Pass: true},
		{Variant: "b", KernelMs: 2, D2HMs: 20, HostMs: 0, TotalMs: 22, Pass: true},
		{Variant: "cpu", KernelMs: Num(math.NaN()), D2HMs: Num(math.NaN()), HostMs: 16, TotalMs: 16, Pass: true},
	}}
	r.Derive()
	if r.Rows[1].SpeedUp != 4 || r.Rows[1].Step != 4 || r.Rows[2].SpeedUp != 0.5 || r.Rows[2].Step != 0.125 {
		t.Errorf("speed-ups %v %v, steps %v %v", r.Rows[1].SpeedUp, r.Rows[2].SpeedUp, r.Rows[1].Step, r.Rows[2].Step)
	}
	var table bytes.Buffer
	if err := r.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(table.String(), "copy back") {
		t.Errorf("the table does not say what speed-ups compare:\n%s", table.String())
	}
	r.WorkOnly, r.extra = false, nil
	r.Derive()
	if math.Abs(float64(r.Rows[1].SpeedUp)-28.0/22) > 1e-12 {
		t.Errorf("on total time: %v", r.Rows[1].SpeedUp)
	}
}

// The spread beside each median: the interquartile range over the median, in percent; a row
// over NoisyPct is marked and the table says what the mark means.
func TestSpreadAndNoisyRows(t *testing.T) {
	if s := Spread([]float64{10, 10, 10, 10}); s != 0 {
		t.Errorf("equal runs: %v", s)
	}
	if s := Spread([]float64{1, 2, 3, 4, 5}); math.Abs(s-2.0/3*100) > 1e-9 { // Q1 2, Q3 4, median 3
		t.Errorf("1..5: %v, want 66.7", s)
	}
	if !math.IsNaN(Spread([]float64{3})) {
		t.Error("one run has no spread")
	}
	r := &Report{Program: "p", Unit: "elements", CopyGBps: 1000, Rows: []Row{
		{Variant: "a", KernelMs: 1, TotalMs: 1, SpreadPct: 0.4, Pass: true},
		{Variant: "b", KernelMs: 1, TotalMs: 1, SpreadPct: 12.5, Pass: true},
	}}
	r.Derive()
	var b strings.Builder
	if err := r.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.Contains(out, " 0.4 ") || !strings.Contains(out, " 12.5* ") || !strings.Contains(out, "noisy") {
		t.Errorf("table:\n%s", out)
	}
	r.Rows[1].SpreadPct = 1
	b.Reset()
	r.WriteTable(&b)
	if strings.Contains(b.String(), "noisy") {
		t.Errorf("no noisy row, yet:\n%s", b.String())
	}
}

// svgElements parses an SVG as XML and counts its elements by name, with every text's words.
func svgElements(t *testing.T, svg string) (map[string]int, string) {
	t.Helper()
	count, texts := map[string]int{}, ""
	d := xml.NewDecoder(strings.NewReader(svg))
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not XML: %v\n%s", err, svg)
		}
		switch e := tok.(type) {
		case xml.StartElement:
			count[e.Name.Local]++
		case xml.CharData:
			texts += string(e) + "\n"
		}
	}
	return count, texts
}

// -plot's pictures, parsed as XML: one size draws a bar a variant that ran, with its step, and
// the copy line; a sweep a line a variant, the copy line and where the inputs pass L2, the axes'
// labels and a legend entry a variant, or items a second where the variants move unlike bytes;
// nothing to plot is an error.
func TestSVG(t *testing.T) {
	mk := func(n int64, ms ...float64) *Report {
		r := &Report{Program: "p", Params: "-op min", Device: "card", N: n, Unit: "elements", CopyGBps: 2000}
		for i, m := range ms {
			r.Rows = append(r.Rows, Row{Variant: string(rune('a' + i)), KernelMs: Num(m), TotalMs: Num(m), Bytes: Num(4 * float64(n)), Items: n, Pass: true})
		}
		r.Rows = append(r.Rows, Row{Variant: "z", Refused: "outside"})
		r.Derive()
		return r
	}
	var one strings.Builder
	if err := WriteSVG(&one, []*Report{mk(1<<20, 4, 2, 1)}, 0); err != nil {
		t.Fatal(err)
	}
	count, texts := svgElements(t, one.String())
	for _, want := range []string{"x2.00", "2000 GB/s", "GB/s (", "-op min", "card", "variant, in the table's order"} {
		if !strings.Contains(texts, want) {
			t.Errorf("bars: no %q in the texts:\n%s", want, texts)
		}
	}
	if count["rect"] != 1+3 || count["svg"] != 1 { // the background and a bar a variant that ran
		t.Errorf("bars: %v", count)
	}
	var sweep strings.Builder
	if err := WriteSVG(&sweep, []*Report{mk(1<<10, 1e-3, 2e-3), mk(1<<20, 1, 2), mk(1<<24, 16, 30)}, 8<<20); err != nil {
		t.Fatal(err)
	}
	count, texts = svgElements(t, sweep.String())
	if count["polyline"] != 2 || count["circle"] != 6 {
		t.Errorf("sweep: %v", count)
	}
	for _, want := range []string{"inputs past L2 (8 MiB)", "n (elements, log scale)", "2^10", "2^24", "GB/s (", "2000 GB/s", "\na\n", "\nb\n"} {
		if !strings.Contains(texts, want) {
			t.Errorf("sweep: no %q in the texts:\n%s", want, texts)
		}
	}
	// variants that must move different bytes (a sort's network and radix): items a second, no copy
	// line, and the L2 mark where the least a variant moves passes L2 (here nowhere)
	unlike := []*Report{mk(1<<10, 1e-3, 2e-3), mk(1<<20, 1, 2)}
	for _, r := range unlike {
		r.Rows[1].Bytes = Num(40 * float64(r.N))
		r.Derive()
	}
	var items strings.Builder
	if err := WriteSVG(&items, unlike, 8<<20); err != nil { // (b's bytes pass 8 MiB at 2^20, a's do not)
		t.Fatal(err)
	}
	_, texts = svgElements(t, items.String())
	if !strings.Contains(texts, "millions of elements a second (n / kernel time)") || strings.Contains(texts, "GB/s") ||
		strings.Contains(texts, "inputs past L2") {
		t.Errorf("unlike bytes: not drawn as items a second:\n%s", texts)
	}
	if err := WriteSVG(&sweep, []*Report{{Program: "p", N: 5, CopyGBps: Num(math.NaN())}}, 0); err == nil {
		t.Error("a report with no rates was drawn")
	}
}

// Sweeps from two cards (plot's several files) in one picture: a line a variant and card, the
// second card's dashed, each card's copy and L2 marked with its name, the variant's colour the same
// on both.
func TestSVGTwoCards(t *testing.T) {
	mk := func(device string, copyGBps, l2 float64, n int64, ms ...float64) *Report {
		r := &Report{Program: "p", Device: device, N: n, Unit: "elements", CopyGBps: Num(copyGBps), L2Bytes: l2}
		for i, m := range ms {
			r.Rows = append(r.Rows, Row{Variant: []string{"best", "cub"}[i], KernelMs: Num(m), TotalMs: Num(m), Bytes: Num(4 * float64(n)), Pass: true})
		}
		r.Derive()
		return r
	}
	h100, h200 := "NVIDIA H100 80GB HBM3", "NVIDIA H200"
	reports := []*Report{mk(h100, 3000, 50<<20, 1<<20, 1, 2), mk(h100, 3000, 50<<20, 1<<24, 16, 30),
		mk(h200, 4100, 60<<20, 1<<20, 0.8, 1.5), mk(h200, 4100, 60<<20, 1<<26, 50, 90)}
	var b strings.Builder
	if err := WriteSVG(&b, reports, reports[0].L2Bytes); err != nil {
		t.Fatal(err)
	}
	count, texts := svgElements(t, b.String())
	if count["polyline"] != 4 || count["circle"] != 8 {
		t.Errorf("two cards: %v", count)
	}
	for _, want := range []string{"best, H100", "cub, H200", "device copy, same run, H100: 3000 GB/s", "device copy, same run, H200: 4100 GB/s",
		"inputs past L2 (50 MiB), H100", "inputs past L2 (60 MiB), H200", "NVIDIA H100 80GB HBM3 and NVIDIA H200", "2^20 .. 2^26"} {
		if !strings.Contains(texts, want) {
			t.Errorf("two cards: no %q in the texts:\n%s", want, texts)
		}
	}
	if got := strings.Count(b.String(), `<polyline`) - strings.Count(b.String(), `stroke-width="2"/>`); got != 2 {
		t.Errorf("two cards: %d dashed lines, want the second card's two", got)
	}
	// the legend starts below the lower card's copy label (the H100's, 3000 GB/s)
	legendY, copyY := -1.0, -1.0
	for _, line := range strings.Split(b.String(), "\n") {
		var yv float64
		if strings.Contains(line, ">best, H100<") {
			fmt.Sscanf(line[strings.Index(line, `y="`)+3:], "%g", &yv)
			legendY = yv
		}
		if strings.Contains(line, "H100: 3000 GB/s") {
			fmt.Sscanf(line[strings.Index(line, `y="`)+3:], "%g", &yv)
			copyY = yv
		}
	}
	if legendY < copyY+10 {
		t.Errorf("two cards: the legend (y %.0f) overlaps the lower copy label (y %.0f)", legendY, copyY)
	}
	// two cards whose short names read alike are named in full; one size on each card is refused
	same := []*Report{mk("NVIDIA H100 PCIe", 2000, 0, 1<<20, 1, 2), mk("NVIDIA H100 PCIe", 2000, 0, 1<<24, 16, 30),
		mk(h100, 3000, 0, 1<<20, 1, 2), mk(h100, 3000, 0, 1<<24, 16, 30)}
	b.Reset()
	if err := WriteSVG(&b, same, 0); err != nil {
		t.Fatal(err)
	}
	if _, texts := svgElements(t, b.String()); !strings.Contains(texts, "best, H100 PCIe") || !strings.Contains(texts, "best, H100 80GB HBM3") {
		t.Errorf("alike cards: not named in full:\n%s", texts)
	}
	if err := WriteSVG(&b, []*Report{mk(h100, 3000, 0, 1<<20, 1, 2), mk(h200, 4100, 0, 1<<20, 1, 2)}, 0); err == nil ||
		!strings.Contains(err.Error(), "one size on 2 cards") {
		t.Errorf("one size on two cards: %v", err)
	}
	for _, c := range []struct{ device, want string }{{"NVIDIA GeForce RTX 3060", "RTX 3060"}, {"Tesla T4", "T4"}, {"NVIDIA A100-SXM4-80GB", "A100-SXM4-80GB"}} {
		if got := cardName(c.device); got != c.want {
			t.Errorf("cardName(%q) = %q, want %q", c.device, got, c.want)
		}
	}
}

// -csv: the header's columns, then one record a (variant, size) with the run's parameters in each.
func TestCSV(t *testing.T) {
	var reports []*Report
	for _, n := range []int64{1000, 2000} {
		r := &Report{Program: "p", Params: "-op min -type int32", Device: "card", N: n, Seed: 3, Reps: 5, Unit: "elements", CopyGBps: 2000,
			Commit: "abc123+dirty", Date: "2026-11-25T22:00:00Z"}
		r.Rows = []Row{{Variant: "a", KernelMs: 1, TotalMs: 2, Bytes: Num(4 * n), Pass: true}, RefusedRow("b", "outside")}
		r.Derive()
		reports = append(reports, r)
	}
	var b strings.Builder
	if err := WriteCSV(&b, reports); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(b.String())).ReadAll()
	if err != nil || len(recs) != 1+4 {
		t.Fatalf("%v, %d records:\n%s", err, len(recs), b.String())
	}
	col := map[string]int{}
	for i, name := range recs[0] {
		col[name] = i
	}
	for _, name := range []string{"program", "params", "device", "n", "copy_gb_per_s", "variant", "kernel_ms", "spread_pct", "gb_per_s", "result", "index", "pass", "refused", "commit", "date"} {
		if _, ok := col[name]; !ok {
			t.Errorf("no column %q in %v", name, recs[0])
		}
	}
	if r := recs[3]; r[col["n"]] != "2000" || r[col["variant"]] != "a" || r[col["params"]] != "-op min -type int32" ||
		r[col["commit"]] != "abc123+dirty" || r[col["date"]] != "2026-11-25T22:00:00Z" ||
		r[col["copy_gb_per_s"]] != "2000" || r[col["gb_per_s"]] != "8e-03" && r[col["gb_per_s"]] != "0.008" || r[col["pass"]] != "true" {
		t.Errorf("record %v", r)
	}
	if r := recs[4]; r[col["refused"]] != "outside" || r[col["kernel_ms"]] != "" {
		t.Errorf("a refused row: %v", r)
	}
}
