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
