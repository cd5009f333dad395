package cli_test

// Every built command, run as a user runs it (internal/cli/clitest): the exit codes and messages
// that every command shares. Each command's own cases are in cmd/<command>/main_test.go.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"tecaj/internal/cli"
	"tecaj/internal/cli/clitest"
	"tecaj/internal/gpu"
	"tecaj/internal/report"
)

func TestMain(m *testing.M) { clitest.Main(m) }

func TestBadUsageExitsTwoNamingTheFlag(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-n", "0"}, "-n must be at least 1"},
		{[]string{"-n", "-3"}, "-n must be at least 1"},
		{[]string{"-n", "1.5"}, "not a whole number"},
		{[]string{"-threads", "48"}, "-threads must be a multiple of 32"},
		{[]string{"-threads", "2048"}, "-threads must be a multiple of 32"},
		{[]string{"-threads", "-32"}, "-threads must be a multiple of 32"},
		{[]string{"-blocks", "-1"}, "-blocks must be"},
		{[]string{"-reps", "-1"}, "-reps must be"},
		{[]string{"-variant", "nope"}, `-variant "nope" is unknown`},
		{[]string{"-variant", "cpu,nope"}, `-variant "nope" is unknown`},
		{[]string{"-variant", "cpu,"}, `-variant "" is unknown`},
		{[]string{"-bogus"}, "flag provided but not defined"},
		{[]string{"extra"}, "unexpected argument"},
	}
	for _, name := range clitest.Commands(t) {
		for _, c := range cases {
			code, _, stderr := clitest.Run(t, name, c.args...)
			if code != 2 || !strings.Contains(stderr, c.want) {
				t.Errorf("%s %v: exit %d, stderr %q; want exit 2 and %q", name, c.args, code, stderr, c.want)
			}
		}
	}
}

func programNamed(t *testing.T, name string) *gpu.Program {
	t.Helper()
	for _, p := range gpu.Programs() {
		if p.Name == name {
			return p
		}
	}
	t.Fatalf("command %s has no program in the library", name)
	return nil
}

func TestHelpListAndBenchmarksNeedNoGPU(t *testing.T) {
	for _, name := range clitest.Commands(t) {
		if code, _, stderr := clitest.Run(t, name, "-h"); code != 0 || !strings.Contains(stderr, "Exit status") {
			t.Errorf("%s -h: exit %d, %q", name, code, stderr)
		}
		code, stdout, _ := clitest.Run(t, name, "-list")
		if code != 0 {
			t.Errorf("%s -list: exit %d", name, code)
		}
		for _, v := range append(programNamed(t, name).Variants(), gpu.Variant{Name: "cpu"}) {
			if !strings.Contains(stdout, "\n"+v.Name+" ") && !strings.HasPrefix(stdout, v.Name+" ") {
				t.Errorf("%s -list does not list %s:\n%s", name, v.Name, stdout)
			}
		}
		if code, stdout, _ := clitest.Run(t, name, "-benchmarks"); code != 0 || !strings.Contains(stdout, "-n ") {
			t.Errorf("%s -benchmarks: exit %d, %q", name, code, stdout)
		}
	}
}

// Every command that reads two vectors with the shared -a and -b (cli.VectorFiles; its -h says
// so) refuses bad files with one line naming the file and the problem, and runs on good ones.
func TestVectorFilesUsage(t *testing.T) {
	checked := 0
	for _, name := range clitest.Commands(t) {
		if _, _, help := clitest.Run(t, name, "-h"); !strings.Contains(help, "vector a from a 1-D .npy file") {
			continue // not the shared -a/-b (cli.VectorFiles)
		}
		checked++
		if code, stdout, stderr := clitest.Run(t, name, "-variant", "cpu", "-a", "../data/testdata/f4.npy", "-b", "../data/testdata/v2.npy"); code != 2 {
			t.Errorf("%s with -a of 5 and -b of 2 elements: exit %d\n%s%s", name, code, stdout, stderr)
		}
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"-a", "../data/testdata/f4.npy"}, "-a and -b go together"},
			{[]string{"-a", "../data/testdata/f4.npy", "-b", "../data/testdata/f8.npy"}, "same length"},
			{[]string{"-a", "../data/testdata/big.npy", "-b", "../data/testdata/big.npy"}, "big.npy: big-endian"},
			{[]string{"-a", "../data/testdata/fortran.npy", "-b", "../data/testdata/fortran.npy"}, "Fortran"},
			{[]string{"-a", "../data/testdata/matrix.npy", "-b", "../data/testdata/matrix.npy"}, "1-D"},
			{[]string{"-a", "../data/testdata/i4.npy", "-b", "../data/testdata/i4.npy"}, "float32 or float64"},
			{[]string{"-a", "../data/testdata/truncated.npy", "-b", "../data/testdata/f4.npy"}, "truncated"},
			{[]string{"-a", "../data/testdata/object.npy", "-b", "../data/testdata/f4.npy"}, "object"},
			{[]string{"-a", "nowhere.npy", "-b", "../data/testdata/f4.npy"}, "nowhere.npy"},
			{[]string{"-a", "../data/testdata/f4.npy", "-b", "../data/testdata/f4.npy", "-n", "9"}, "-n 9 does not match"},
		} {
			code, _, stderr := clitest.Run(t, name, c.args...)
			if code != 2 || !strings.Contains(stderr, c.want) || !clitest.OneLine(stderr) {
				t.Errorf("%s %v: exit %d, %q; want 2 and one line with %q", name, c.args, code, stderr, c.want)
			}
		}
	}
	if checked < 2 { // (razlika and razdalja)
		t.Errorf("only %d commands take the shared -a and -b, want razlika and razdalja at least", checked)
	}
}

