package report

import (
	"bytes"
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// htmlReport is a run with every kind of row: timed, refused, a counter-example, the host's; with
// counters, claims and text that must be escaped.
func htmlReport() *Report {
	idx := int64(7)
	r := &Report{Program: "redukcija", Device: "NVIDIA H100 80GB HBM3", N: 1 << 24, Params: "-op sum -type float32", Seed: 1,
		Unit: "elements", ErrorKind: "rel. error", Scalar: true, CopyGBps: 2980, H2DMs: 5.2, Baseline: "r0",
		Commit: "abc123", Date: "2026-11-26T00:00:00Z", L2Bytes: 50 << 20}
	row := func(v string, ms float64) Row {
		return Row{Variant: v, Threads: 256, Blocks: 65536, KernelMs: Num(ms), SpreadPct: 0.4, D2HMs: 0.01, HostMs: 0,
			TotalMs: Num(ms + 0.01), Bytes: 1 << 26, Items: 1 << 24, Result: 8.25e6, Error: 1e-8, Tolerance: 1e-6, Pass: true,
			Counters: &Counters{Kernels: 2, Divergent: Num(1000 * ms), Conflicts: 10, ActivePct: 80, Warps: 524288, DRAMRead: 1 << 26,
				DRAMWrite: 1024, InstWarp: 40}}
	}
	r.Rows = []Row{row("r0", 0.2), row("r1", 0.15), RefusedRow("b1", "outside domain: n <= 1024 <threads>"),
		{Variant: "race", Threads: 256, Blocks: 4, KernelMs: 0.3, TotalMs: 0.31, Bytes: 1 << 26, Result: 3, Index: &idx,
			CounterExample: true, Note: "a data race & lost updates", Error: Num(math.NaN()), Tolerance: Num(math.NaN())},
		{Variant: "cpu", KernelMs: Num(math.NaN()), D2HMs: Num(math.NaN()), HostMs: 9, TotalMs: 9, Result: 8.25e6, Pass: true,
			Items: 1 << 24, CountersWhy: "runs on the host: no GPU counters"}}
	r.Derive()
	r.Check([]Claim{{Variant: "r1", Than: "r0", Counter: "divergent", Fewer: true}, {Variant: "r1", Than: "r0", Counter: "conflicts", Fewer: true}})
	return r
}

var summaries = map[string]string{"r0": "interleaved addressing <divergent>", "r1": "strided index", "b1": "one block",
	"race": "the lecture's race", "cpu": "the host"}

func TestHTMLIsSelfContained(t *testing.T) {
	var b bytes.Buffer
	if err := WriteHTML(&b, []*Report{htmlReport()}, summaries, ""); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, s := range []string{"<svg", "NVIDIA H100 80GB HBM3", `<table class="timing">`, `<table class="counters">`,
		"r1: fewer divergent branches than r0", "interleaved addressing &lt;divergent&gt;", "a data race &amp; lost updates", "WRONG"} {
		if !strings.Contains(page, s) {
			t.Errorf("the page lacks %q", s)
		}
	}
	// nothing loaded from elsewhere: no src or href, no url(), no <script>, no <link>
	if m := regexp.MustCompile(`(?i)\s(src|href)=|url\(|<script|<link`).FindString(page); m != "" {
		t.Errorf("the page loads something: %q", m)
	}
	// a sweep draws its lines; a counter's bars replace GB/s
	b.Reset()
	r2 := htmlReport()
	r2.N <<= 2
	if err := WriteHTML(&b, []*Report{htmlReport(), r2}, summaries, ""); err != nil || !strings.Contains(b.String(), "<polyline") {
		t.Errorf("a sweep's page: %v", err)
	}
	b.Reset()
	if err := WriteHTML(&b, []*Report{htmlReport()}, summaries, "divergent"); err != nil || !strings.Contains(b.String(), "divergent branches (Nsight Compute") {
		t.Errorf("a counter's bars: %v", err)
	}
}

// chromium is a headless browser's path, or the reason there is none.
func chromium() (string, string) {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "chrome-headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, ""
		}
	}
	return "", "no chromium on PATH (apt-get install -y chromium): the page's rendering is not checked"
}

// The page as a browser builds it: chromium loads the file headless and prints the DOM it made;
// every row of every table is there, the picture is an SVG element, and no resource failed.
func TestHTMLRendersInChromium(t *testing.T) {
	browser, why := chromium()
	if browser == "" {
		t.Skip(why)
	}
	path := filepath.Join(t.TempDir(), "run.html")
	r := htmlReport()
	if err := WriteHTMLFile(path, []*Report{r}, summaries, ""); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--user-data-dir="+t.TempDir(), "--enable-logging=stderr", "--v=0", "--dump-dom", "file://"+path)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	dom := stdout.String()
	for _, bad := range []string{"Failed to load resource", "Uncaught", "net::ERR_"} {
		if strings.Contains(stderr.String(), bad) {
			t.Errorf("chromium reports %q:\n%s", bad, stderr.String())
		}
	}
	if !strings.Contains(dom, "<svg") || !strings.Contains(dom, "</body>") {
		t.Fatalf("the DOM has no picture or no body:\n%.2000s", dom)
	}
	table := func(class string) string {
		i := strings.Index(dom, `<table class="`+class+`">`)
		if i < 0 {
			t.Fatalf("no %s table in the DOM", class)
		}
		return dom[i : i+strings.Index(dom[i:], "</table>")]
	}
	timing, counters, names := table("timing"), table("counters"), table("summaries")
	if got := strings.Count(timing, "<tr>"); got != len(r.Rows)+1 {
		t.Errorf("the timing table shows %d lines, want a header and %d rows", got, len(r.Rows))
	}
	for _, row := range r.Rows {
		if !strings.Contains(timing, "<td>"+row.Variant+"</td>") || !strings.Contains(names, ">"+row.Variant+"</td>") {
			t.Errorf("row %s is not shown in the timing table and the summaries", row.Variant)
		}
		if row.Counters != nil && !strings.Contains(counters, "<td>"+row.Variant+"</td>") {
			t.Errorf("row %s's counters are not shown", row.Variant)
		}
	}
	if !strings.Contains(dom, "r1: fewer divergent branches than r0") || !strings.Contains(dom, "not seen on this GPU") {
		t.Errorf("the claims are not shown")
	}
}
