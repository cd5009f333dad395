// Command tables renders kept runs (the -csv files in docs/results) as markdown tables: one size,
// a row a variant; a sweep, a row a size and a column a variant (GB/s); the files a pattern matches
// (`run.sh tables` writes one a benchmark line), one table of kernel us, a row a line and a column
// a variant. With -update, it rewrites each block of a markdown file that starts
// `<!-- tables: FILE.csv -->` (or a pattern) and ends `<!-- end tables -->` with those tables
// (FILE relative to the markdown file's folder), leaving the rest as it is; a block that starts
// `<!-- best: PATTERN -->` gets best beside its library in each run (README's table).
//
//	go run ./scripts/tables docs/results/redukcija-staircase.csv
//	go run ./scripts/tables 'docs/results/tables/redukcija-*.csv'
//	go run ./scripts/tables -update BENCHMARKS.md
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"tecaj/internal/report"
)

func main() {
	update := flag.String("update", "", "a markdown file whose tables blocks to render again, in place")
	flag.Parse()
	if (*update == "") == (flag.NArg() == 0) {
		fmt.Fprintln(os.Stderr, "usage: tables RESULTS.csv ... | tables -update FILE.md")
		os.Exit(2)
	}
	var err error
	if *update != "" {
		err = updateFile(*update)
	} else {
		for _, path := range flag.Args() {
			var md string
			if md, err = renderPattern(path); err != nil {
				break
			}
			fmt.Print(md)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "tables:", err)
		os.Exit(1)
	}
}

var block = regexp.MustCompile(`(?s)(<!-- (tables|best): (\S+) -->\n).*?(<!-- end tables -->)`)

// updateFile renders every tables block of path again.
func updateFile(path string) error {
	text, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var failed error
	out := block.ReplaceAllStringFunc(string(text), func(m string) string {
		parts := block.FindStringSubmatch(m)
		render := renderPattern
		if parts[2] == "best" {
			render = renderBest
		}
		md, err := render(filepath.Join(filepath.Dir(path), parts[3]))
		if err != nil {
			failed = err
			return m
		}
		return parts[1] + md + parts[4]
	})
	if failed != nil {
		return failed
	}
	return os.WriteFile(path, []byte(out), 0o644)
}

// renderPattern: a file's tables, or the one table of the files a pattern matches.
func renderPattern(pattern string) (string, error) {
	if !strings.ContainsAny(pattern, "*?[") {
		return render(pattern)
	}
	reports, err := readPattern(pattern)
	if err != nil {
		return "", err
	}
	return lines(reports, filepath.Base(pattern)), nil
}

// renderBest (a `<!-- best: PATTERN -->` block): best beside its library in each run the files
// hold, or beside the copy where the run has no library row; kernel us, a row a run.
func renderBest(pattern string) (string, error) {
	reports, err := readPattern(pattern)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n%s%s (`%s`); kernel us, each row's figures from one run\n\n", reports[0].Device, span(reports), filepath.Base(pattern))
	b.WriteString("| program | run | best | library, same run | best's lead | best, % of the copy |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, r := range reports {
		var best, lib *report.Row
		for i := range r.Rows {
			row := &r.Rows[i]
			if row.Refused != "" || !(row.KernelMs > 0) {
				continue
			}
			switch row.Variant {
			case "best":
				best = row
			case "cub", "npp":
				lib = row
			}
		}
		if best == nil {
			continue
		}
		library, lead := "none (the copy is the bar)", "-"
		if lib != nil {
			library = lib.Variant + " " + micro(float64(lib.KernelMs)*1000)
			if strings.Contains(lib.Note, "without the timing gate") {
				library += " (ungated)"
			}
			lead = fmt.Sprintf("%.2fx", float64(lib.KernelMs)/float64(best.KernelMs))
		}
		pct := "-"
		if r.CopyGBps > 0 && best.Bytes > 0 {
			pct = fmt.Sprintf("%.1f%%", 100*report.GBps(float64(best.Bytes), float64(best.KernelMs))/float64(r.CopyGBps))
		}
		label := power(r.N)
		if r.Params != "" {
			label = "`" + r.Params + "` " + label
		}
		cell := micro(float64(best.KernelMs) * 1000)
		if !best.Pass {
			cell += " wrong"
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", r.Program, label, cell, library, lead, pct)
	}
	return b.String(), nil
}

// readPattern reads the files a pattern matches, each program's in its benchmark lines' order.
func readPattern(pattern string) ([]*report.Report, error) {
	paths, err := filepath.Glob(pattern)
	if err != nil || len(paths) == 0 {
		return nil, fmt.Errorf("%s: no file matches", pattern)
	}
	// P-1.csv, P-2.csv, ..., P-10.csv: the order of the program's benchmark lines
	sort.SliceStable(paths, func(i, j int) bool { // (by program, then line: P-2 before P-10)
		a, b := filepath.Base(paths[i]), filepath.Base(paths[j])
		pa, pb := strings.TrimRight(strings.TrimSuffix(a, ".csv"), "0123456789"), strings.TrimRight(strings.TrimSuffix(b, ".csv"), "0123456789")
		if pa != pb {
			return pa < pb
		}
		if len(a) != len(b) {
			return len(a) < len(b)
		}
		return a < b
	})
	var reports []*report.Report
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		rs, err := report.ReadCSV(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %v", path, err)
		}
		reports = append(reports, rs...)
	}
	return reports, nil
}

