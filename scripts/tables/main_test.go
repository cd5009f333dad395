package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tecaj/internal/report"
)

// writeRun writes reports as a run's -csv file would hold them.
func writeRun(t *testing.T, path string, reports []*report.Report) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := report.WriteCSV(f, reports); err != nil {
		t.Fatal(err)
	}
}

func run(program string, n int64, rows ...report.Row) *report.Report {
	r := &report.Report{Program: program, Params: "-op sum", Device: "card", N: n, Unit: "elements", CopyGBps: 2000,
		Commit: "0123456789abcdef", Date: "2026-11-25T22:00:00Z", Rows: rows}
	r.Derive()
	return r
}

// One size renders a row a variant (a refused one left out), with its figures and the run's
// provenance; a sweep a row a size and a column a variant; -update fills a block, and again
// gives the same file.
func TestRender(t *testing.T) {
	dir := t.TempDir()
	one := filepath.Join(dir, "one.csv")
	writeRun(t, one, []*report.Report{run("redukcija", 1<<28,
		report.Row{Variant: "r0", KernelMs: 2, TotalMs: 2, Bytes: 4e9, Pass: true},
		report.Row{Variant: "best", KernelMs: 1, TotalMs: 1, Bytes: 4e9, Pass: true},
		report.RefusedRow("race", "n <= 2^24"))})
	md, err := render(one)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"`redukcija -op sum`, card, copy 2000 GB/s, commit 0123456, 2026-11-25T22:00:00Z", "n = 2^28",
		"| r0 | 2000.00 | 0.0 | 2000 | 100.0 | 1.00x | - | pass |", "| best | 1000.00 | 0.0 | 4000 | 200.0 | 2.00x | 2.00x | pass |"} {
		if !strings.Contains(md, want) {
			t.Errorf("no %q in:\n%s", want, md)
		}
	}
	if strings.Contains(md, "race") {
		t.Errorf("a refused row is shown:\n%s", md)
	}
	sweep := filepath.Join(dir, "sweep.csv")
	writeRun(t, sweep, []*report.Report{
		run("prefiks", 1<<10, report.Row{Variant: "best", KernelMs: 1, TotalMs: 1, Bytes: 8e6, Pass: true}),
		run("prefiks", 1<<31+5, report.Row{Variant: "best", KernelMs: 1, TotalMs: 1, Bytes: 8e9, Pass: true},
			report.Row{Variant: "cub", KernelMs: 2, TotalMs: 2, Bytes: 8e9, Pass: false})})
	if md, err = render(sweep); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| n | best | cub |", "| 2^10 | 8.00 | - |", "| 2^31 + 5 | 8000 | - |"} {
		if !strings.Contains(md, want) {
			t.Errorf("no %q in:\n%s", want, md)
		}
	}
	// a sort's sweep: the network moves more bytes than radix, so the cells are kernel us
	sorts := filepath.Join(dir, "sorts.csv")
	writeRun(t, sorts, []*report.Report{
		run("urejanje", 1<<20, report.Row{Variant: "nl", KernelMs: 0.5, TotalMs: 0.5, Bytes: 8e8, Pass: true},
			report.Row{Variant: "radix", KernelMs: 0.07, TotalMs: 0.07, Bytes: 8e6, Pass: true}),
		run("urejanje", 1<<22, report.Row{Variant: "nl", KernelMs: 2, TotalMs: 2, Bytes: 4e9, Pass: true},
			report.Row{Variant: "radix", KernelMs: 0.2, TotalMs: 0.2, Bytes: 3.2e7, Pass: true})})
	if md, err = render(sorts); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"kernel us\n\n| n | nl | radix |", "| 2^20 | 500 | 70 |", "| 2^22 | 2000.0 | 200 |"} {
		if !strings.Contains(md, want) {
			t.Errorf("no %q in:\n%s", want, md)
		}
	}
	doc := filepath.Join(dir, "doc.md")
	text := "# Title\n\n<!-- tables: sweep.csv -->\nold\n<!-- end tables -->\nafter\n"
	if err := os.WriteFile(doc, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := updateFile(doc); err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(doc)
	if strings.Contains(string(first), "old") || !strings.Contains(string(first), "| 2^10 | 8.00 | - |") ||
		!strings.HasSuffix(string(first), "<!-- end tables -->\nafter\n") {
		t.Errorf("updated:\n%s", first)
	}
	if err := updateFile(doc); err != nil {
		t.Fatal(err)
	}
	if second, _ := os.ReadFile(doc); string(second) != string(first) {
		t.Errorf("a second update changed the file:\n%s", second)
	}
}

// The commit shortens to 7 hex digits and keeps its +dirty; no commit or date, nothing.
func TestProvenance(t *testing.T) {
	for _, c := range []struct{ commit, date, want string }{
		{"0123456789abcdef+dirty", "2026-11-25T22:00:00Z", ", commit 0123456+dirty, 2026-11-25T22:00:00Z"},
		{"abc", "", ", commit abc"}, {"", "", ""}} {
		if got := provenance(&report.Report{Commit: c.commit, Date: c.date}); got != c.want {
			t.Errorf("%q %q: %q, want %q", c.commit, c.date, got, c.want)
		}
	}
}

