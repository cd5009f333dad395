package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// bundle is one side of ab: its name and its commands' folder (empty: the runner's own), with
// the environment its commands run in (its library).
type bundle struct {
	name, bin string
	env       []string
}

// ab runs each line of the file lines (or every benchmark line, best beside its library, for
// "targets") by this folder's commands and by each other bundle's, rounds times, interleaved, and
// prints the table of the medians of their kernel rows.
func (r *runner) ab(lines string, others []string, name, base string, rounds int) error {
	var todo []string
	if lines == "targets" {
		if err := r.eachLine(nil, func(prog string, _ int, args string) {
			todo = append(todo, prog+" -variant "+abVariants(prog)+" "+args)
		}, nil); err != nil {
			return err
		}
	} else {
		text, err := os.ReadFile(lines)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(string(text), "\n") {
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
				todo = append(todo, line)
			}
		}
	}
	bundles := []bundle{{name: name}}
	for _, dir := range others {
		b, root, err := openBundle(dir)
		if root != "" {
			defer os.RemoveAll(root)
		}
		if err != nil {
			return err
		}
		bundles = append(bundles, b)
	}
	t := newTimes()
	for _, line := range todo {
		vars, prog, args := parseLine(line)
		for round := 0; round < rounds; round++ {
			for _, b := range bundles {
				s := runSpec{label: b.name, vars: vars, bin: b.bin, env: b.env, prog: prog, args: args}
				t.add(b.name, s.line(), r.one(s))
			}
		}
	}
	fmt.Fprintln(io.MultiWriter(r.term, r.log))
	fmt.Fprint(io.MultiWriter(r.term, r.log), t.table(base))
	return nil
}

// openBundle finds another bundle's commands and library in a temporary folder: links to DIR/bin
// and DIR/lib, or DIR/bundle.tar.gz unpacked. The caller removes root.
func openBundle(dir string) (b bundle, root string, err error) {
	b.name = filepath.Base(dir)
	if root, err = os.MkdirTemp("", "bundle"); err != nil {
		return b, "", err
	}
	if _, err := os.Stat(filepath.Join(dir, "bin")); err == nil {
		for _, sub := range []string{"bin", "lib"} {
			if err := os.Symlink(absOr(filepath.Join(dir, sub)), filepath.Join(root, sub)); err != nil {
				return b, root, err
			}
		}
	} else if err := unpackTgz(filepath.Join(dir, "bundle.tar.gz"), root); err != nil {
		return b, root, fmt.Errorf("bundle %s: %v", dir, err)
	}
	b.bin = filepath.Join(root, "bin")
	b.env = []string{"LD_LIBRARY_PATH=" + filepath.Join(root, "lib") + prefixPath(os.Getenv("LD_LIBRARY_PATH"))}
	return b, root, nil
}

func prefixPath(rest string) string {
	if rest == "" {
		return ""
	}
	return ":" + rest
}

// parseLine splits a line of an ab file, "[VAR=VALUE...] PROGRAM ARGS", at white space.
func parseLine(line string) (vars []string, prog string, args []string) {
	words := strings.Fields(line)
	for len(words) > 0 && envAssignment.MatchString(words[0]) {
		vars, words = append(vars, words[0]), words[1:]
	}
	if len(words) == 0 {
		return vars, "", nil
	}
	if len(words) == 1 {
		return vars, words[0], nil
	}
	return vars, words[0], words[1:]
}