func withoutVariant(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		if args[i] == "-variant" {
			i++
			continue
		}
		out = append(out, args[i])
	}
	return out
}

// A variant's domain is host knowledge: a request outside it exits 2 with or without a GPU.
func TestDomainNeedsNoGPU(t *testing.T) {
	for _, c := range []struct {
		name string
		args []string
	}{
		{"razlika", []string{"-variant", "2", "-n", "2000"}},
		{"redukcija", []string{"-op", "argmax", "-variant", "bm"}},
		{"prefiks", []string{"-variant", "warp", "-n", "33"}},
	} {
		code, _, stderr := clitest.Run(t, c.name, c.args...)
		if code != 2 || !strings.Contains(stderr, "its domain is") || !clitest.OneLine(stderr) {
			t.Errorf("%s %v: exit %d, %q; want 2 and the domain in one line", c.name, c.args, code, stderr)
		}
	}
}

// -h prints the help alone; a bad flag its message and a pointer to -h.
func TestHelpStartsWithTheProgram(t *testing.T) {
	for _, name := range clitest.Commands(t) {
		if _, _, stderr := clitest.Run(t, name, "-h"); !strings.HasPrefix(stderr, name+": ") || strings.Contains(stderr, "run "+name+" -h") {
			t.Errorf("%s -h begins %q", name, strings.SplitN(stderr, "\n", 2)[0])
		}
		if code, _, stderr := clitest.Run(t, name, "-bogus"); code != 2 || !strings.Contains(stderr, "run "+name+" -h") {
			t.Errorf("%s -bogus: exit %d, %q", name, code, stderr)
		}
	}
}

func TestWithoutGPU(t *testing.T) {
	if clitest.NoGPU() == "" {
		t.Skip("a GPU is present: the no-GPU paths cannot be seen here")
	}
	for _, name := range clitest.Commands(t) {
		for _, args := range [][]string{{"-n", "1000"}, {"-variant", "all"}, {"-variant", "best,cpu"}} {
			code, _, stderr := clitest.Run(t, name, args...)
			// the hint is the user's own command line, with -variant cpu in place of theirs
			hint := filepath.Join(clitest.Bin(t), name) + " " + strings.Join(withoutVariant(args), " ") + " -variant cpu"
			if code != 3 || !strings.Contains(stderr, "no NVIDIA driver found") && !strings.Contains(stderr, "no usable GPU") ||
				!strings.Contains(stderr, strings.ReplaceAll(hint, "  ", " ")) {
				t.Errorf("%s %v without a GPU: exit %d, %q; want 3 and the hint %q", name, args, code, stderr, hint)
			}
		}
		code, stdout, stderr := clitest.Run(t, name, "-variant", "cpu", "-n", "2^20+3", "-reps", "2")
		if code != 0 || !strings.Contains(stdout, "PASS") {
			t.Errorf("%s -variant cpu: exit %d\n%s%s", name, code, stdout, stderr)
		}
	}
	// past every host variant's domain, at any size of the sweep, the hint names the domains, not a
	// command that would be refused
	for _, n := range []string{"2^26", "2^20..2^28"} {
		code, _, stderr := clitest.Run(t, "urejanje", "-n", n)
		if code != 3 || strings.Contains(stderr, "-variant cpu") ||
			!strings.Contains(stderr, "No host version covers -n here: cpu's domain is at most 2^25 keys in all") ||
			!strings.Contains(stderr, "(not -n 67108864)") {
			t.Errorf("urejanje -n %s without a GPU: exit %d, %q; want 3 and each host variant's domain", n, code, stderr)
		}
	}
}

