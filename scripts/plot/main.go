// Command plot draws a picture again from a run's -csv file (kept results: docs/results), as -plot
// draws it, optionally with some variants only: the pictures in docs/images come from it. Several
// files of one sweep run on different cards draw one picture, a line a variant and card.
//
//	go run ./scripts/plot -o docs/images/redukcija-sweep.svg [-variants best,r6,cub] [-l2 MiB] docs/results/redukcija-sweep.csv
//	go run ./scripts/plot -o docs/images/urejanje-sweep.svg docs/results/urejanje-sweep.csv H200-RUN.csv
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"tecaj/internal/report"
)

func main() {
	out := flag.String("o", "", "the .svg file to write")
	variants := flag.String("variants", "", "comma-separated variants to draw, in the file's order (default: every one)")
	l2 := flag.Float64("l2", 0, "the card's L2 in MiB, marked on a sweep where the inputs stop fitting (0: the file's l2_bytes, if any; with several files, the first file's card)")
	flag.Parse()
	if *out == "" || flag.NArg() < 1 {
		fmt.Fprintln(os.Stderr, "usage: plot -o FILE.svg [-variants a,b] [-l2 MiB] RESULTS.csv [MORE.csv: the same sweep on other cards]")
		os.Exit(2)
	}
	if err := run(*out, flag.Args(), *variants, *l2); err != nil {
		fmt.Fprintln(os.Stderr, "plot:", err)
		os.Exit(1)
	}
}

func run(out string, files []string, variants string, l2MiB float64) error {
	var reports []*report.Report
	for _, in := range files {
		f, err := os.Open(in)
		if err != nil {
			return err
		}
		some, err := report.ReadCSV(f)
		f.Close()
		if err != nil {
			return fmt.Errorf("%s: %v", in, err)
		}
		if len(reports) > 0 && len(some) > 0 && (some[0].Program != reports[0].Program || some[0].Params != reports[0].Params) {
			return fmt.Errorf("%s is %s %s, not %s %s: one picture draws one sweep", in, some[0].Program, some[0].Params,
				reports[0].Program, reports[0].Params)
		}
		for _, r := range reports { // (a picture's lines are told apart by card)
			if len(some) > 0 && r.Device == some[0].Device {
				return fmt.Errorf("%s and an earlier file both ran on %s: one picture draws one sweep a card", in, r.Device)
			}
		}
		reports = append(reports, some...)
	}
	if variants != "" {
		keep := map[string]bool{}
		for _, v := range strings.Split(variants, ",") {
			keep[v] = true
		}
		for _, r := range reports {
			var rows []report.Row
			for _, row := range r.Rows {
				if keep[row.Variant] {
					rows = append(rows, row)
				}
			}
			r.Rows = rows
		}
	}
	for _, r := range reports {
		if l2MiB > 0 && r.Device == reports[0].Device { // (-l2 is the first file's card's; the others keep their files')
			r.L2Bytes = l2MiB * (1 << 20)
		}
	}
	return report.WriteSVGFile(out, reports)
}
