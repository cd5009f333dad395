package main

import (
	"archive/tar"
	"compress/gzip"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

const table = `redukcija  n=1000000  seed=1  reps=50  device: NVIDIA H100 80GB HBM3
device-to-device copy (read+write, 256 MiB): 2980 GB/s; inputs host-to-device: 1029.4 us
  variant  threads  blocks  kernel us  GB/s  Melements/s  % copy  d2h us  host us  total us  speed-up  step     result  rel. error  tolerance  check  and more columns past the hundred and twentieth
     best      512     123       5.22   767       191718    25.7    9.92     0.00     15.14      1.00     -  11.676239     8.9e-07    1.0e-01   PASS
      cub        -       -       6.91   579       144676    19.4    9.63     0.00     16.54      0.75  0.75  11.676346     8.3e-06    3.2e-01   PASS
speed-up and step: kernel + host time (the copy back, the same outputs for every variant, left out)
`

func TestSummary(t *testing.T) {
	lines := strings.Split(table, "\n")
	cases := []struct {
		output string
		code   int
		want   []string
	}{
		{table, 0, []string{lines[1], lines[2][:120], lines[3][:120], lines[4][:120]}},
		{"razdalja: -threads 100: not a multiple of 32\nusage: ...\n", 2,
			[]string{"    exit 2 (see the log)", "razdalja: -threads 100: not a multiple of 32"}},
		{"redukcija: no usable GPU: no NVIDIA driver found\n", 3,
			[]string{"    exit 3 (see the log)", "redukcija: no usable GPU: no NVIDIA driver found"}},
		{"", timedOut, []string{"    timed out after 5m0s (see the log)"}},
		{"razlika: no NVIDIA driver found (no GPU, or its driver is not installed).\nThe host version runs without one\n", 3,
			[]string{"    exit 3 (see the log)", "razlika: no NVIDIA driver found (no GPU, or its driver is not installed)."}},
	}
	for _, c := range cases {
		if got := summary(c.output, c.code, 5*time.Minute); !reflect.DeepEqual(got, c.want) {
			t.Errorf("summary(%.30q, %d) = %q, want %q", c.output, c.code, got, c.want)
		}
	}
}

func TestTargetVariants(t *testing.T) {
	cases := []struct{ prog, args, want string }{
		{"razdalja", "-n 2^28", "all"},
		{"razlika", "-n 2^28", "best"},
		{"konvolucija", "-width 8192 -height 8192", "best"},
		{"konvolucija", "-width 8192 -height 8192 -border replicate -type uint8", "best,npp"},
		{"redukcija", "-n 2^28 -op argmin", "best,cub"},
		{"urejanje", "-n 2^14", "best,cub"},
	}
	for _, c := range cases {
		if got := targetVariants(c.prog, c.args); got != c.want {
			t.Errorf("targetVariants(%q, %q) = %q, want %q", c.prog, c.args, got, c.want)
		}
	}
}

func TestParseLine(t *testing.T) {
	cases := []struct {
		line, prog string
		vars, args []string
	}{
		{"prefiks -n 2^28 -variant best,cub", "prefiks", nil, []string{"-n", "2^28", "-variant", "best,cub"}},
		{"TECAJ_X=1 TECAJ_Y=a=b  redukcija -op sum", "redukcija", []string{"TECAJ_X=1", "TECAJ_Y=a=b"}, []string{"-op", "sum"}},
		{"razlika", "razlika", nil, nil},
		{"lower=1 razlika", "lower=1", nil, []string{"razlika"}}, // (a variable is upper case, as run.sh took it)
	}
	for _, c := range cases {
		vars, prog, args := parseLine(c.line)
		if prog != c.prog || !reflect.DeepEqual(vars, c.vars) || !reflect.DeepEqual(args, c.args) {
			t.Errorf("parseLine(%q) = %q, %q, %q; want %q, %q, %q", c.line, vars, prog, args, c.vars, c.prog, c.args)
		}
	}
}

// rows is a run's output with best's and cub's kernel us.
func rows(best, cub string) string {
	return "  variant  threads  blocks  kernel us  GB/s\n" +
		"     best      512     123       " + best + "   767\n" +
		"      cub        -       -       " + cub + "   579\n"
}

// abTable is ab's table of bundles old (the base) and new: its rows, and the largest change (%).
func abTable(largest string, rows ...string) string {
	return "| line | old best us | new best us | library us (old, new) |\n|---|---|---|---|\n" + strings.Join(rows, "\n") +
		"\n\nlargest change against old: " + largest + "% (medians of each bundle's rounds)\n"
}

// The table holds each bundle's median (of an even count: the mean of the middle two), the change
// against the base, the library's medians, and the largest change; a line that only one bundle
// ran is a dash for the other.
func TestTable(t *testing.T) {
	tm := newTimes()
	tm.add("new", "redukcija -n 5", rows("4.00", "6.00"))
	tm.add("old", "redukcija -n 5", rows("5.00", "7.00"))
	tm.add("new", "redukcija -n 5", rows("5.00", "6.00"))
	tm.add("old", "redukcija -n 5", rows("5.00", "7.00"))
	tm.add("old", "razlika -n 7", "     best      512     123       2.00   767\n")
	want := abTable("10.0", "| `redukcija -n 5` | 5 | 4.5 (-10.0%) | 7, 6 |", "| `razlika -n 7` | 2 | - | - |")
	if got := tm.table(""); got != want {
		t.Errorf("table:\n%s\nwant:\n%s", got, want)
	}
	// the same runs read back from ab's log give the same table
	log := "--- new: redukcija -n 5\n" + rows("4.00", "6.00") + "--- old: redukcija -n 5\n" + rows("5.00", "7.00") +
		"--- new: redukcija -n 5\n" + rows("5.00", "6.00") + "--- old: redukcija -n 5\n" + rows("5.00", "7.00") +
		"--- old: razlika -n 7\n     best      512     123       2.00   767\n"
	back := newTimes()
	if err := back.readLog(strings.NewReader(log)); err != nil {
		t.Fatal(err)
	}
	if got := back.table(""); got != want {
		t.Errorf("table from the log:\n%s\nwant:\n%s", got, want)
	}
}

// A line without best compares its first variant, and a line over several GPUs best/Ngpu (not
// one GPU's best): the row names which.
func TestTableOfOtherVariants(t *testing.T) {
	tm := newTimes()
	for _, r := range []struct{ label, radix, multi string }{{"old", "5600.0", "2290.0"}, {"new", "5544.0", "2267.1"}} {
		tm.add(r.label, "urejanje -variant radix", "    radix      384   34953     "+r.radix+"  0.0\n")
		tm.add(r.label, "prefiks -gpus 4", "       best      256  131073     5945.7  0.1\n  best/4gpu        -       -     "+r.multi+"  0.2\n")
	}
	want := abTable("1.0", "| `urejanje -variant radix` (radix's row) | 5600 | 5544 (-1.0%) | - |",
		"| `prefiks -gpus 4` (best/4gpu's row) | 2290 | 2267 (-1.0%) | - |")
	if got := tm.table("old"); got != want {
		t.Errorf("table:\n%s\nwant:\n%s", got, want)
	}
}

// fakeBin writes programs as shell scripts into root/bin: name -> the script's body.
func fakeBin(t *testing.T, root string, progs map[string]string) string {
	t.Helper()
	dir := filepath.Join(root, "bin")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range progs {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("#!/bin/sh\n"+body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// A program that runs prints its rows; one without a GPU (exit 3) is a failure line with its
// reason, listed at the end, and the exit status is 1; the log keeps every whole output.
func TestTargets(t *testing.T) {
	bin := fakeBin(t, t.TempDir(), map[string]string{
		"razlika": `[ "$1" = -benchmarks ] && { echo "-n 1000000"; echo "-n 2^28"; exit 0; }
echo "razlika $*"; echo "device-to-device copy (read+write, 256 MiB): 2980 GB/s"; echo "     best      512     123       5.22   767"`,
		"redukcija": `[ "$1" = -benchmarks ] && { echo "-n 5 -op sum"; exit 0; }
echo "redukcija: no usable GPU: no NVIDIA driver found (no GPU, or its driver is not installed)" >&2; exit 3`,
	})
	out := t.TempDir()
	var term strings.Builder
	code := run("targets", []string{"-bin", bin, "-out", out}, &term)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	for _, want := range []string{
		"--- razlika -variant best -n 1000000\ndevice-to-device copy",
		"     best      512     123       5.22   767\n--- razlika -variant best -n 2^28\n",
		"--- redukcija -variant best,cub -n 5 -op sum\n    exit 3 (see the log)\nredukcija: no usable GPU",
		"FAILED: redukcija -variant best,cub -n 5 -op sum\n",
	} {
		if !strings.Contains(term.String(), want) {
			t.Errorf("the terminal lacks %q:\n%s", want, term.String())
		}
	}
	log, err := os.ReadFile(filepath.Join(out, "gpu-run-targets.log"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), "razlika -variant best -n 2^28\n") || !strings.Contains(string(log), "no usable GPU") {
		t.Errorf("the log lacks a whole output:\n%s", log)
	}
	// only the named programs, all passing
	term.Reset()
	if code := run("targets", []string{"-bin", bin, "-out", out, "razlika"}, &term); code != 0 || !strings.HasSuffix(term.String(), "all steps passed\n") {
		t.Errorf("targets razlika: exit %d:\n%s", code, term.String())
	}
}

// tables writes each line's -csv into tables.tgz, named PROGRAM-K.csv.
func TestTables(t *testing.T) {
	bin := fakeBin(t, t.TempDir(), map[string]string{
		"prefiks": `[ "$1" = -benchmarks ] && { echo "-n 1"; echo "-n 2"; exit 0; }
[ "$1" = -info ] && { echo "prefiks kernels"; exit 0; }
while [ $# -gt 1 ]; do [ "$1" = -csv ] && echo "csv of $*" > "$2"; shift; done`,
	})
	out := t.TempDir()
	var term strings.Builder
	if code := run("tables", []string{"-bin", bin, "-out", out}, &term); code != 0 {
		t.Fatalf("exit %d:\n%s", code, term.String())
	}
	files := readTgz(t, filepath.Join(out, "tables.tgz"))
	if len(files) != 2 || !strings.HasSuffix(files["prefiks-1.csv"], "/prefiks-1.csv\n") || !strings.HasSuffix(files["prefiks-2.csv"], "/prefiks-2.csv\n") {
		t.Errorf("tables.tgz holds %q, want prefiks-1.csv and prefiks-2.csv, each its line's -csv", files)
	}
	if !strings.Contains(term.String(), "prefiks kernels") {
		t.Errorf("no -info in:\n%s", term.String())
	}
}

// multi runs each program over each count of GPUs at both sizes, each line's -csv into multi.tgz;
// a count outside 2..8 is refused before anything runs.
func TestMulti(t *testing.T) {
	write := `while [ $# -gt 1 ]; do [ "$1" = -csv ] && echo "$0 csv" > "$2"; shift; done`
	bin := fakeBin(t, t.TempDir(), map[string]string{"redukcija": write, "razdalja": write, "prefiks": write})
	out := t.TempDir()
	var term strings.Builder
	if code := run("multi", []string{"-bin", bin, "-out", out, "2", "4"}, &term); code != 0 {
		t.Fatalf("exit %d:\n%s", code, term.String())
	}
	files := readTgz(t, filepath.Join(out, "multi.tgz"))
	for _, prog := range multiPrograms {
		for _, name := range []string{"-2gpu.csv", "-4gpu.csv", "-2gpu-1e6.csv", "-4gpu-1e6.csv"} {
			if !strings.HasSuffix(files[prog+name], "/"+prog+" csv\n") {
				t.Errorf("multi.tgz's %s%s is %q", prog, name, files[prog+name])
			}
		}
	}
	if len(files) != 12 || !strings.Contains(term.String(), "--- prefiks -gpus 4 -n 2^31+5 -reps 30 -csv") {
		t.Errorf("%d files; the terminal:\n%s", len(files), term.String())
	}
	if code := run("multi", []string{"-bin", bin, "-out", out, "1"}, &term); code != 1 {
		t.Errorf("multi 1: exit %d, want 1", code)
	}
}

// pictures NAME runs only the pictures whose names start with it, each writing its .svg and .csv
// into images.tgz; a name that starts none is refused before anything runs.
func TestPicturesByName(t *testing.T) {
	write := `while [ $# -gt 1 ]; do case "$1" in -plot|-csv) echo "$0" > "$2";; esac; shift; done`
	bin := fakeBin(t, t.TempDir(), map[string]string{"urejanje": write, "redukcija": write})
	out := t.TempDir()
	var term strings.Builder
	if code := run("pictures", []string{"-bin", bin, "-out", out, "urejanje"}, &term); code != 0 {
		t.Fatalf("exit %d:\n%s", code, term.String())
	}
	files := readTgz(t, filepath.Join(out, "images.tgz"))
	if len(files) != 4 || files["images/urejanje-sweep.svg"] == "" || files["images/urejanje-pairs-sweep.csv"] == "" {
		t.Errorf("images.tgz holds %q, want the two sorts' sweeps only", files)
	}
	for _, names := range [][]string{{"sort"}, {"urejanje", "sort"}} { // (a name that matches none: bad usage, nothing run)
		term.Reset()
		if code := run("pictures", append([]string{"-bin", bin, "-out", out}, names...), &term); code != 2 {
			t.Errorf("pictures %v: exit %d, want 2", names, code)
		}
		if _, err := choosePictures(names, false); err == nil || !strings.Contains(err.Error(), "none is named sort (they are redukcija-staircase,") {
			t.Errorf("pictures %v: %v", names, err)
		}
	}
}

// ab runs each line by both bundles, rounds interleaved, the other bundle's commands with its own
// library, and ends with the table.
func TestAB(t *testing.T) {
	prog := `echo "$LD_LIBRARY_PATH" | cut -d: -f1 >> "$(dirname "$0")/../runs"
echo "     best      512     123       %s   767"`
	here := fakeBin(t, t.TempDir(), map[string]string{"razlika": strings.Replace(prog, "%s", "4.00", 1)})
	otherDir := filepath.Join(t.TempDir(), "gpu-bundle-old")
	fakeBin(t, otherDir, map[string]string{"razlika": strings.Replace(prog, "%s", "5.00", 1)})
	lines := filepath.Join(t.TempDir(), "x.lines")
	if err := os.WriteFile(lines, []byte("# a comment\nTECAJ_X=1 razlika -n 9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	var term strings.Builder
	if code := run("ab", []string{"-bin", here, "-out", out, "-name", "new", lines, otherDir}, &term); code != 0 {
		t.Fatalf("exit %d:\n%s", code, term.String())
	}
	var order []string
	for _, line := range strings.Split(term.String(), "\n") {
		if strings.HasPrefix(line, "--- ") {
			order = append(order, line)
		}
	}
	want := []string{"--- new: TECAJ_X=1 razlika -n 9", "--- gpu-bundle-old: TECAJ_X=1 razlika -n 9"}
	if !reflect.DeepEqual(order, append(want, want...)) {
		t.Errorf("runs %q, want %q twice", order, want)
	}
	if !strings.Contains(term.String(), "| `TECAJ_X=1 razlika -n 9` | 5 | 4 (-20.0%) | - |") {
		t.Errorf("no table row in:\n%s", term.String())
	}
	runs, err := os.ReadFile(filepath.Join(otherDir, "runs"))
	if err != nil || !strings.HasSuffix(strings.Split(string(runs), "\n")[0], "/lib") {
		t.Errorf("the other bundle's runs had LD_LIBRARY_PATH %q (%v), want its lib first", runs, err)
	}
	if _, err := os.Stat(filepath.Join(out, "gpu-run-ab-x.log")); err != nil {
		t.Error(err)
	}
}

// A bundle's packed binaries unpack with their modes, and a path outside the folder is refused.
func TestUnpack(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, entries ...tar.Header) string {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		zw := gzip.NewWriter(f)
		tw := tar.NewWriter(zw)
		for _, h := range entries {
			h := h
			if err := tw.WriteHeader(&h); err != nil {
				t.Fatal(err)
			}
			if h.Size > 0 {
				tw.Write([]byte(strings.Repeat("x", int(h.Size))))
			}
		}
		tw.Close()
		zw.Close()
		f.Close()
		return path
	}
	good := write("good.tgz", tar.Header{Typeflag: tar.TypeDir, Name: "bin/", Mode: 0o755},
		tar.Header{Typeflag: tar.TypeReg, Name: "bin/razlika", Mode: 0o755, Size: 3})
	into := t.TempDir()
	if err := unpackTgz(good, into); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(filepath.Join(into, "bin/razlika")); err != nil || info.Mode().Perm() != 0o755 || info.Size() != 3 {
		t.Errorf("bin/razlika: %v, %v", info, err)
	}
	bad := write("bad.tgz", tar.Header{Typeflag: tar.TypeReg, Name: "../escape", Mode: 0o644, Size: 1})
	if err := unpackTgz(bad, t.TempDir()); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Errorf("unpacking ../escape: %v, want a refusal", err)
	}
}

// readTgz is a gzip'd tar's files: name -> contents.
func readTgz(t *testing.T, path string) map[string]string {
	t.Helper()
	dir := t.TempDir()
	if err := unpackTgz(path, dir); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{}
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && info.Mode().IsRegular() {
			data, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			files[rel] = string(data)
		}
		return nil
	})
	return files
}
