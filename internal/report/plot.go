package report

import (
	"fmt"
	"html"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
)

// The pictures -plot draws, in SVG (standard library only), 800 px wide:
//   - a sweep (several sizes): GB/s against n on a log scale, a line a variant, the copy ceiling
//     as a horizontal line, and where the inputs stop fitting the card's L2 a vertical one; where
//     the variants move unlike bytes (a sort's network and radix), millions of items a second and
//     no copy line;
//   - one size: the variants as bars in table order, GB/s with each step's speed-up written on
//     its bar (the lecture's staircase), and the copy ceiling as a line.

const (
	plotW, plotH                       = 800, 480
	marginL, marginR, marginT, marginB = 70, 20, 56, 70
)

var palette = []string{"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"}

// WriteSVG draws the reports (one size: bars; several: lines) with their card and parameters in
// the title. l2Bytes (0: unknown) marks where a sweep's inputs stop fitting L2.
func WriteSVG(w io.Writer, reports []*Report, l2Bytes float64) error {
	return picture(w, reports, l2Bytes, "")
}

// WriteCounterSVG draws one size's variants as bars of a hardware counter (a CounterKeys key)
// in place of GB/s: the lecture's second table as a picture.
func WriteCounterSVG(w io.Writer, r *Report, counter string) error {
	if CounterTitle(counter) == "" {
		return fmt.Errorf("no counter %q", counter)
	}
	return picture(w, []*Report{r}, 0, counter)
}

func picture(w io.Writer, reports []*Report, l2Bytes float64, counter string) error {
	if len(reports) == 0 {
		return fmt.Errorf("nothing to plot")
	}
	var b strings.Builder
	r0 := reports[0]
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n", plotW, plotH, plotW, plotH)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="white"/>`+"\n")
	title := r0.Program
	if len(reports) == 1 {
		title += fmt.Sprintf(", n = %s %s", humanCount(r0.N), r0.Unit)
	} else {
		lo, hi := r0.N, r0.N
		for _, r := range reports {
			lo, hi = min64(lo, r.N), max64(hi, r.N)
		}
		title += fmt.Sprintf(", n = %s .. %s %s", humanCount(lo), humanCount(hi), r0.Unit)
	}
	fmt.Fprintf(&b, `<text x="%d" y="22" font-size="16" font-weight="bold">%s</text>`+"\n", marginL, esc(title))
	devices := cards(reports)
	sub := devices[0]
	if len(devices) > 1 {
		sub = strings.Join(devices[:len(devices)-1], ", ") + " and " + devices[len(devices)-1]
	}
	if r0.Params != "" {
		sub += "; " + r0.Params
	}
	fmt.Fprintf(&b, `<text x="%d" y="40" fill="#555">%s</text>`+"\n", marginL, esc(sub))
	var err error
	switch {
	case len(reports) == 1:
		err = bars(&b, r0, counter)
	case len(devices) == len(reports) && sameN(reports):
		return fmt.Errorf("one size on %d cards: a size's bars are drawn for one card at a time", len(reports))
	default:
		err = lines(&b, reports, l2Bytes)
	}
	if err != nil {
		return err
	}
	b.WriteString("</svg>\n")
	_, err = io.WriteString(w, b.String())
	return err
}

func esc(s string) string { return html.EscapeString(s) }

// humanCount writes n as 2^k where it is a power of two, else as it is.
func humanCount(n int64) string {
	if n > 0 && n&(n-1) == 0 {
		return fmt.Sprintf("2^%d", int(math.Log2(float64(n))))
	}
	return fmt.Sprint(n)
}

// yAxis draws the GB/s axis (or what label names) from 0 to top and returns the y of a value.
func yAxis(b *strings.Builder, top float64, label string) func(float64) float64 {
	y := func(v float64) float64 {
		return float64(plotH-marginB) - v/top*float64(plotH-marginT-marginB)
	}
	step := niceStep(top / 5)
	for v := 0.0; v <= top+1e-9; v += step {
		fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#e5e5e5"/>`+"\n", marginL, plotW-marginR, y(v), y(v))
		fmt.Fprintf(b, `<text x="%d" y="%.1f" text-anchor="end" dominant-baseline="middle">%s</text>`+"\n", marginL-6, y(v), tick(v))
	}
	if label == "" {
		label = "GB/s (bytes the variant must move / kernel time)"
	}
	fmt.Fprintf(b, `<text transform="translate(18 %d) rotate(-90)" text-anchor="middle">%s</text>`+"\n",
		(plotH-marginB+marginT)/2, esc(label))
	return y
}

