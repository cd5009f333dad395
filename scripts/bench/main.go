// Command bench runs the programs' benchmark lines on a GPU host, from a folder of the commands
// (a GPU bundle's bin/, or a build's), and shows what each line printed: its copy line, its kernel
// rows, a refusal, its exit status. Each run's whole output goes to the log; a failed line is
// listed at the end, and the exit status is then 1.
//
//	bench targets [PROGRAM...]        each benchmark line once, best beside its library
//	bench tables [PROGRAM...]         every benchmark line, every variant; each line's -csv into OUT/tables.tgz
//	bench ab LINES|targets BUNDLE...  each line of LINES ("[VAR=VALUE...] PROGRAM ARGS") run by this
//	                                  folder's commands and each other bundle's in turn, rounds
//	                                  interleaved, then a table of the medians of their kernel rows
//	bench ab-table [-base LABEL] LOG...   that table from ab's logs
//	bench grid PROGRAM ARGS...        one line at several -threads x -blocks (-grid)
//	bench pictures [NAME...]          README's pictures (those whose name starts with a NAME given): each
//	                                  sweep's .svg and .csv into OUT/images.tgz
//	bench multi N...                  best over N GPUs (each N given) beside one GPU's, at 2^31 + 5 and
//	                                  10^6, for each program that runs over several; each line's -csv
//	                                  into OUT/multi.tgz (P-NGgpu.csv, P-NGgpu-1e6.csv)
//
// Flags come after the mode: -bin DIR (default $TECAJ_BIN, else bin), -out DIR (default $OUT,
// else /tmp), -log FILE (appended to; default OUT/gpu-run-MODE.log); `bench MODE -h` lists the rest.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

const usage = `usage: bench targets|tables [PROGRAM...] | ab LINES|targets BUNDLE... | ab-table LOG... | grid PROGRAM ARGS... | pictures [NAME...] | multi N...
       (flags after the mode: bench MODE -h)`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	os.Exit(run(os.Args[1], os.Args[2:], os.Stdout))
}

// run runs one mode and returns the exit status: 0 every line passed, 1 one failed, 2 bad usage.
func run(mode string, args []string, term io.Writer) int {
	fs := flag.NewFlagSet("bench "+mode, flag.ContinueOnError)
	bin := fs.String("bin", envOr("TECAJ_BIN", "bin"), "the folder of the commands")
	out := fs.String("out", envOr("OUT", "/tmp"), "the folder for the log and the archives")
	logPath := fs.String("log", "", "the log every run's whole output is appended to (default OUT/gpu-run-MODE.log)")
	rounds := fs.Int("rounds", 2, "ab: the rounds of each line")
	timeout := fs.Duration("timeout", 0, "the time one run may take (0: no limit; ab's default 5m)")
	name := fs.String("name", "", "ab: this bundle's name in the log and the table (default: the folder above -bin)")
	base := fs.String("base", "", "ab, ab-table: the bundle the others are compared with (default: the last named)")
	grid := fs.String("grid", "512x0 256x0 256x264 256x528 256x1056 512x132 512x264", "grid: THREADSxBLOCKS ... (blocks 0: the variant's own)")
	npp := fs.Bool("npp", false, "pictures: konvolucija's sweep with npp")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	args = fs.Args()
	if mode == "ab-table" {
		return abTableMode(*base, args, term)
	}
	need := map[string]int{"targets": 0, "tables": 0, "ab": 1, "grid": 1, "pictures": 0, "multi": 1}
	if min, ok := need[mode]; !ok || len(args) < min {
		fmt.Fprintln(os.Stderr, usage)
		return 2
	}
	if mode == "pictures" {
		if _, err := choosePictures(args, false); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			return 2
		}
	}
	if *logPath == "" {
		suffix := mode
		if mode == "ab" {
			suffix = "ab-" + strings.TrimSuffix(filepath.Base(args[0]), ".lines")
		}
		*logPath = filepath.Join(*out, "gpu-run-"+suffix+".log")
	}
	if err := os.MkdirAll(filepath.Dir(*logPath), 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 1
	}
	logFile, err := os.OpenFile(*logPath, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 1
	}
	defer logFile.Close()
	r := &runner{bin: *bin, term: term, log: logFile, timeout: *timeout}
	switch mode {
	case "targets":
		err = r.targets(args)
	case "tables":
		err = r.tables(args, *out)
	case "ab":
		if *timeout == 0 {
			r.timeout = 5 * time.Minute // (a 2^28 input's set-up on a fresh machine takes over a minute)
		}
		if *name == "" {
			*name = filepath.Base(filepath.Dir(absOr(*bin)))
		}
		err = r.ab(args[0], args[1:], *name, *base, *rounds)
	case "grid":
		err = r.grid(args[0], args[1:], strings.Fields(*grid))
	case "pictures":
		err = r.pictures(*out, *npp, args)
	case "multi":
		err = r.multi(args, *out)
	}
	if err != nil {
		fmt.Fprintln(term, "bench:", err)
		return 1
	}
	return r.verdict()
}

