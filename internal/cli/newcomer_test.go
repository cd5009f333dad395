package cli_test

// What a newcomer met on a fresh clone (issue 46), one test an item: each runs the built commands
// as a user does, and each failed before its fix.

import (
	"encoding/binary"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"tecaj/internal/cli/clitest"
	"tecaj/internal/data"
)

// Item 1: a sweep is checked whole before it starts: a size past the host's memory stops it at
// once, naming that size, with nothing run.
func TestSweepIsCheckedBeforeItRuns(t *testing.T) {
	for _, name := range clitest.Commands(t) {
		start := time.Now()
		code, stdout, stderr := clitest.Run(t, name, "-n", "2^10..2^40", "-variant", "cpu", "-reps", "1")
		took := time.Since(start)
		if code != 2 || stdout != "" || !strings.Contains(stderr, "-n ") || took > 10*time.Second {
			t.Errorf("%s -n 2^10..2^40 -variant cpu: exit %d after %v, stdout %q, stderr %q; want exit 2 at once and no table",
				name, code, took.Round(time.Millisecond), stdout, stderr)
		}
	}
}

// Item 2: -info without a GPU names each kernel and never suggests a host variant (which has no
// kernels: it looped).
func TestInfoWithoutGPUNamesTheKernels(t *testing.T) {
	if clitest.NoGPU() == "" {
		t.Skip("a GPU is present: -info reads its kernels' attributes")
	}
	for _, name := range clitest.Commands(t) {
		for _, env := range [][]string{nil, {"TECAJ_EMULATE=t4"}} {
			code, stdout, stderr := clitest.RunEnv(t, env, name, "-info")
			if code != 3 || strings.Contains(stderr, "-variant cpu") || !strings.Contains(stderr, "no NVIDIA driver found") ||
				!strings.Contains(stdout, "best ") || !strings.Contains(stdout, "kernel") {
				t.Errorf("%s -info %v: exit %d\nstdout %q\nstderr %q; want 3, the kernels by name, no -variant cpu", name, env, code, stdout, stderr)
			}
		}
	}
}

// Items 3 and 10: an empty value is bad usage (exit 2), never a run of nothing or a file not written.
func TestEmptyValuesAreRefused(t *testing.T) {
	for _, name := range clitest.Commands(t) {
		for _, args := range [][]string{{"-variant", ""}, {"-variant", " "}, {"-csv", ""}, {"-plot", ""}} {
			code, stdout, stderr := clitest.Run(t, name, args...)
			if code != 2 || stdout != "" || !strings.Contains(stderr, args[0]+" is empty") {
				t.Errorf("%s %q: exit %d, stdout %q, stderr %q; want exit 2 naming %s", name, args, code, stdout, stderr, args[0])
			}
		}
	}
	for _, name := range []string{"razlika", "urejanje", "prefiks", "konvolucija"} { // the commands with -o
		if code, _, stderr := clitest.Run(t, name, "-variant", "cpu", "-o", ""); code != 2 || !strings.Contains(stderr, "-o is empty") {
			t.Errorf("%s -o '': exit %d, %q", name, code, stderr)
		}
		code, _, stderr := clitest.Run(t, name, "-variant", "cpu", "-n", "2^10,2^12", "-o", filepath.Join(t.TempDir(), "x.npy"))
		if code != 2 || !strings.Contains(stderr, "-o writes one size") {
			t.Errorf("%s a sweep with -o: exit %d, %q; want 2", name, code, stderr)
		}
	}
}

// Item 4: a picture of a sweep needs two sizes; a list that repeats one is bad usage, found
// before the work.
func TestRepeatedSizesAreRefused(t *testing.T) {
	svg := filepath.Join(t.TempDir(), "s.svg")
	for _, name := range clitest.Commands(t) {
		code, stdout, stderr := clitest.Run(t, name, "-n", "2^10,2^10", "-variant", "cpu", "-plot", svg)
		if code != 2 || stdout != "" || !strings.Contains(stderr, "-n lists 1024 twice") {
			t.Errorf("%s -n 2^10,2^10: exit %d, stdout %q, stderr %q", name, code, stdout, stderr)
		}
	}
}

// Item 7: the host variants' memory estimate is what they hold (razdalja a and b: 8 bytes an
// element; redukcija a and b in float64: 16), not the device run's.
func TestHostVariantsEstimateTheirOwnMemory(t *testing.T) {
	re := regexp.MustCompile(`-n (\d+) needs ([0-9.]+) GB of host memory`)
	for name, perElement := range map[string]float64{"razdalja": 8, "redukcija": 16, "razlika": 12} {
		code, _, stderr := clitest.Run(t, name, "-n", "2^40", "-variant", "cpu")
		m := re.FindStringSubmatch(stderr)
		if code != 2 || m == nil {
			t.Errorf("%s -n 2^40 -variant cpu: exit %d, %q", name, code, stderr)
			continue
		}
		n, _ := strconv.ParseFloat(m[1], 64)
		gb, _ := strconv.ParseFloat(m[2], 64)
		if got := gb * 1e9 / n; got < perElement || got > perElement*1.01 {
			t.Errorf("%s -variant cpu estimates %.2f bytes an element; it holds %.0f", name, got, perElement)
		}
	}
}