// A pattern renders its files as one table of kernel us: a row a file's run in the order of the
// benchmark lines (P-2 before P-10), a column a variant in the program's order (one refused in
// every run left out), a failed cell marked wrong and a library call timed without the gate
// marked; the heading gives the copy's range and the first and last run.
func TestRenderPattern(t *testing.T) {
	dir := t.TempDir()
	line := func(file string, n int64, copyGBps float64, date string, rows ...report.Row) {
		r := run("redukcija", n, rows...)
		r.CopyGBps, r.Date = report.Num(copyGBps), date
		writeRun(t, filepath.Join(dir, file), []*report.Report{r})
	}
	line("redukcija-10.csv", 1000000, 2990, "2026-11-25T22:02:00Z",
		report.Row{Variant: "race", KernelMs: 0.4, TotalMs: 0.4, Bytes: 4e6, Pass: false},
		report.Row{Variant: "best", KernelMs: 0.005, TotalMs: 0.005, Bytes: 4e6, Pass: true},
		report.Row{Variant: "cub", KernelMs: 0.007, TotalMs: 0.007, Bytes: 4e6, Pass: true,
			Note: "timed without the timing gate (the call waits for the device inside it)"},
		report.RefusedRow("b1", "n <= threads"))
	line("redukcija-2.csv", 1<<28, 2970, "2026-11-25T22:01:00Z",
		report.RefusedRow("race", "n <= 2^24"),
		report.Row{Variant: "best", KernelMs: 0.35123, TotalMs: 0.35123, Bytes: 1e9, Pass: true},
		report.Row{Variant: "cub", KernelMs: 12.3456, TotalMs: 12.3456, Bytes: 1e9, Pass: true},
		report.RefusedRow("b1", "n <= threads"))
	md, err := renderPattern(filepath.Join(dir, "redukcija-*.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"copy 2970-2990 GB/s, commit 0123456, 2026-11-25T22:01:00Z to 2026-11-25T22:02:00Z",
		"| run | race | best | cub |", "| `-op sum` 2^28 | - | 351.2 | 12346 |",
		"| `-op sum` 10^6 | 400 wrong | 5 | 7 (ungated) |"} {
		if !strings.Contains(md, want) {
			t.Errorf("no %q in:\n%s", want, md)
		}
	}
	if strings.Index(md, "2^28") > strings.Index(md, "10^6") || strings.Contains(md, "b1") {
		t.Errorf("rows out of the lines' order, or a variant that never ran:\n%s", md)
	}
	if _, err := renderPattern(filepath.Join(dir, "none-*.csv")); err == nil {
		t.Error("a pattern that matches nothing: no error")
	}
}

// A best block: a row a run, best beside its library (the lead its time over best's) or beside the
// copy where the run has none; programs in order, each program's lines in theirs; the runs'
// earliest and latest dates whatever the files' order.
func TestRenderBest(t *testing.T) {
	dir := t.TempDir()
	line := func(file, program string, n int64, date string, rows ...report.Row) {
		r := run(program, n, rows...)
		r.Date = date
		writeRun(t, filepath.Join(dir, file), []*report.Report{r})
	}
	line("redukcija-10.csv", "redukcija", 1000000, "2026-11-25T22:03:00Z",
		report.Row{Variant: "best", KernelMs: 0.005, TotalMs: 0.005, Bytes: 4e6, Pass: true},
		report.Row{Variant: "cub", KernelMs: 0.007, TotalMs: 0.007, Bytes: 4e6, Pass: true})
	line("redukcija-2.csv", "redukcija", 1<<28, "2026-11-25T22:01:00Z",
		report.Row{Variant: "best", KernelMs: 0.5, TotalMs: 0.5, Bytes: 1e9, Pass: true},
		report.Row{Variant: "cub", KernelMs: 0.25, TotalMs: 0.25, Bytes: 1e9, Pass: true})
	line("razlika-1.csv", "razlika", 1<<28, "2026-11-25T22:02:00Z",
		report.Row{Variant: "best", KernelMs: 1, TotalMs: 1, Bytes: 1.5e9, Pass: true})
	md, err := renderBest(filepath.Join(dir, "*.csv"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"commit 0123456, 2026-11-25T22:01:00Z to 2026-11-25T22:03:00Z",
		"| razlika | `-op sum` 2^28 | 1000.0 | none (the copy is the bar) | - | 75.0% |",
		"| redukcija | `-op sum` 2^28 | 500 | cub 250 | 0.50x | 100.0% |",
		"| redukcija | `-op sum` 10^6 | 5 | cub 7 | 1.40x | 40.0% |"} {
		if !strings.Contains(md, want) {
			t.Errorf("no %q in:\n%s", want, md)
		}
	}
	if strings.Index(md, "| razlika") > strings.Index(md, "| redukcija") || strings.Index(md, "2^28 | 500") > strings.Index(md, "10^6 | 5 ") {
		t.Errorf("rows out of order:\n%s", md)
	}
}