func envOr(key, fallback string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return fallback
}

func absOr(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// programs lists the commands in dir, by name.
func programs(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() && info.Mode()&0o111 != 0 {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		return nil, fmt.Errorf("no commands in %s", dir)
	}
	return names, nil
}

// targetVariants is the variant list of a program's target line: best beside its library.
func targetVariants(prog, args string) string {
	switch {
	case prog == "razdalja":
		return "all" // best must be the fastest of them
	case prog == "razlika":
		return "best" // no library row; the copy is the bar
	case prog == "konvolucija" && strings.Contains(args, "-border replicate"):
		return "best,npp" // (npp's only border)
	case prog == "konvolucija":
		return "best"
	}
	return "best,cub"
}

// abVariants is the variant list of ab's targets: best beside its library (old bundles may lack npp).
func abVariants(prog string) string {
	if prog == "razlika" || prog == "konvolucija" {
		return "best"
	}
	return "best,cub"
}

// eachLine calls line with every benchmark line of progs (of every program in the bundle where
// none is named), in order, and done after each program's lines where done is not nil.
func (r *runner) eachLine(progs []string, line func(prog string, k int, args string), done func(prog string)) error {
	if len(progs) == 0 {
		var err error
		if progs, err = programs(r.bin); err != nil {
			return err
		}
	}
	for _, prog := range progs {
		lines, err := r.benchmarks(r.bin, prog)
		if err != nil {
			r.fail(prog+" -benchmarks", err)
			continue
		}
		for k, args := range lines {
			line(prog, k, args)
		}
		if done != nil {
			done(prog)
		}
	}
	return nil
}

func (r *runner) targets(progs []string) error {
	return r.eachLine(progs, func(prog string, _ int, args string) {
		r.one(runSpec{prog: prog, args: append([]string{"-variant", targetVariants(prog, args)}, strings.Fields(args)...)})
	}, nil)
}

func (r *runner) tables(progs []string, out string) error {
	dir, err := os.MkdirTemp("", "tables")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	err = r.eachLine(progs, func(prog string, k int, args string) {
		fmt.Fprintln(r.term)
		csv := filepath.Join(dir, fmt.Sprintf("%s-%d.csv", prog, k+1))
		argv := append(append([]string{"-variant", "all"}, strings.Fields(args)...), "-csv", csv)
		if code := r.tee(prog, argv); code != 0 {
			r.failed = append(r.failed, prog+" "+args)
		}
	}, func(prog string) { r.tee(prog, []string{"-info"}) })
	if err != nil {
		return err
	}
	archive := filepath.Join(out, "tables.tgz")
	if err := writeTgz(archive, dir, ""); err != nil {
		return err
	}
	fmt.Fprintln(r.term, "tables as data:", archive)
	return nil
}

func (r *runner) grid(prog string, args []string, grid []string) error {
	for _, g := range grid {
		threads, blocks, ok := strings.Cut(g, "x")
		if !ok {
			return fmt.Errorf("grid %q: want THREADSxBLOCKS", g)
		}
		r.one(runSpec{prog: prog, args: append(append([]string{}, args...), "-threads", threads, "-blocks", blocks)})
	}
	return nil
}

// multiPrograms are the commands with -gpus.
var multiPrograms = []string{"redukcija", "razdalja", "prefiks"}

// multi runs best over each count of GPUs beside one GPU's best and library, at 2^31 + 5 (the
// speed-up) and 10^6 (the combine's cost), 30 rounds each (at 2^31 + 5 too: the combine's median
// then rests on more rounds; BENCHMARKS: several GPUs), each line's -csv into out/multi.tgz.
func (r *runner) multi(counts []string, out string) error {
	for _, c := range counts {
		if n, err := strconv.Atoi(c); err != nil || n < 2 || n > 8 {
			return fmt.Errorf("multi %q: a count of GPUs from 2 to 8", c)
		}
	}
	dir, err := os.MkdirTemp("", "multi")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	for _, prog := range multiPrograms {
		for _, c := range counts {
			for _, size := range []struct{ n, suffix string }{{"2^31+5", ""}, {"1000000", "-1e6"}} {
				csv := filepath.Join(dir, fmt.Sprintf("%s-%sgpu%s.csv", prog, c, size.suffix))
				r.one(runSpec{prog: prog, args: []string{"-gpus", c, "-n", size.n, "-reps", "30", "-csv", csv}})
			}
		}
	}
	archive := filepath.Join(out, "multi.tgz")
	if err := writeTgz(archive, dir, ""); err != nil {
		return err
	}
	fmt.Fprintln(r.term, "rows as data:", archive)
	return nil
}

// picture is one of README's pictures: its name and the sweep that draws it.
type picture struct{ name, prog, args string }

// pictureList is README's pictures (with npp: konvolucija's sweep with npp too).
func pictureList(npp bool) []picture {
	conv := "g,c,t,best"
	if npp {
		conv += ",npp"
	}
	return []picture{
		// (named one by one, the variants outside their domain at 2^28 would be refused)
		{"redukcija-staircase", "redukcija", "-n 2^28 -variant all"},
		{"redukcija-sweep", "redukcija", "-n 2^10..2^28 -variant best,r6,cub"},
		{"prefiks-sweep", "prefiks", "-n 2^10..2^28 -variant best,cub,grid"},
		{"konvolucija-sweep", "konvolucija", "-n 2^16..2^26 -variant " + conv},
		// (the lecture's network nl beside best, which sorts long arrays with radix)
		{"urejanje-sweep", "urejanje", "-n 2^10..2^28x4 -type uint32 -variant nl,best,radix,cub"},
		{"urejanje-pairs-sweep", "urejanje", "-n 2^10..2^28x4 -type uint32 -pairs -variant nl,best,radix,cub"},
	}
}

// choosePictures is README's pictures, or with names those whose name starts with one of them
// (urejanje: both sorts' sweeps); a name that starts none is refused.
func choosePictures(names []string, npp bool) ([]picture, error) {
	all := pictureList(npp)
	if len(names) == 0 {
		return all, nil
	}
	picked := map[string]bool{}
	var listed []string
	for _, p := range all {
		listed = append(listed, p.name)
	}
	for _, name := range names {
		found := false
		for _, p := range all {
			if strings.HasPrefix(p.name, name) {
				picked[p.name], found = true, true
			}
		}
		if !found {
			return nil, fmt.Errorf("pictures: none is named %s (they are %s)", name, strings.Join(listed, ", "))
		}
	}
	var chosen []picture
	for _, p := range all {
		if picked[p.name] {
			chosen = append(chosen, p)
		}
	}
	return chosen, nil
}

// pictures: the chosen pictures (choosePictures), each with its table and .csv.
func (r *runner) pictures(out string, npp bool, names []string) error {
	pics, err := choosePictures(names, npp)
	if err != nil {
		return err
	}
	images := filepath.Join(out, "images")
	if err := os.MkdirAll(images, 0o755); err != nil {
		return err
	}
	defer os.RemoveAll(images)
	for _, p := range pics {
		fmt.Fprintf(io.MultiWriter(r.term, r.log), "=== %s: %s %s\n", p.name, p.prog, p.args)
		file := filepath.Join(images, p.name)
		if r.tee(p.prog, append(strings.Fields(p.args), "-plot", file+".svg", "-csv", file+".csv")) != 0 {
			r.failed = append(r.failed, p.name)
		}
	}
	return writeTgz(filepath.Join(out, "images.tgz"), images, "images")
}
