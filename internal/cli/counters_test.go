package cli

import (
	"flag"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"tecaj/internal/cli/clitest"
	"tecaj/internal/gpu"
	"tecaj/internal/report"
)

// fakeNcu puts a script named ncu, with body, in a fresh folder and makes that folder the whole
// PATH, with no folder searched after it; the test's end restores both.
func fakeNcu(t *testing.T, body string) string {
	t.Helper()
	dir := t.TempDir()
	if body != "" {
		if err := os.WriteFile(filepath.Join(dir, "ncu"), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", dir)
	saved := ncuDirs
	ncuDirs = func() []string { return nil }
	t.Cleanup(func() { ncuDirs = saved })
	return dir
}

// tool is a program's path on the PATH the test started with (fakeNcu's PATH has nothing else).
func tool(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		t.Skip(err)
	}
	return p
}

// a report as the timing run leaves it: two lecture rows, one outside its domain, the host's
func countersReport(t *testing.T) (Command, *report.Report) {
	t.Helper()
	var p *gpu.Program
	for _, q := range gpu.Programs() {
		if q.Name == "redukcija" {
			p = q
		}
	}
	if p == nil {
		t.Fatal("no redukcija program")
	}
	c := Command{Program: p, HostVariants: []HostVariant{{Name: "cpu"}}, Claims: []Claim{{Variant: "r1", Than: "r0", Counter: "divergent", Fewer: true}}}
	r := &report.Report{Program: "redukcija", N: 1 << 24, Rows: []report.Row{{Variant: "r0", Bytes: 1 << 26}, {Variant: "r1", Bytes: 1 << 26},
		report.RefusedRow("b1", "outside domain"), {Variant: "cpu"}}}
	return c, r
}

func TestCountersWithoutNcu(t *testing.T) {
	fakeNcu(t, "")
	if p := findNcu(); p != "" {
		t.Fatalf("found %s with an empty PATH", p)
	}
	c, r := countersReport(t)
	c.addCounters(Options{N: 1 << 24}, r, io.Discard)
	if r.CountersNote != noNcuNote || !strings.Contains(r.CountersNote, "no ncu") {
		t.Errorf("note %q", r.CountersNote)
	}
	for _, row := range r.Rows[:3] {
		if row.Counters != nil || row.CountersWhy != "" {
			t.Errorf("%s: %+v %q", row.Variant, row.Counters, row.CountersWhy)
		}
	}
	if !strings.Contains(r.Rows[3].CountersWhy, "host") {
		t.Errorf("the host row does not say why it has no counters")
	}
	var b strings.Builder
	r.WriteTable(&b)
	if strings.Count(b.String(), "counters: not read: no ncu") != 1 {
		t.Errorf("want one line saying why:\n%s", b.String())
	}
	// found on PATH, or in a folder searched after it
	dir := fakeNcu(t, "exit 0")
	if p := findNcu(); p != filepath.Join(dir, "ncu") {
		t.Errorf("on PATH: found %q", p)
	}
	t.Setenv("PATH", t.TempDir())
	ncuDirs = func() []string { return []string{t.TempDir(), dir} }
	if p := findNcu(); p != filepath.Join(dir, "ncu") {
		t.Errorf("beside nvcc: found %q", p)
	}
}

func TestCountersWithoutPermission(t *testing.T) {
	fakeNcu(t, `echo "==PROF== Connected to process 7 ($2)"
echo "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters on the target device 0." >&2
echo "==PROF== Disconnected from process 7"
exit 1`)
	c, r := countersReport(t)
	c.addCounters(Options{N: 1 << 24}, r, io.Discard)
	if r.CountersNote != permissionNote {
		t.Fatalf("note %q", r.CountersNote)
	}
	for _, s := range []string{"ERR_NVGPUCTRPERM", "NVreg_RestrictProfilingToAdminUsers=0", "administrator"} {
		if !strings.Contains(r.CountersNote, s) {
			t.Errorf("the note lacks %q", s)
		}
	}
	for _, row := range r.Rows {
		if row.Counters != nil {
			t.Errorf("%s has counters", row.Variant)
		}
	}
	if len(r.Claims) != 0 {
		t.Errorf("claims checked without counters: %+v", r.Claims)
	}
}

// ncu's CSV, as ncu prints it after the command's own output: the counters reach the rows, the
// child is told it is the child, and the claims are checked.
func TestCountersFromNcu(t *testing.T) {
	fixture, err := filepath.Abs("../report/testdata/ncu-details.csv")
	if err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(t.TempDir(), "args")
	fakeNcu(t, `echo "$@" "$`+counterChildEnv+`" >> `+log+`
`+tool(t, "cat")+` `+fixture)
	c, r := countersReport(t)
	fs := flag.NewFlagSet("redukcija", flag.ContinueOnError)
	o := Options{N: 1 << 24, Set: map[string]bool{"n": true}}
	fs.Bool("json", false, "")
	fs.String("csv", "", "")
	o.args, o.flags = []string{"-n", "2^24", "-variant", "all", "-counters", "-json", "-csv", "x.csv", "-seed", "3"}, fs
	c.addCounters(o, r, io.Discard)
	for _, row := range r.Rows[:2] {
		if row.Counters == nil || row.Counters.Kernels != 2 || float64(row.Counters.Divergent) != 2097152+8192 {
			t.Errorf("%s: %+v %q", row.Variant, row.Counters, row.CountersWhy)
		}
	}
	if r.Rows[2].Counters != nil || r.CountersNote != "" {
		t.Errorf("refused row %+v, note %q", r.Rows[2].Counters, r.CountersNote)
	}
	if len(r.Claims) != 1 || r.Claims[0].Seen != "not seen on this GPU" { // (the same figures for both)
		t.Errorf("claims %+v", r.Claims)
	}
	b, _ := os.ReadFile(log)
	calls := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(calls) != 2 {
		t.Fatalf("ncu ran %d times, want one a device row:\n%s", len(calls), b)
	}
	for i, want := range []string{"-variant r0 -reps 1 -n 16777216 1", "-variant r1 -reps 1 -n 16777216 1"} {
		if !strings.HasSuffix(calls[i], " -seed 3 "+want) || !strings.Contains(calls[i], "--profile-from-start off") ||
			!strings.Contains(calls[i], "smsp__warps_launched.sum") || strings.Contains(calls[i], "-json") || strings.Contains(calls[i], "x.csv") || strings.Contains(calls[i], "-counters") {
			t.Errorf("call %d: %s", i, calls[i])
		}
	}
}

// A profiled run that does not finish is killed at the limit: the row says so, nothing hangs.
func TestCountersTimeOut(t *testing.T) {
	fakeNcu(t, tool(t, "sleep")+" 30; echo late")
	saved := counterTimeout
	counterTimeout = 500 * time.Millisecond
	defer func() { counterTimeout = saved }()
	c, r := countersReport(t)
	start := time.Now()
	c.addCounters(Options{N: 1 << 24}, r, io.Discard)
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %s", took)
	}
	if r.Rows[0].Counters != nil || !strings.Contains(r.Rows[0].CountersWhy, "did not finish") {
		t.Errorf("row r0: %+v %q", r.Rows[0].Counters, r.Rows[0].CountersWhy)
	}
}