// Item 8: a file's dtype is named as the file has it: an int64 file is <i8, not the int32 it is
// read as.
func TestFileDtypeIsTheFiles(t *testing.T) {
	path := filepath.Join(t.TempDir(), "i64.npy")
	raw := make([]byte, 8*5)
	for i := 0; i < 5; i++ {
		binary.LittleEndian.PutUint64(raw[8*i:], uint64(i+1))
	}
	if err := data.Write(path, data.Int64, []int{5}, raw); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"razdalja", "razlika"} {
		code, _, stderr := clitest.Run(t, name, "-a", path, "-b", path, "-variant", "cpu")
		if code != 2 || !strings.Contains(stderr, "dtype <i8") {
			t.Errorf("%s -a int64.npy: exit %d, %q; want 2 and dtype <i8", name, code, stderr)
		}
	}
}

// Item 9: messages name the real problem.
func TestFlagMessages(t *testing.T) {
	for _, name := range clitest.Commands(t) {
		for _, c := range []struct {
			args []string
			want string
		}{
			{[]string{"-variant", "all,cpu"}, "-variant all stands alone"},
			{[]string{"-n", "1e300"}, `"1e300" is too large`},
			{[]string{"-n", "2^100"}, `"2^100" is too large`},
			{[]string{"-n", "2^62+2^62"}, `is too large`},
		} {
			if code, _, stderr := clitest.Run(t, name, c.args...); code != 2 || !strings.Contains(stderr, c.want) {
				t.Errorf("%s %v: exit %d, %q; want 2 and %q", name, c.args, code, stderr, c.want)
			}
		}
	}
}

// Item 11: a run on a file's data names the file in its header, not the seed that drew nothing.
func TestHeaderNamesTheInputFile(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.npy"), filepath.Join(dir, "b.npy")
	raw := make([]byte, 4*33)
	for i := 0; i < 33; i++ {
		binary.LittleEndian.PutUint32(raw[4*i:], uint32(i*7+3))
	}
	for _, p := range []string{a, b} {
		if err := data.Write(p, data.Float32, []int{33}, raw); err != nil {
			t.Fatal(err)
		}
	}
	for _, run := range [][]string{
		{"razdalja", "-a", a, "-b", b},
		{"razlika", "-a", a, "-b", b},
		{"redukcija", "-a", a},
		{"prefiks", "-a", a},
		{"urejanje", "-keys", a},
	} {
		code, stdout, stderr := clitest.Run(t, run[0], append(run[1:], "-variant", "cpu", "-reps", "1")...)
		head := strings.SplitN(stdout, "\n", 2)[0]
		if code != 0 || !strings.Contains(head, "input: "+a) || strings.Contains(head, "seed=") || strings.Contains(head, "-dist") {
			t.Errorf("%v: exit %d, header %q (%s); want the file named, no seed or -dist", run, code, head, stderr)
		}
	}
	code, stdout, _ := clitest.Run(t, "razdalja", "-n", "33", "-variant", "cpu", "-reps", "1")
	if head := strings.SplitN(stdout, "\n", 2)[0]; code != 0 || !strings.Contains(head, "seed=1") || strings.Contains(head, "input") {
		t.Errorf("razdalja drawn from the seed: header %q", head)
	}
}

// Item 10 (redukcija) and 12 (konvolucija): flags that would be ignored, and the hints of -h.
func TestIgnoredFlagsAndHints(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.npy")
	if err := data.Write(a, data.Float32, []int{4}, make([]byte, 16)); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := clitest.Run(t, "redukcija", "-a", a, "-b", a, "-op", "sum", "-variant", "cpu"); code != 2 || !strings.Contains(stderr, "-op sum reads -a alone") {
		t.Errorf("redukcija -b with -op sum: exit %d, %q", code, stderr)
	}
	_, _, help := clitest.Run(t, "konvolucija", "-h")
	if strings.Contains(help, "best,cub") || !strings.Contains(help, "(best,npp)") {
		t.Errorf("konvolucija -h gives an example list it does not take:\n%s", help)
	}
	img := filepath.Join(dir, "u8.npy")
	if err := data.Write(img, data.Uint8, []int{3, 5}, make([]byte, 15)); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := clitest.Run(t, "konvolucija", "-a", img, "-variant", "cpu"); code != 2 || !strings.Contains(stderr, "add -type uint8") {
		t.Errorf("konvolucija -a uint8.npy without -type: exit %d, %q; want the hint", code, stderr)
	}
	os.Remove(img)
}

// Item 1, domains: a named variant outside its domain at a later size of a sweep is refused
// before the first size runs (host variants here; device variants planned without a GPU).
func TestSweepDomainsAreCheckedBeforeItRuns(t *testing.T) {
	for _, c := range [][]string{
		{"urejanje", "-n", "2^4,2^26", "-variant", "seq"},
		{"redukcija", "-n", "2^8,2^26", "-variant", "b1"},
	} {
		code, stdout, stderr := clitest.Run(t, c[0], c[1:]...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, "does not cover -n 67108864") || !strings.Contains(stderr, "nothing was run") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want 2 naming 2^26 before any work", c, code, stdout, stderr)
		}
	}
}
