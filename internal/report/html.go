package report

import (
	"fmt"
	"html"
	"io"
	"strings"
)

// WriteHTML writes the reports as one self-contained page to share: inline CSS, the picture as
// inline SVG, no external resource. It holds the device, each size's timing table, the counters
// and the claims (with -counters), the picture (the staircase for one size, the sweep for
// several; a counter's bars with counter), and each variant's one-line summary (summaries, by
// name).
func WriteHTML(w io.Writer, reports []*Report, summaries map[string]string, counter string) error {
	if len(reports) == 0 {
		return fmt.Errorf("nothing to write")
	}
	r0 := reports[0]
	var b strings.Builder
	e := html.EscapeString
	title := r0.Program
	if len(reports) == 1 {
		title += fmt.Sprintf(", n = %s %s", humanCount(r0.N), r0.Unit)
	} else {
		title += fmt.Sprintf(", n = %s .. %s %s", humanCount(r0.N), humanCount(reports[len(reports)-1].N), r0.Unit)
	}
	fmt.Fprintf(&b, `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>%s</title>
<style>
body{font-family:sans-serif;margin:2em;color:#222;max-width:1400px}
table{border-collapse:collapse;margin:0.5em 0 1em;font-size:13px}
th,td{padding:2px 8px;text-align:right;border-bottom:1px solid #ddd;white-space:nowrap}
th{background:#f3f3f3}
td:first-child,th:first-child,td.text{text-align:left}
td.note{text-align:left;white-space:normal;color:#555}
.seen{color:#1a7f37}.notseen{color:#b35900}.fail{color:#c00;font-weight:bold}
.meta{color:#555}
</style></head><body>
<h1>%s</h1>
`, e(title), e(title))
	fmt.Fprintf(&b, "<p class=\"meta\" id=\"device\">device: %s", e(r0.Device))
	if r0.Params != "" {
		fmt.Fprintf(&b, "; %s", e(r0.Params))
	}
	fmt.Fprintf(&b, "; seed %d", r0.Seed)
	if r0.Commit != "" {
		fmt.Fprintf(&b, "; commit %s", e(r0.Commit))
	}
	if r0.Date != "" {
		fmt.Fprintf(&b, "; %s", e(r0.Date))
	}
	b.WriteString("</p>\n")
	var pic strings.Builder
	if err := writePicture(&pic, reports, counter); err == nil {
		fmt.Fprintf(&b, "<figure>%s</figure>\n", pic.String())
	} else {
		fmt.Fprintf(&b, "<p class=\"meta\">no picture: %s</p>\n", e(err.Error()))
	}
	for _, r := range reports {
		fmt.Fprintf(&b, "<h2>%s</h2>\n", e(r.heading()))
		if line := r.copyLine(); line != "" {
			fmt.Fprintf(&b, "<p class=\"meta\">%s</p>\n", e(line))
		}
		cells, noisy := r.tableCells()
		htmlTable(&b, "timing", cells, func(cell string) string {
			switch cell {
			case "FAIL", "WRONG":
				return "fail"
			}
			return ""
		})
		var notes []string
		if noisy {
			notes = append(notes, noisyLine)
		}
		notes = append(notes, r.extra...)
		for _, n := range notes {
			fmt.Fprintf(&b, "<p class=\"meta\">%s</p>\n", e(n))
		}
		if r.CountersNote != "" {
			fmt.Fprintf(&b, "<p class=\"notseen\">counters: %s</p>\n", e(r.CountersNote))
		} else if r.hasCounters() {
			b.WriteString("<h3>Hardware counters of one run (Nsight Compute; summed over its kernels)</h3>\n")
			htmlTable(&b, "counters", r.counterCells(), func(string) string { return "" })
		}
		if len(r.Claims) > 0 {
			b.WriteString("<h3>The lecture's claims, on this GPU</h3>\n<table class=\"claims\">\n")
			for _, c := range r.Claims {
				class := map[string]string{"seen": "seen", "not seen on this GPU": "notseen"}[c.Seen]
				fmt.Fprintf(&b, "<tr><td class=\"text\">%s</td><td class=\"text %s\">%s</td><td class=\"text\">%s</td></tr>\n",
					e(c.Claim), class, e(c.Seen), e(c.Measured))
			}
			b.WriteString("</table>\n")
		}
	}
	b.WriteString("<h2>Variants</h2>\n<table class=\"summaries\">\n")
	seen := map[string]bool{}
	for _, r := range reports {
		for _, row := range r.Rows {
			if seen[row.Variant] {
				continue
			}
			seen[row.Variant] = true
			fmt.Fprintf(&b, "<tr><td class=\"text\">%s</td><td class=\"note\">%s</td></tr>\n", e(row.Variant), e(summaries[row.Variant]))
		}
	}
	b.WriteString("</table>\n</body></html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// htmlTable writes cells (the first line the header) as a table; a line's last cell is its note.
func htmlTable(b *strings.Builder, class string, cells [][]string, cellClass func(string) string) {
	fmt.Fprintf(b, "<table class=%q>\n", class)
	for i, line := range cells {
		b.WriteString("<tr>")
		for j, cell := range line {
			cell = strings.TrimSpace(cell)
			switch {
			case i == 0:
				fmt.Fprintf(b, "<th>%s</th>", html.EscapeString(cell))
			case j == len(line)-1 && len(line) < len(cells[0]): // (a short line: its note spans the rest)
				fmt.Fprintf(b, "<td class=\"note\" colspan=\"%d\">%s</td>", len(cells[0])-j, html.EscapeString(cell))
			case j == len(line)-1:
				fmt.Fprintf(b, "<td class=\"note\">%s</td>", html.EscapeString(cell))
			default:
				if c := cellClass(cell); c != "" {
					fmt.Fprintf(b, "<td class=%q>%s</td>", c, html.EscapeString(cell))
				} else {
					fmt.Fprintf(b, "<td>%s</td>", html.EscapeString(cell))
				}
			}
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</table>\n")
}

// WriteHTMLFile writes WriteHTML's page to path, beside it first and renamed once whole.
func WriteHTMLFile(path string, reports []*Report, summaries map[string]string, counter string) error {
	return writeFile(path, "-html", func(w io.Writer) error { return WriteHTML(w, reports, summaries, counter) })
}
