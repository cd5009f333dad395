package cli_test

// The built commands, run as a user runs them: exit codes and messages. Set TECAJ_BIN to a folder
// holding the commands to test prebuilt binaries (the GPU bundle does, on hosts without Go). The
// list of commands is derived: ./cmd/... here, the folder's files there.

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"tecaj/internal/data"
	"tecaj/internal/gpu"
)

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
)

func command(t *testing.T, name string) string {
	t.Helper()
	if dir := os.Getenv("TECAJ_BIN"); dir != "" {
		return filepath.Join(dir, name)
	}
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "tecaj-bin")
		if buildErr != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", binDir, "./cmd/...")
		cmd.Dir = "../.."
		if out, err := cmd.CombinedOutput(); err != nil {
			buildErr = errors.New(string(out))
		}
	})
	if buildErr != nil {
		t.Fatalf("building the commands: %v", buildErr)
	}
	return filepath.Join(binDir, name)
}

// commands lists the commands: the binaries in TECAJ_BIN, or the packages under ./cmd.
func commands(t *testing.T) []string {
	t.Helper()
	var names []string
	if dir := os.Getenv("TECAJ_BIN"); dir != "" {
		entries, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			names = append(names, e.Name())
		}
	} else {
		out, err := exec.Command("go", "list", "-f", "{{.Name}} {{.ImportPath}}", "../../cmd/...").Output()
		if err != nil {
			t.Fatalf("go list: %v", err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			if f := strings.Fields(line); len(f) == 2 && f[0] == "main" {
				names = append(names, filepath.Base(f[1]))
			}
		}
	}
	if len(names) < 3 {
		t.Fatalf("found only the commands %v", names)
	}
	return names
}

func run(t *testing.T, name string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(command(t, name), args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		code = exit.ExitCode()
	default:
		t.Fatalf("running %s: %v", name, err)
	}
	return code, o.String(), e.String()
}