// lines: one table of kernel us, a row a run (its parameters and n) and a column a variant that
// ran on the device somewhere in it; a refused cell "-", a failed one its time and "wrong", a
// library call timed without the gate "(ungated)". The heading gives the card, the range of the
// copy ceiling, and the runs' commits and dates (the first and last where they differ).
func lines(reports []*report.Report, name string) string {
	var variants []string
	seen := map[string]bool{}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range reports {
		lo, hi = math.Min(lo, float64(r.CopyGBps)), math.Max(hi, float64(r.CopyGBps))
		for _, row := range r.Rows { // the program's order (a refused row keeps its place)
			if _, ok := seen[row.Variant]; !ok {
				variants = append(variants, row.Variant)
			}
			seen[row.Variant] = seen[row.Variant] || row.Refused == "" && row.KernelMs > 0
		}
	}
	ran := variants[:0]
	for _, v := range variants {
		if seen[v] {
			ran = append(ran, v)
		}
	}
	variants = ran
	copyRange := fmt.Sprintf("%.0f", lo)
	if fmt.Sprintf("%.0f", hi) != copyRange {
		copyRange += fmt.Sprintf("-%.0f", hi)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n`%s`, %s, copy %s GB/s%s (`%s`); kernel us\n\n", reports[0].Program, reports[0].Device, copyRange, span(reports), name)
	fmt.Fprintf(&b, "| run | %s |\n|%s\n", strings.Join(variants, " | "), strings.Repeat(" --- |", len(variants)+1))
	for _, r := range reports {
		cells := make([]string, len(variants))
		for i, v := range variants {
			cells[i] = "-"
			for _, row := range r.Rows {
				if row.Variant != v || row.Refused != "" || !(row.KernelMs > 0) {
					continue
				}
				cells[i] = micro(float64(row.KernelMs) * 1000)
				if !row.Pass {
					cells[i] += " wrong"
				}
				if strings.Contains(row.Note, "without the timing gate") {
					cells[i] += " (ungated)"
				}
			}
		}
		label := power(r.N)
		if r.Params != "" {
			label = "`" + r.Params + "` " + label
		}
		fmt.Fprintf(&b, "| %s | %s |\n", label, strings.Join(cells, " | "))
	}
	return b.String()
}

// micro: microseconds to four figures, to a tenth from 1000 us, whole from 10000
func micro(us float64) string {
	switch {
	case us >= 10000:
		return fmt.Sprintf("%.0f", us)
	case us >= 1000:
		return fmt.Sprintf("%.1f", us)
	}
	return fmt.Sprintf("%.4g", us)
}

// render is one results file's tables: a heading line per (program, parameters), then its table.
func render(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	reports, err := report.ReadCSV(f)
	if err != nil {
		return "", fmt.Errorf("%s: %v", path, err)
	}
	var b strings.Builder
	for len(reports) > 0 { // the reports of one (program, params) together: a sweep's sizes, or one size
		k := 1
		for k < len(reports) && reports[k].Program == reports[0].Program && reports[k].Params == reports[0].Params {
			k++
		}
		group := reports[:k]
		reports = reports[k:]
		r := group[0]
		fmt.Fprintf(&b, "\n`%s %s`, %s, copy %.0f GB/s%s (`%s`)\n\n", r.Program, r.Params, r.Device, float64(r.CopyGBps),
			provenance(r), filepath.Base(path))
		if len(group) == 1 {
			single(&b, r)
		} else {
			sweep(&b, group)
		}
	}
	return b.String(), nil
}

// provenance: the run's commit (short) and date, where the file has them.
// span is the runs' provenance from the earliest to the latest (RFC 3339 dates sort as text):
// one commit's runs as its dates, else each end's commit and date.
func span(reports []*report.Report) string {
	first, last := reports[0], reports[0]
	for _, r := range reports {
		if r.Date < first.Date {
			first = r
		}
		if r.Date > last.Date {
			last = r
		}
	}
	prov := provenance(first)
	if first.Commit == last.Commit && first.Date != last.Date {
		prov += " to " + last.Date
	} else if p := provenance(last); p != prov {
		prov += " to" + strings.TrimPrefix(p, ",")
	}
	return prov
}

func provenance(r *report.Report) string {
	var s string
	if hash, dirty, _ := strings.Cut(r.Commit, "+"); hash != "" {
		if len(hash) > 7 {
			hash = hash[:7]
		}
		if dirty != "" {
			hash += "+" + dirty
		}
		s += ", commit " + hash
	}
	if r.Date != "" {
		s += ", " + r.Date
	}
	return s
}

func num(x report.Num, format string) string {
	if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
		return "-"
	}
	return fmt.Sprintf(format, float64(x))
}