var envAssignment = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*=`)

// kernelRow is a row of a run's table: its variant and kernel us (the fourth column: variant,
// threads, blocks, kernel us).
var kernelRow = regexp.MustCompile(`^\s+([A-Za-z][\w/]*)\s+\S+\s+\S+\s+([0-9.]+)\s`)

// abHeader is a run's header in ab's log: "--- LABEL: LINE".
var abHeader = regexp.MustCompile(`^--- (\S+): (.*)`)

// times holds the kernel us of every run: line -> bundle -> variant -> each round's.
type times struct {
	lines, labels []string
	us            map[string]map[string]map[string][]float64
	other         map[string]string // line -> best over several GPUs where it ran, else the first variant printed
}

func newTimes() *times {
	return &times{us: map[string]map[string]map[string][]float64{}, other: map[string]string{}}
}

// add records the kernel rows of one run's output, by bundle and line.
func (t *times) add(label, line, output string) {
	if t.us[line] == nil {
		t.us[line] = map[string]map[string][]float64{}
		t.lines = append(t.lines, line)
	}
	if t.us[line][label] == nil {
		t.us[line][label] = map[string][]float64{}
	}
	if !contains(t.labels, label) {
		t.labels = append(t.labels, label)
	}
	for _, text := range strings.Split(output, "\n") {
		if m := kernelRow.FindStringSubmatch(text); m != nil {
			var v float64
			if _, err := fmt.Sscan(m[2], &v); err == nil {
				t.us[line][label][m[1]] = append(t.us[line][label][m[1]], v)
				if t.other[line] == "" || strings.HasPrefix(m[1], "best/") {
					t.other[line] = m[1]
				}
			}
		}
	}
}

// readLog records the runs of an ab log (their headers and outputs).
func (t *times) readLog(r io.Reader) error {
	label, line := "", ""
	var output strings.Builder
	flush := func() {
		if label != "" {
			t.add(label, line, output.String())
		}
		output.Reset()
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if m := abHeader.FindStringSubmatch(sc.Text()); m != nil {
			flush()
			label, line = m[1], m[2]
			continue
		}
		output.WriteString(sc.Text() + "\n")
	}
	flush()
	return sc.Err()
}

// compared is the variant a line's row compares: best over several GPUs where the line ran it,
// else best, else (e.g. -variant radix) the first variant the line printed.
func (t *times) compared(line, base string) string {
	if o := t.other[line]; strings.HasPrefix(o, "best/") || (o != "" && len(t.us[line][base]["best"]) == 0) {
		return o
	}
	return "best"
}

// table is a markdown table, a row a line: each bundle's median best kernel us and its change
// against base's (default the last bundle named), and the library's medians; then the largest
// change. A row that compares another variant than best (compared) names it.
func (t *times) table(base string) string {
	if base == "" && len(t.labels) > 0 {
		base = t.labels[len(t.labels)-1]
	}
	order := []string{base}
	for _, l := range t.labels {
		if l != base {
			order = append(order, l)
		}
	}
	var b strings.Builder
	var head []string
	for _, l := range order {
		head = append(head, l+" best us")
	}
	fmt.Fprintf(&b, "| line | %s | library us (%s) |\n", strings.Join(head, " | "), strings.Join(order, ", "))
	b.WriteString(strings.Repeat("|---", len(order)+2) + "|\n")
	worst := 0.0
	for _, line := range t.lines {
		us, variant, name := t.us[line], t.compared(line, base), "`"+line+"`"
		if variant != "best" {
			name += " (" + variant + "'s row)"
		}
		if len(us[base][variant]) == 0 {
			continue
		}
		b0 := median(us[base][variant])
		cells := []string{fmt.Sprintf("%.4g", b0)}
		for _, l := range order[1:] {
			if len(us[l][variant]) == 0 {
				cells = append(cells, "-")
				continue
			}
			m := median(us[l][variant])
			change := 100 * (m/b0 - 1)
			if abs(change) > worst {
				worst = abs(change)
			}
			cells = append(cells, fmt.Sprintf("%.4g (%+.1f%%)", m, change))
		}
		var lib []string
		for _, l := range order {
			for _, v := range []string{"cub", "npp"} {
				if len(us[l][v]) > 0 {
					lib = append(lib, fmt.Sprintf("%.4g", median(us[l][v])))
				}
			}
		}
		if len(lib) == 0 {
			lib = []string{"-"}
		}
		fmt.Fprintf(&b, "| %s | %s | %s |\n", name, strings.Join(cells, " | "), strings.Join(lib, ", "))
	}
	fmt.Fprintf(&b, "\nlargest change against %s: %.1f%% (medians of each bundle's rounds)\n", base, worst)
	return b.String()
}

// abTableMode prints the table of ab's logs.
func abTableMode(base string, logs []string, term io.Writer) int {
	if len(logs) == 0 {
		fmt.Fprintln(os.Stderr, "usage: bench ab-table [-base LABEL] LOG...")
		return 2
	}
	t := newTimes()
	for _, path := range logs {
		f, err := os.Open(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			return 1
		}
		err = t.readLog(f)
		f.Close()
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", path+":", err)
			return 1
		}
	}
	fmt.Fprint(term, t.table(base))
	return 0
}

func median(v []float64) float64 {
	s := append([]float64{}, v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