func TestOnGPU(t *testing.T) {
	if reason := clitest.NoGPU(); reason != "" {
		t.Skip("no usable GPU: " + reason)
	}
	for _, name := range clitest.Commands(t) {
		code, stdout, stderr := clitest.Run(t, name, "-variant", "all", "-n", "100003", "-reps", "3", "-json")
		if code != 0 {
			t.Fatalf("%s -variant all: exit %d\n%s%s", name, code, stdout, stderr)
		}
		var r struct {
			WorkOnly bool `json:"speed_up_without_copy_back"`
			Rows     []struct {
				Variant, Refused, Note string
				Pass                   bool
				CounterExample         bool `json:"counter_example"`
			}
		}
		if err := json.Unmarshal([]byte(stdout), &r); err != nil {
			t.Fatalf("%s -json: %v\n%s", name, err, stdout)
		}
		ran := 0
		for _, row := range r.Rows {
			if row.Refused == "" {
				ran++
				if row.CounterExample { // the lecture's "does not work, why?": shown WRONG with its reason
					if row.Note == "" {
						t.Errorf("%s %s: a counter-example row without its reason", name, row.Variant)
					}
				} else if !row.Pass {
					t.Errorf("%s %s failed", name, row.Variant)
				}
			}
		}
		if ran < 4 {
			t.Errorf("%s: only %d variants ran: %s", name, ran, stdout)
		}
		// a list of variants: those rows only, in the program's order
		code, stdout, stderr = clitest.Run(t, name, "-variant", "cpu,best", "-n", "1000", "-reps", "2", "-json")
		var listed struct{ Rows []struct{ Variant string } }
		if err := json.Unmarshal([]byte(stdout), &listed); code != 0 || err != nil || len(listed.Rows) != 2 ||
			listed.Rows[0].Variant != "best" || listed.Rows[1].Variant != "cpu" {
			t.Errorf("%s -variant cpu,best: exit %d, rows %+v\n%s", name, code, listed.Rows, stderr)
		}
		// speed-ups leave the copy back out exactly where every variant copies the same outputs
		// (razdalja's g copies n squares, its other variants one sum)
		if r.WorkOnly != (name != "razdalja") {
			t.Errorf("%s: speed-ups without the copy back = %v", name, r.WorkOnly)
		}
		for _, n := range []string{"2^40", "2^62", "2^61+2^60"} { // 24 x 2^62 wraps an int64 to 0
			// past the host's or the device's memory, or past the program's own domain (konvolucija's int32 pixels)
			code, _, stderr := clitest.Run(t, name, "-n", n)
			memory := (strings.Contains(stderr, "host memory") || strings.Contains(stderr, "device memory")) && strings.Contains(stderr, "or less")
			domain := strings.Contains(stderr, "from 1 to ") || strings.Contains(stderr, "at most ")
			if code != 2 || !(memory || domain) || strings.Contains(stderr, "-n -") || strings.Count(stderr, "\n") != 1 {
				t.Errorf("%s -n %s: exit %d %q; want 2 and one line: a memory message with a positive n, or the domain", name, n, code, stderr)
			}
		}
		code, stdout, _ = clitest.Run(t, name, "-info")
		for _, v := range programNamed(t, name).Variants() {
			for _, k := range v.Kernels {
				if !strings.Contains(stdout, k) {
					t.Errorf("%s -info does not list %s's kernel %s", name, v.Name, k)
				}
			}
		}
	}
}

// A row's d2h: the median of five copies where one takes under a millisecond, of three where it
// takes longer. (A host wait inside the events stands in for a copy's time.)
func TestTimeCopyTakesTheMedianOfQuickCopies(t *testing.T) {
	if reason := clitest.NoGPU(); reason != "" {
		t.Skip("no usable GPU: " + reason)
	}
	timer, err := gpu.NewTimer()
	if err != nil {
		t.Fatal(err)
	}
	defer timer.Free()
	for _, c := range []struct {
		wait  time.Duration
		calls int
	}{{0, 5}, {3 * time.Millisecond, 3}} {
		calls := 0
		ms, err := cli.TimeCopy(timer, func() error {
			calls++
			time.Sleep(c.wait)
			return nil
		})
		if err != nil || calls != c.calls || ms < float64(c.wait)/1e6 {
			t.Errorf("a copy of %v: %d calls, %.3f ms (%v); want %d calls, at least the wait", c.wait, calls, ms, err, c.calls)
		}
	}
}