func niceStep(x float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*p >= x {
			return m * p
		}
	}
	return 10 * p
}

// copyLine draws the copy ceiling across the plot, labelled "LABEL: N GB/s".
func copyLine(b *strings.Builder, y func(float64) float64, copyGBps float64, label string) {
	if math.IsNaN(copyGBps) || copyGBps <= 0 {
		return
	}
	fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="black" stroke-dasharray="6 4"/>`+"\n", marginL, plotW-marginR, y(copyGBps), y(copyGBps))
	fmt.Fprintf(b, `<text x="%d" y="%.1f">%s: %.0f GB/s</text>`+"\n", marginL+6, y(copyGBps)-5, esc(label), copyGBps)
}

// bars draws one size's variants: GB/s with each step's speed-up, or a counter's values
// (counter, a CounterKeys key).
func bars(b *strings.Builder, r *Report, counter string) error {
	value := func(row Row) float64 { return float64(row.GBps) }
	if counter != "" {
		value = func(row Row) float64 {
			if row.Counters == nil {
				return math.NaN()
			}
			return row.Counters.Value(counter)
		}
	}
	var rows []Row
	top := zeroIfNaN(float64(r.CopyGBps))
	if counter != "" {
		top = 0
	}
	for _, row := range r.Rows {
		if row.Refused == "" && !math.IsNaN(value(row)) {
			rows = append(rows, row)
			top = math.Max(top, value(row))
		}
	}
	if len(rows) == 0 || math.IsNaN(top) {
		return fmt.Errorf("no variant has a rate to plot")
	}
	if top <= 0 {
		if counter == "" {
			return fmt.Errorf("no variant has a rate to plot")
		}
		top = 1 // (a counter that is 0 in every row: flat bars)
	}
	label := ""
	if counter != "" {
		label = CounterTitle(counter) + " (Nsight Compute, one run)"
	}
	y := yAxis(b, top*1.18, label)
	if counter == "" {
		copyLine(b, y, float64(r.CopyGBps), "device copy, same run")
	}
	slot := float64(plotW-marginL-marginR) / float64(len(rows))
	for i, row := range rows {
		x := float64(marginL) + slot*float64(i) + slot*0.15
		v := value(row)
		color := colorOf(row.Variant, -1)
		fmt.Fprintf(b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s"/>`+"\n", x, y(v), slot*0.7, y(0)-y(v), color)
		// the rate and the step inside the bar's top where it is tall enough (above it they
		// would cross the copy line), else above it
		cx, top, fill := x+slot*0.35, y(v)+14, "white"
		if y(0)-y(v) < 36 {
			top, fill = y(v)-17, "black"
		}
		fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="11" fill="%s">%s</text>`+"\n", cx, top, fill, barText(v, counter))
		if counter == "" && !math.IsNaN(float64(row.Step)) {
			fmt.Fprintf(b, `<text x="%.1f" y="%.1f" text-anchor="middle" font-size="11" fill="%s">x%.2f</text>`+"\n", cx, top+13, fill, float64(row.Step))
		}
		fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", x+slot*0.35, plotH-marginB+16, esc(row.Variant))
	}
	fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="middle">variant, in the table's order (x: the speed-up over the bar before it, the lecture's step)</text>`+"\n",
		(plotW+marginL-marginR)/2, plotH-marginB+40)
	return nil
}

// SameBytes: every variant of every size moves about the same bytes (within 10%: a reduction's
// partials), so that their GB/s compare the same work; a sort's network counts each of its passes,
// radix and CUB the keys once.
func SameBytes(reports []*Report) bool {
	for _, r := range reports {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, row := range r.Rows {
			if row.Refused == "" && row.Bytes > 0 { // (0 or NaN: not counted)
				lo, hi = math.Min(lo, float64(row.Bytes)), math.Max(hi, float64(row.Bytes))
			}
		}
		if hi > 1.1*lo {
			return false
		}
	}
	return true
}

func sameN(reports []*Report) bool {
	for _, r := range reports {
		if r.N != reports[0].N {
			return false
		}
	}
	return true
}

// cards are the reports' devices, in order of first appearance.
func cards(reports []*Report) []string {
	var out []string
	seen := map[string]bool{}
	for _, r := range reports {
		if !seen[r.Device] {
			seen[r.Device] = true
			out = append(out, r.Device)
		}
	}
	return out
}