// single: a row a variant, with its kernel time (and host time, where a row has one), spread,
// rate, share of the copy, speed-up, step and check.
func single(b *strings.Builder, r *report.Report) {
	host := false
	for _, row := range r.Rows {
		host = host || row.Refused == "" && row.KernelMs > 0 && row.HostMs > 0
	}
	hostHead, hostRule := "", ""
	if host {
		hostHead, hostRule = " host us |", " --- |"
	}
	fmt.Fprintf(b, "n = %s\n\n| variant | kernel us |%s ±%% | GB/s | %% of copy | speed-up | step | check |\n| --- | --- |%s --- | --- | --- | --- | --- | --- |\n",
		power(r.N), hostHead, hostRule)
	for _, row := range r.Rows {
		if row.Refused != "" || math.IsNaN(float64(row.KernelMs)) || row.KernelMs == 0 {
			continue // (refused rows: the command's -list says why)
		}
		check := "pass"
		if !row.Pass {
			check = "FAIL"
		}
		pct := report.Num(math.NaN())
		if r.CopyGBps > 0 {
			pct = row.GBps / r.CopyGBps * 100
		}
		hostCell := ""
		if host {
			hostCell = " " + num(row.HostMs*1000, "%.2f") + " |"
		}
		fmt.Fprintf(b, "| %s | %s |%s %s | %s | %s | %s | %s | %s |\n", row.Variant, num(row.KernelMs*1000, "%.2f"), hostCell,
			num(row.SpreadPct, "%.1f"), rate(row.GBps), num(pct, "%.1f"), num(row.SpeedUp, "%.2fx"), num(row.Step, "%.2fx"), check)
	}
}

// sweep: a row a size, a column a variant's GB/s, or its kernel us where the variants move unlike
// bytes (report.SameBytes: a sort's network and radix); a refused or failed cell: -.
func sweep(b *strings.Builder, group []*report.Report) {
	cell, unit := func(row report.Row) string { return rate(row.GBps) }, "GB/s"
	if !report.SameBytes(group) {
		cell, unit = func(row report.Row) string {
			if math.IsNaN(float64(row.KernelMs)) { // (a host row: no kernel)
				return "-"
			}
			return micro(float64(row.KernelMs) * 1e3)
		}, "kernel us"
	}
	var variants []string
	seen := map[string]bool{}
	for _, r := range group {
		for _, row := range r.Rows {
			if !seen[row.Variant] {
				seen[row.Variant] = true
				variants = append(variants, row.Variant)
			}
		}
	}
	fmt.Fprintf(b, "%s\n\n| n | %s |\n|%s\n", unit, strings.Join(variants, " | "), strings.Repeat(" --- |", len(variants)+1))
	for _, r := range group {
		cells := make([]string, len(variants))
		for i, v := range variants {
			cells[i] = "-"
			for _, row := range r.Rows {
				if row.Variant == v && row.Refused == "" && row.Pass {
					cells[i] = cell(row)
				}
			}
		}
		fmt.Fprintf(b, "| %s | %s |\n", power(r.N), strings.Join(cells, " | "))
	}
}

// rate: GB/s with three figures at most
func rate(x report.Num) string {
	switch {
	case x < 10:
		return num(x, "%.2f")
	case x < 100:
		return num(x, "%.1f")
	}
	return num(x, "%.0f")
}

// power: n as 2^k where it is one (2^k + 5 as such), 10^k from 10^3, else the number.
func power(n int64) string {
	if n >= 1000 {
		k, m := 0, n
		for ; m%10 == 0; m /= 10 {
			k++
		}
		if m == 1 {
			return fmt.Sprintf("10^%d", k)
		}
	}
	for _, off := range []int64{0, 5} {
		if m := n - off; m > 0 && m&(m-1) == 0 {
			k := 0
			for ; m > 1; m >>= 1 {
				k++
			}
			if off == 0 {
				return fmt.Sprintf("2^%d", k)
			}
			return fmt.Sprintf("2^%d + %d", k, off)
		}
	}
	return fmt.Sprint(n)
}
