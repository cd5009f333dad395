package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"tecaj/internal/cli/clitest"
)

// -html: checked before any work like -o; written whole, with every row, where the run needs no GPU.
func TestHTMLPage(t *testing.T) {
	dir := t.TempDir()
	for _, name := range clitest.Commands(t) {
		for _, c := range []struct{ path, want string }{
			{filepath.Join(dir, "x.txt"), "-html " + filepath.Join(dir, "x.txt") + ": the file must end in .html"},
			{filepath.Join(dir, "none", "x.html"), "-html " + filepath.Join(dir, "none", "x.html") + ": cannot write"},
		} {
			code, _, stderr := clitest.Run(t, name, "-variant", "cpu", "-n", "1000", "-html", c.path)
			if code != 2 || !strings.Contains(stderr, c.want) {
				t.Errorf("%s -html %s: exit %d %q, want 2 and %q", name, c.path, code, stderr, c.want)
			}
		}
		page := filepath.Join(dir, name+".HTML")
		code, stdout, stderr := clitest.Run(t, name, "-variant", "cpu", "-n", "1000", "-reps", "2", "-html", page)
		b, err := os.ReadFile(page)
		if code != 0 || err != nil {
			t.Fatalf("%s -html: exit %d, %v\n%s%s", name, code, err, stdout, stderr)
		}
		for _, s := range []string{"<!DOCTYPE html>", `<table class="timing">`, "<td>cpu</td>", "</html>"} {
			if !strings.Contains(string(b), s) {
				t.Errorf("%s's page lacks %q", name, s)
			}
		}
	}
}

// -counters on the GPU: both tables, or one line saying why there are no counters; the exit
// status as without it. Where ncu reads them, the claims that hold by construction are seen.
func TestCountersOnGPU(t *testing.T) {
	if reason := clitest.NoGPU(); reason != "" {
		t.Skip("no usable GPU: " + reason)
	}
	code, stdout, stderr := clitest.Run(t, "redukcija", "-n", "2^24", "-variant", "r0,r1,r2,r3,r4,r5,r6,cpu", "-reps", "3", "-counters")
	if code != 0 || !strings.Contains(stdout, "kernel us") {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	if strings.Contains(stdout, "counters: not read") {
		if n := strings.Count(stdout, "counters:"); n != 1 {
			t.Errorf("%d lines say why, want one:\n%s", n, stdout)
		}
		t.Skip("no counters on this host: " + stdout[strings.Index(stdout, "counters: not read"):])
	}
	for _, s := range []string{"hardware counters of one run", "divergent branches", "the lecture's claims, on this GPU"} {
		if !strings.Contains(stdout, s) {
			t.Errorf("the output lacks %q:\n%s", s, stdout)
		}
	}
	// (the H100 shows these; r0's short if is predicated, not branched: 0 divergent branches in
	// both r0 and r1, a finding the table states, and r1 buys fewer instructions: no %)
	for _, claim := range []string{"r1: fewer instructions per warp than r0", "r2: fewer shared bank conflicts than r1",
		"r3: half the launched warps of r2", "r4: fewer instructions per warp than r3", "r5: fewer instructions per warp than r4",
		"r6: fewer launched warps than r5"} {
		if !regexp.MustCompile(regexp.QuoteMeta(claim) + ` +seen `).MatchString(stdout) {
			t.Errorf("%q is not seen:\n%s", claim, stdout)
		}
	}
	code, stdout, stderr = clitest.Run(t, "redukcija", "-n", "2^20+3", "-variant", "r0,r7,best,cub", "-reps", "3", "-counters", "-json")
	var r struct {
		Rows []struct {
			Variant  string
			Counters *struct {
				Kernels int     `json:"kernels"`
				Warps   float64 `json:"launched_warps"`
				DRAM    float64 `json:"dram_read_bytes"`
			}
		}
	}
	if err := json.Unmarshal([]byte(stdout), &r); code != 0 || err != nil || len(r.Rows) < 4 {
		t.Fatalf("-json: exit %d, %v, %d rows (want r0, r7, best and cub)\n%s%s", code, err, len(r.Rows), stdout, stderr)
	}
	for _, row := range r.Rows {
		if row.Counters == nil || row.Counters.Kernels < 1 || row.Counters.Warps < 1 || row.Counters.DRAM < 0.9*4*(1<<20) {
			t.Errorf("%s: counters %+v (it reads 4 MB)", row.Variant, row.Counters)
		}
	}
}

// Each program's claims (-list prints them) are its docs page's "What each step should change",
// line for line.
func TestClaimsAreDocumented(t *testing.T) {
	for _, name := range clitest.Commands(t) {
		_, stdout, _ := clitest.Run(t, name, "-list")
		var listed []string
		if i := strings.Index(stdout, "What each step should change"); i >= 0 {
			for _, line := range strings.Split(stdout[i:], "\n")[1:] {
				if strings.TrimSpace(line) != "" {
					listed = append(listed, strings.TrimSpace(line))
				}
			}
		}
		doc, err := os.ReadFile(filepath.Join("..", "..", "docs", name+".md"))
		if os.IsNotExist(err) {
			t.Skip("no docs folder beside the tests (prebuilt commands without the source)")
		}
		if err != nil {
			t.Fatal(err)
		}
		var documented []string
		if i := strings.Index(string(doc), "## What each step should change"); i >= 0 {
			for k, line := range strings.Split(string(doc[i:]), "\n") {
				if k > 0 && strings.HasPrefix(line, "## ") {
					break // (the section ends at the next heading)
				}
				if strings.HasPrefix(line, "- ") {
					text := strings.ReplaceAll(strings.TrimPrefix(line, "- "), "`", "")
					if j := strings.Index(text, " ("); j >= 0 {
						text = text[:j] // (the reason in brackets is the page's)
					}
					documented = append(documented, text)
				}
			}
		}
		if len(listed) == 0 || strings.Join(listed, "\n") != strings.Join(documented, "\n") {
			t.Errorf("%s: the command's claims\n%s\nthe docs page's\n%s", name, strings.Join(listed, "\n"), strings.Join(documented, "\n"))
		}
	}
}