// cardName is a device's short name for a legend: "NVIDIA H100 80GB HBM3" -> "H100".
func cardName(device string) string {
	f := strings.Fields(strings.NewReplacer("NVIDIA ", "", "GeForce ", "", "Tesla ", "").Replace(device))
	switch {
	case len(f) == 0:
		return device
	case len(f) > 1 && (f[0] == "RTX" || f[0] == "GTX"):
		return f[0] + " " + f[1]
	}
	return f[0]
}

func min64(a, b int64) int64 {
	if a < b {
		return a
	}
	return b
}

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}

// lines draws a sweep: GB/s against n, or, where the variants must move different bytes for the
// same n, millions of items a second (n / kernel time), which then compares them; a line a variant,
// and where the reports come from several cards (plot's several files), a line a variant and card,
// each card dashed its own way and its copy and L2 marked with its name.
func lines(b *strings.Builder, reports []*Report, l2Bytes float64) error {
	type point struct{ n, v float64 }
	rate := func(row Row) float64 { return float64(row.GBps) }
	label := ""
	if !SameBytes(reports) {
		rate = func(row Row) float64 { return float64(row.MItemsPS) }
		label = fmt.Sprintf("millions of %s a second (n / kernel time)", reports[0].Unit)
	}
	devices := cards(reports)
	card := map[string]int{}
	for i, d := range devices {
		card[d] = i
	}
	type line struct {
		variant string
		card    int
	}
	series := map[line][]point{}
	var order []line
	var variants []string // (a variant's colour: its place among them)
	top := 0.0
	copyGBps := make([]float64, len(devices))
	l2 := make([]float64, len(devices)) // each card's L2, and the first n whose inputs pass it
	l2At := make([]float64, len(devices))
	for i := range devices {
		copyGBps[i], l2At[i] = math.NaN(), math.NaN()
	}
	l2[0] = l2Bytes
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, r := range reports {
		c := card[r.Device]
		if !math.IsNaN(float64(r.CopyGBps)) {
			copyGBps[c] = math.Max(float64(r.CopyGBps), zeroIfNaN(copyGBps[c]))
		}
		if c > 0 && r.L2Bytes > 0 {
			l2[c] = r.L2Bytes
		}
		n := float64(r.N)
		lo, hi = math.Min(lo, n), math.Max(hi, n)
		least := math.Inf(1)
		for _, row := range r.Rows {
			v := rate(row)
			if row.Refused != "" || math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			key := line{row.Variant, c}
			if _, ok := series[key]; !ok {
				order = append(order, key)
				if !contains(variants, row.Variant) {
					variants = append(variants, row.Variant)
				}
			}
			series[key] = append(series[key], point{n, v})
			top = math.Max(top, v)
			if row.Bytes > 0 {
				least = math.Min(least, float64(row.Bytes))
			}
		}
		if l2[c] > 0 && math.IsNaN(l2At[c]) && !math.IsInf(least, 1) && least > l2[c] { // (the least a variant moves: its inputs and output)
			l2At[c] = n
		}
	}
	if len(order) == 0 || lo >= hi || !(top > 0) {
		return fmt.Errorf("a sweep needs rates at two sizes or more")
	}
	highestCopy := 0.0
	for i := range copyGBps {
		if label != "" {
			copyGBps[i] = math.NaN() // (no copy line on a scale of items)
		}
		highestCopy = math.Max(highestCopy, zeroIfNaN(copyGBps[i]))
	}
	top = math.Max(top, highestCopy) * 1.12
	y := yAxis(b, top, label)
	x := func(n float64) float64 {
		return float64(marginL) + (math.Log2(n)-math.Log2(lo))/(math.Log2(hi)-math.Log2(lo))*float64(plotW-marginL-marginR)
	}
	for k := math.Ceil(math.Log2(lo)); k <= math.Log2(hi); k += 2 {
		xv := x(math.Pow(2, k))
		fmt.Fprintf(b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#e5e5e5"/>`+"\n", xv, xv, marginT, plotH-marginB)
		fmt.Fprintf(b, `<text x="%.1f" y="%d" text-anchor="middle">2^%.0f</text>`+"\n", xv, plotH-marginB+16, k)
	}
	fmt.Fprintf(b, `<text x="%d" y="%d" text-anchor="middle">n (%s, log scale)</text>`+"\n", (plotW+marginL-marginR)/2, plotH-marginB+40, esc(reports[0].Unit))
	names := make([]string, len(devices)) // short names, or where two would read alike the devices'
	seen := map[string]bool{}
	for c, d := range devices {
		names[c] = cardName(d)
		if seen[names[c]] {
			for k, d := range devices {
				names[k] = strings.TrimPrefix(d, "NVIDIA ")
			}
			break
		}
		seen[names[c]] = true
	}
	named := func(what string, c int) string { // "device copy" alone, or with the card's name
		if len(devices) == 1 {
			return what
		}
		return what + ", " + names[c]
	}
	for c := range devices {
		copyLine(b, y, copyGBps[c], named("device copy, same run", c))
		if !math.IsNaN(l2At[c]) {
			xv := x(l2At[c])
			fmt.Fprintf(b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#888" stroke-dasharray="2 3"/>`+"\n", xv, xv, marginT, plotH-marginB)
			fmt.Fprintf(b, `<text x="%.1f" y="%d" fill="#555">%s</text>`+"\n", xv+4, marginT+12+14*c, esc(named(fmt.Sprintf("inputs past L2 (%.0f MiB)", l2[c]/(1<<20)), c)))
		}
	}
	// best drawn last, over a line it may share (best is radix where it chose radix), its place in
	// the legend and its colour kept
	drawn := make([]int, len(order))
	for i := range drawn {
		drawn[i] = i
	}
	sort.SliceStable(drawn, func(a, c int) bool { return order[drawn[a]].variant != "best" && order[drawn[c]].variant == "best" })
	dashes := []string{"", ` stroke-dasharray="8 4"`, ` stroke-dasharray="2 3"`, ` stroke-dasharray="10 3 2 3"`}
	for _, i := range drawn {
		key := order[i]
		pts := series[key]
		sort.Slice(pts, func(a, c int) bool { return pts[a].n < pts[c].n })
		var path []string
		for _, p := range pts {
			path = append(path, fmt.Sprintf("%.1f,%.1f", x(p.n), y(p.v)))
		}
		color, dash := colorOf(key.variant, index(variants, key.variant)), dashes[key.card%len(dashes)]
		fmt.Fprintf(b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="2"%s/>`+"\n", strings.Join(path, " "), color, dash)
		for _, p := range pts {
			fmt.Fprintf(b, `<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>`+"\n", x(p.n), y(p.v), color)
		}
		// the legend in the upper left, above the small sizes' lines (rates grow with n) and below both
		// the highest rate and every copy line's label (a sweep's L2-resident sizes can pass the copy)
		below := y(top / 1.12)
		for _, g := range copyGBps {
			if g > 0 {
				below = math.Max(below, y(g))
			}
		}
		lx, ly := marginL+12, int(below)+28+16*i
		fmt.Fprintf(b, `<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="%s" stroke-width="3"%s/>`+"\n", lx, lx+20, ly, ly, color, dash)
		fmt.Fprintf(b, `<text x="%d" y="%d" dominant-baseline="middle">%s</text>`+"\n", lx+26, ly, esc(named(key.variant, key.card)))
	}
	return nil
}

func contains(list []string, s string) bool { return index(list, s) >= 0 }

func index(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// colorOf: best red, the libraries green, cpu grey in every picture; the lecture's variants blue
// in bars (i < 0), or the rest of the palette in turn in a sweep's lines.
func colorOf(variant string, i int) string {
	switch {
	case strings.HasPrefix(variant, "best"):
		return palette[1]
	case variant == "cub" || variant == "npp":
		return palette[2]
	case variant == "cpu":
		return palette[8]
	case i < 0:
		return palette[0]
	}
	others := []string{palette[0], palette[3], palette[4], palette[5], palette[6], palette[7], palette[9]}
	return others[i%len(others)]
}

// barText is a bar's figure: GB/s whole, a counter as tick writes it (a % to a tenth).
func barText(v float64, counter string) string {
	if counter == "" {
		return fmt.Sprintf("%.0f", v)
	}
	return tick(math.Round(v*10) / 10)
}

// tick writes an axis or bar value: %g below a million, else with an SI suffix (2.1M, 3G).
func tick(v float64) string {
	for _, u := range []struct {
		s string
		f float64
	}{{"T", 1e12}, {"G", 1e9}, {"M", 1e6}} {
		if math.Abs(v) >= u.f {
			return strconv.FormatFloat(v/u.f, 'g', 3, 64) + u.s
		}
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

func zeroIfNaN(x float64) float64 {
	if math.IsNaN(x) {
		return 0
	}
	return x
}