// Sizes past the host's memory are refused in one line, before anything is allocated: a panic in
// makeslice, or the runtime's out-of-memory trace, before.
func TestHostMemoryIsChecked(t *testing.T) {
	for _, name := range clitest.Commands(t) {
		for _, n := range []string{"2^62", "2^40"} {
			args := []string{"-variant", "cpu", "-n", n}
			if name == "urejanje" { // (its host variants take 2^25 keys in all: the device's best, checked on the host)
				args = []string{"-variant", "best", "-n", map[string]string{"2^62": "2^42", "2^40": "2^20"}[n], "-batch", "2^20"}
			}
			code, _, stderr := clitest.Run(t, name, args...)
			capped := strings.Contains(stderr, "of host memory") || strings.Contains(stderr, "from 1 to") // (konvolucija caps -n itself)
			if code != 2 || !capped || !clitest.OneLine(stderr) {
				t.Errorf("%s -variant cpu -n %s: exit %d, %q; want 2 and one line on host memory", name, n, code, stderr)
			}
		}
	}
}

// A sweep: every command runs each size of -n in turn; the table groups by size, -json is one
// report a size, -csv one line a (variant, size) with the run's parameters.
func TestSweepJSONAndCSV(t *testing.T) {
	dir := t.TempDir()
	params := map[string]string{"redukcija": "-op sum -type float32", "prefiks": "-op sum -type float32",
		"urejanje": "-type float32 -dist uniform", "konvolucija": "-dim 2 -mask box -k 3 -border zero -type float32"}
	for _, name := range clitest.Commands(t) {
		csvPath := filepath.Join(dir, name+".CSV")
		code, stdout, stderr := clitest.Run(t, name, "-variant", "cpu", "-n", "2^10..2^14x4", "-reps", "2", "-csv", csvPath)
		tables := regexp.MustCompile(`(?m)^`+name+`  (-.*  )?n=\d+  seed=1`).FindAllString(stdout, -1)
		if code != 0 || len(tables) != 3 {
			t.Errorf("%s sweep: exit %d, %d tables\n%s%s", name, code, len(tables), stdout, stderr)
			continue
		}
		b, err := os.ReadFile(csvPath)
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if err != nil || len(lines) != 4 || !strings.HasPrefix(lines[0], "program,params,device,unit,n,") ||
			!strings.HasPrefix(lines[3], name+","+params[name]+",host only,") || !strings.Contains(lines[3], ",16384,") {
			t.Errorf("%s -csv: %v\n%s", name, err, b)
		}
		code, stdout, _ = clitest.Run(t, name, "-variant", "cpu", "-n", "1000,2000", "-reps", "2", "-json")
		var reports []report.Report
		if err := json.Unmarshal([]byte(stdout), &reports); code != 0 || err != nil || len(reports) != 2 || reports[1].N != 2000 {
			t.Errorf("%s -json sweep: exit %d, %v, %d reports", name, code, err, len(reports))
		}
	}
	if code, _, stderr := clitest.Run(t, "razlika", "-variant", "cpu", "-csv", filepath.Join(dir, "x.txt")); code != 2 || !strings.Contains(stderr, "-csv") {
		t.Errorf("-csv x.txt: exit %d, %q", code, stderr)
	}
	svg := filepath.Join(dir, "sweep.svg")
	if code, _, stderr := clitest.Run(t, "razlika", "-variant", "cpu", "-n", "2^10..2^14", "-reps", "2", "-plot", svg); code != 0 {
		t.Errorf("-plot: exit %d, %q", code, stderr)
	} else if b, err := os.ReadFile(svg); err != nil || !strings.Contains(string(b), "<polyline") {
		t.Errorf("-plot wrote %d bytes, %v", len(b), err)
	}
	if code, _, stderr := clitest.Run(t, "razlika", "-variant", "cpu", "-plot", filepath.Join(dir, "x.png")); code != 2 || !strings.Contains(stderr, "-plot") {
		t.Errorf("-plot x.png: exit %d, %q", code, stderr)
	}
}