func TestChildArgs(t *testing.T) {
	fs := flag.NewFlagSet("p", flag.ContinueOnError)
	fs.Bool("json", false, "")
	fs.Bool("counters", false, "")
	fs.String("o", "", "")
	fs.String("op", "", "")
	cases := []struct {
		args []string
		setN bool
		want string
	}{
		{[]string{"-n", "2^24", "-variant", "all", "-counters"}, true, "-variant r2 -reps 1 -n 33"},
		{[]string{"-op=min", "-counters", "-json", "-o", "out.npy", "--reps", "5", "-type", "int32"}, false, "-op=min -type int32 -variant r2 -reps 1"},
		{[]string{"-a", "x.npy", "-counters=true", "-plot", "p.svg", "-html=p.html", "-plot-counter", "warps"}, false, "-a x.npy -variant r2 -reps 1"},
		{[]string{"-gpus", "2", "-csv", "c.csv", "-threads", "128"}, false, "-threads 128 -variant r2 -reps 1"},
	}
	for _, c := range cases {
		o := Options{N: 33, Set: map[string]bool{"n": c.setN}, args: c.args, flags: fs}
		if got := strings.Join(childArgs(o, "r2"), " "); got != c.want {
			t.Errorf("%v: %q, want %q", c.args, got, c.want)
		}
	}
}

func TestProfileFirstOnlyInTheChild(t *testing.T) {
	calls := 0
	run := func() error { calls++; return nil }
	t.Setenv(counterChildEnv, "")
	if err := profileFirst(run)(); err != nil || calls != 1 || profiled {
		t.Errorf("outside the child: calls %d, profiled %v, %v", calls, profiled, err)
	}
}

func TestKernelRegex(t *testing.T) {
	f := kernelRegex([]string{"reduce_init<float,sum>", "reduce_r0<float,sum>", "reduce_r0<int32,max>", "tc::scan_best<f32,incl,8>"})
	if f != "regex:(^|::)(reduce_init|reduce_r0|scan_best)($|[<(])" {
		t.Fatalf("%q", f)
	}
	re := regexp.MustCompile(strings.TrimPrefix(f, "regex:"))
	for name, want := range map[string]bool{"reduce_r0": true, "reduce_init": true, "tc::scan_best": true, "reduce_r0<float>": true,
		"reduce_r01": false, "xreduce_r0": false, "gate_kernel": false, "reduce_r1": false} {
		if re.MatchString(name) != want {
			t.Errorf("%s: match %v", name, !want)
		}
	}
}

// The profiled run is one process whatever launcher started its parent: under mpiexec's
// variables it neither waits for ranks nor counts them (it ran as rank 0 of N and waited five
// minutes for ranks that had gone).
func TestCounterChildIgnoresTheLauncher(t *testing.T) {
	env := []string{"OMPI_COMM_WORLD_SIZE=2", "OMPI_COMM_WORLD_RANK=0", "OMPI_COMM_WORLD_LOCAL_SIZE=2", "OMPI_COMM_WORLD_LOCAL_RANK=0"}
	code, stdout, stderr := clitest.RunEnv(t, append(env, counterChildEnv+"=1"), "redukcija", "-n", "1000", "-variant", "cpu", "-reps", "1")
	if code != 0 || !strings.Contains(stdout, "PASS") || strings.Contains(stdout, "rank") {
		t.Errorf("the child under OpenMPI's variables: exit %d\n%s%s", code, stdout, stderr)
	}
	if code, _, _ := clitest.RunEnv(t, env, "redukcija", "-n", "1000", "-variant", "cpu", "-reps", "1", "-nranks", "3"); code != 2 {
		t.Errorf("the parent under OpenMPI's variables with -nranks 3: exit %d, want 2 (it reads the launcher)", code)
	}
}