func gpuReason() string {
	if _, err := gpu.Open(); err != nil {
		return err.Error()
	}
	return ""
}

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
		{[]string{"-reps", "0"}, "-reps must be"},
		{[]string{"-variant", "nope"}, `-variant "nope" is unknown`},
		{[]string{"-bogus"}, "flag provided but not defined"},
		{[]string{"extra"}, "unexpected argument"},
	}
	for _, name := range commands(t) {
		for _, c := range cases {
			code, _, stderr := run(t, name, c.args...)
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
	for _, name := range commands(t) {
		if code, _, stderr := run(t, name, "-h"); code != 0 || !strings.Contains(stderr, "Exit status") {
			t.Errorf("%s -h: exit %d, %q", name, code, stderr)
		}
		code, stdout, _ := run(t, name, "-list")
		if code != 0 {
			t.Errorf("%s -list: exit %d", name, code)
		}
		for _, v := range append(programNamed(t, name).Variants(), gpu.Variant{Name: "cpu"}) {
			if !strings.Contains(stdout, "\n"+v.Name+" ") && !strings.HasPrefix(stdout, v.Name+" ") {
				t.Errorf("%s -list does not list %s:\n%s", name, v.Name, stdout)
			}
		}
		if code, stdout, _ := run(t, name, "-benchmarks"); code != 0 || !strings.Contains(stdout, "-n ") {
			t.Errorf("%s -benchmarks: exit %d, %q", name, code, stdout)
		}
	}
}

func TestSortUsage(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-threads", "96"}, "power of two"},
		{[]string{"-type", "float64"}, `-type "float64" is unknown`},
		{[]string{"-batch", "0"}, "-batch must be"},
		{[]string{"-dist", "zipf"}, `-dist "zipf" is unknown`},
		{[]string{"-blocks", "5"}, "sizes its own grid"},
		{[]string{"-blocks", "5", "-variant", "cub"}, "sizes its own grid"},
		{[]string{"-keys", "../data/testdata/big.npy"}, "big-endian"},
		{[]string{"-keys", "../data/testdata/f4.npy", "-type", "int32"}, "does not match"},
		{[]string{"-keys", "../data/testdata/f4.npy", "-batch", "2"}, "not a multiple of -batch"},
		{[]string{"-keys", "../data/testdata/f4.npy", "-n", "4"}, "-n 4 does not match"},
		{[]string{"-keys", "../data/testdata/u1.npy"}, "dtype |u1"},
		{[]string{"-keys", "../data/testdata/i4.npy", "-values", "../data/testdata/u4.npy"}, "3 values for the 5 keys"},
		{[]string{"-values", "../data/testdata/u4.npy"}, "-values needs -keys"},
	} {
		if code, _, stderr := run(t, "urejanje", c.args...); code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("urejanje %v: exit %d, %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

func TestVectorFilesUsage(t *testing.T) {
	for _, name := range []string{"razlika", "razdalja"} {
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
			code, _, stderr := run(t, name, c.args...)
			if code != 2 || !strings.Contains(stderr, c.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
				t.Errorf("%s %v: exit %d, %q; want 2 and one line with %q", name, c.args, code, stderr, c.want)
			}
		}
	}
}

// Data in and out through the host variants (no GPU needed): razlika's c and urejanje's sorted
// keys and values, written with -o and read back.
func TestDataRoundTripOnTheHost(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.npy"), filepath.Join(dir, "b.npy")
	av, bv := []float32{1.5, -2, 1e3, 0.25, 7}, []float32{0.5, 2, -1e3, 0.25, -1}
	if err := data.WriteFloat32s(a, av); err != nil {
		t.Fatal(err)
	}
	if err := data.WriteFloat32s(b, bv); err != nil {
		t.Fatal(err)
	}
	c := filepath.Join(dir, "c.npy")
	if code, stdout, stderr := run(t, "razlika", "-variant", "cpu", "-a", a, "-b", b, "-o", c); code != 0 {
		t.Fatalf("razlika -a -b -o: exit %d\n%s%s", code, stdout, stderr)
	}
	got, err := data.Read(c)
	if err != nil {
		t.Fatal(err)
	}
	cv, _, _ := got.Float32s()
	for i := range av {
		if cv[i] != av[i]-bv[i] {
			t.Errorf("c[%d] = %v, want %v", i, cv[i], av[i]-bv[i])
		}
	}
	if code, stdout, stderr := run(t, "razdalja", "-variant", "cpu", "-a", a, "-b", b); code != 0 || !strings.Contains(stdout, "PASS") {
		t.Errorf("razdalja -a -b: exit %d\n%s%s", code, stdout, stderr)
	}
	sorted := filepath.Join(dir, "sorted.npy")
	code, stdout, stderr := run(t, "urejanje", "-variant", "cpu", "-keys", "../data/testdata/i4.npy", "-pairs", "-desc", "-o", sorted)
	if code != 0 {
		t.Fatalf("urejanje -keys -o: exit %d\n%s%s", code, stdout, stderr)
	}
	keys, err := data.Read(sorted)
	if err != nil || keys.Dtype != data.Int32 {
		t.Fatalf("%v %+v", err, keys)
	}
	kw, _ := keys.Words()
	values, err := data.Read(filepath.Join(dir, "sorted.values.npy"))
	if err != nil {
		t.Fatal(err)
	}
	vw, _ := values.Words()
	// i4.npy holds -3, 0, 7, 2^31-1, -2^31: descending, with the indices as values
	want := []int32{2147483647, 7, 0, -3, -2147483648}
	wantIdx := []uint32{3, 2, 1, 0, 4}
	for i := range want {
		if int32(kw[i]) != want[i] || vw[i] != wantIdx[i] {
			t.Errorf("position %d: key %d value %d, want %d and %d", i, int32(kw[i]), vw[i], want[i], wantIdx[i])
		}
	}
}

func TestWithoutGPU(t *testing.T) {
	if gpuReason() == "" {
		t.Skip("a GPU is present: the no-GPU paths cannot be seen here")
	}
	for _, name := range commands(t) {
		for _, args := range [][]string{{"-n", "1000"}, {"-variant", "all"}, {"-info"}} {
			code, _, stderr := run(t, name, args...)
			if code != 3 || !strings.Contains(stderr, "no usable GPU") || !strings.Contains(stderr, "-variant cpu") {
				t.Errorf("%s %v without a GPU: exit %d, %q; want 3 and a pointer to -variant cpu", name, args, code, stderr)
			}
		}
		code, stdout, stderr := run(t, name, "-variant", "cpu", "-n", "2^20+3", "-reps", "2")
		if code != 0 || !strings.Contains(stdout, "PASS") {
			t.Errorf("%s -variant cpu: exit %d\n%s%s", name, code, stdout, stderr)
		}
	}
}

func TestOnGPU(t *testing.T) {
	if reason := gpuReason(); reason != "" {
		t.Skip("no usable GPU: " + reason)
	}
	for _, name := range commands(t) {
		code, stdout, stderr := run(t, name, "-variant", "all", "-n", "100003", "-reps", "3", "-json")
		if code != 0 {
			t.Fatalf("%s -variant all: exit %d\n%s%s", name, code, stdout, stderr)
		}
		var r struct {
			Rows []struct {
				Variant, Refused string
				Pass             bool
			}
		}
		if err := json.Unmarshal([]byte(stdout), &r); err != nil {
			t.Fatalf("%s -json: %v\n%s", name, err, stdout)
		}
		ran := 0
		for _, row := range r.Rows {
			if row.Refused == "" {
				ran++
				if !row.Pass {
					t.Errorf("%s %s failed", name, row.Variant)
				}
			}
		}
		if ran < 4 {
			t.Errorf("%s: only %d variants ran: %s", name, ran, stdout)
		}
		for _, n := range []string{"2^40", "2^62", "2^61+2^60"} { // 24 x 2^62 wraps an int64 to 0
			if code, _, stderr := run(t, name, "-n", n); code != 2 || !strings.Contains(stderr, "device memory") ||
				!strings.Contains(stderr, "or less") || strings.Contains(stderr, "-n -") {
				t.Errorf("%s -n %s: exit %d %q; want 2 and a memory message with a positive n", name, n, code, stderr)
			}
		}
		code, stdout, _ = run(t, name, "-info")
		for _, v := range programNamed(t, name).Variants() {
			for _, k := range v.Kernels {
				if !strings.Contains(stdout, k) {
					t.Errorf("%s -info does not list %s's kernel %s", name, v.Name, k)
				}
			}
		}
	}
	code, _, stderr := run(t, "razlika", "-variant", "1", "-n", "5000")
	if code != 2 || !strings.Contains(stderr, "n <= 1024") {
		t.Errorf("razlika -variant 1 -n 5000: exit %d %q; want 2 and its domain", code, stderr)
	}
}
