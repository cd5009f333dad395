package cli_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"tecaj/internal/cli"
	"tecaj/internal/cli/clitest"
	"tecaj/internal/report"
)

type multiRow struct {
	Variant string
	Pass    bool
	Result  *float64
	Index   *int64
	Error   *float64
	Note    string
}

// multiRun runs a command with -json and returns its rows by variant.
func multiRun(t *testing.T, name string, args ...string) map[string]multiRow {
	t.Helper()
	code, stdout, stderr := clitest.Run(t, name, append(args, "-json")...)
	var r struct{ Rows []multiRow }
	if err := json.Unmarshal([]byte(stdout), &r); code != 0 || err != nil {
		t.Fatalf("%s %s: exit %d, %v\n%s%s", name, strings.Join(args, " "), code, err, stdout, stderr)
	}
	rows := map[string]multiRow{}
	for _, row := range r.Rows {
		rows[row.Variant] = row
	}
	return rows
}

// gpuCount is the number of GPUs nvidia-smi lists (0 without it).
func gpuCount() int {
	out, err := exec.Command("nvidia-smi", "-L").Output()
	if err != nil {
		return 0
	}
	return strings.Count(string(out), "GPU ")
}

// Best over several GPUs, through NCCL: every program and op, on 1 GPU (the NCCL path alone) and
// on every GPU count this machine has up to 8; each row passes its check against the float64
// reference; integer, min, max and arg results equal one GPU's best exactly; a float result is
// the same bits over repeated runs.
func TestMultiGPU(t *testing.T) {
	if reason := clitest.NoGPU(); reason != "" {
		t.Skip("no usable GPU: " + reason)
	}
	counts := []int{1}
	for g := 2; g <= gpuCount() && g <= 8; g *= 2 {
		counts = append(counts, g)
	}
	type job struct {
		name  string
		args  []string
		exact bool
	}
	var jobs []job
	n := "1000003"
	jobs = append(jobs, job{"razdalja", []string{"-n", n}, false})
	// every op on float32; int32 sums, dots and arg; float64 sums and minima (NCCL starts in each run:
	// a second or two)
	for _, c := range []string{"sum float32", "min float32", "max float32", "mean float32", "norm float32", "dot float32",
		"argmin float32", "argmax float32", "sum int32", "dot int32", "argmax int32", "sum float64", "min float64"} {
		op, typ, _ := strings.Cut(c, " ")
		exact := typ == "int32" || op == "min" || op == "max" || strings.HasPrefix(op, "arg")
		jobs = append(jobs, job{"redukcija", []string{"-n", n, "-op", op, "-type", typ}, exact})
	}
	for _, extra := range [][]string{{}, {"-exclusive"}, {"-seglen", "mixed"}, {"-seglen", "1000", "-exclusive"}, {"-op", "max"},
		{"-type", "int32"}, {"-type", "int32", "-op", "min", "-seglen", "mixed", "-exclusive"},
		{"-n", "1"}, {"-n", "17", "-seglen", "mixed"}} { // (one element: the last GPU's slice is empty)
		jobs = append(jobs, job{"prefiks", append([]string{"-n", n}, extra...), false})
	}
	for _, j := range jobs {
		for _, g := range counts {
			multiCheck(t, j.name, g, j.args, j.exact)
		}
	}
	// fewer elements than GPUs, and just past them: every GPU count of this host, every program
	// (empty slices come last: a scan's carries before a GPU that has elements are never empty)
	for _, g := range counts[1:] {
		seen := map[int]bool{}
		for _, n := range []int{1, 2, g - 1, g + 1} {
			if n < 1 || seen[n] {
				continue
			}
			seen[n] = true
			size := []string{"-n", fmt.Sprint(n)}
			for _, j := range []job{{"razdalja", size, false}, {"redukcija", append(size, "-op", "sum", "-type", "int32"), true},
				{"redukcija", append(size, "-op", "argmin"), true}, {"prefiks", size, false},
				{"prefiks", append(size, "-seglen", "mixed", "-exclusive"), false}} {
				multiCheck(t, j.name, g, j.args, j.exact)
			}
		}
	}
}

// multiCheck runs best over g GPUs beside one GPU's and checks both pass; exact results (integers,
// selections) must be one GPU's bits, and a float result the same bits run to run.
func multiCheck(t *testing.T, name string, g int, jargs []string, exact bool) {
	t.Helper()
	args := append([]string{"-variant", "best", "-gpus", fmt.Sprint(g), "-reps", "2"}, jargs...)
	rows := multiRun(t, name, args...)
	multi, one := rows[fmt.Sprintf("best/%dgpu", g)], rows["best"]
	if !multi.Pass || !one.Pass {
		t.Errorf("%s %v: best over %d GPUs %v, one GPU's %v (%s)", name, args, g, multi.Pass, one.Pass, multi.Note)
		return
	}
	if exact && (*multi.Result != *one.Result && !(math.IsNaN(*multi.Result) && math.IsNaN(*one.Result)) ||
		(one.Index != nil && *multi.Index != *one.Index)) {
		t.Errorf("%s %v: %d GPUs give %v (index %v), one GPU %v (index %v)", name, args, g, *multi.Result, multi.Index, *one.Result, one.Index)
	}
	if name != "prefiks" && g > 1 { // a float result is the same bits run to run
		again := multiRun(t, name, args...)[fmt.Sprintf("best/%dgpu", g)]
		if math.Float64bits(*again.Result) != math.Float64bits(*multi.Result) {
			t.Errorf("%s %v: %v, then %v", name, args, *multi.Result, *again.Result)
		}
	}
}

// -nranks: two processes on this host, one GPU each, meeting at a coordinator on localhost: rank
// 0 reports a passing row, rank 1 says it passed; given by flags, and as a launcher gives them
// (OpenMPI's and Slurm's variables, the coordinator from TECAJ_COORDINATOR).
func TestMultiProcess(t *testing.T) {
	if reason := clitest.NoGPU(); reason != "" {
		t.Skip("no usable GPU: " + reason)
	}
	if gpuCount() < 2 {
		t.Skip("one GPU: NCCL refuses two ranks on one device")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skip("no TCP:", err)
	}
	addr := ln.Addr().String()
	ln.Close()
	launch := func(how string, rank int) (env, args []string) {
		switch how {
		case "OpenMPI":
			return []string{"OMPI_COMM_WORLD_SIZE=2", fmt.Sprint("OMPI_COMM_WORLD_RANK=", rank), "OMPI_COMM_WORLD_LOCAL_SIZE=2",
				fmt.Sprint("OMPI_COMM_WORLD_LOCAL_RANK=", rank), "TECAJ_COORDINATOR=" + addr}, nil
		case "Slurm": // (two nodes as Slurm says it: the coordinator must be named)
			return []string{"SLURM_NTASKS=2", fmt.Sprint("SLURM_PROCID=", rank), fmt.Sprint("SLURM_LOCALID=", rank), "SLURM_NNODES=2",
				"TECAJ_COORDINATOR=" + addr}, nil
		}
		return nil, []string{"-nranks", "2", "-rank", fmt.Sprint(rank), "-coordinator", addr}
	}
	for _, how := range []string{"flags", "OpenMPI", "Slurm"} {
		for _, prog := range []string{"redukcija", "prefiks"} {
			var wg sync.WaitGroup
			outs := make([]string, 2)
			codes := make([]int, 2)
			for rank := 0; rank < 2; rank++ {
				wg.Add(1)
				go func(rank int) {
					defer wg.Done()
					var errOut string
					env, args := launch(how, rank)
					codes[rank], outs[rank], errOut = clitest.RunEnv(t, env, prog, append(args, "-n", "1000003", "-reps", "2")...)
					outs[rank] += errOut
				}(rank)
			}
			wg.Wait()
			if codes[0] != 0 || codes[1] != 0 || !strings.Contains(outs[0], "best/2gpu") || !strings.Contains(outs[1], "rank 1 of 2: best/2gpu PASS") {
				t.Errorf("%s by %s: exits %v\nrank 0:\n%s\nrank 1:\n%s", prog, how, codes, outs[0], outs[1])
			}
		}
	}
}

// The flags of several GPUs, without a GPU: each misuse is one line and exit 2 for the programs
// that take them; the others do not know -gpus.
func TestMultiFlagsBadUsage(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"-gpus", "9"}, "-gpus 9: from 1 to 8"},
		{[]string{"-gpus", "-1"}, "-gpus -1: from 1 to 8"},
		{[]string{"-gpus", "2", "-nranks", "2", "-coordinator", "h:1"}, "one or the other"},
		{[]string{"-nranks", "2"}, "-nranks needs -coordinator"},
		{[]string{"-nranks", "2", "-rank", "2", "-coordinator", "h:1"}, "-rank 2 -nranks 2: the rank from 0 to 1"},
		{[]string{"-nranks", "-2"}, "-nranks -2: from 1 to 4096 processes"},
		{[]string{"-nranks", "100000", "-coordinator", "h:1"}, "-nranks 100000: from 1 to 4096 processes"},
		{[]string{"-nranks", "2", "-coordinator", "host0"}, `-coordinator "host0" is not HOST:PORT`},
		{[]string{"-nranks", "2", "-coordinator", "host0:0"}, "the port must be from 1 to 65535"},
		{[]string{"-rank", "1"}, "go with -nranks"},
		{[]string{"-gpus", "2", "-n", "2^10,2^12"}, "one size"},
	}
	for _, name := range []string{"razdalja", "redukcija", "prefiks"} {
		for _, c := range cases {
			code, _, stderr := clitest.Run(t, name, c.args...)
			if code != 2 || !strings.Contains(stderr, c.want) || !clitest.OneLine(stderr) {
				t.Errorf("%s %v: exit %d, stderr %q; want exit 2 and one line with %q", name, c.args, code, stderr, c.want)
			}
		}
	}
	for _, name := range []string{"razlika", "urejanje", "konvolucija"} {
		if code, _, stderr := clitest.Run(t, name, "-gpus", "2"); code != 2 || !strings.Contains(stderr, "not defined") {
			t.Errorf("%s -gpus 2: exit %d, %q", name, code, stderr)
		}
	}
}

// Under a launcher (mpiexec, srun), -nranks and -rank come from its environment; a broken or
// disagreeing one is refused before any work: exit 2, one line naming the variable.
func TestLauncherEnvBadUsage(t *testing.T) {
	ompi := []string{"OMPI_COMM_WORLD_SIZE=4", "OMPI_COMM_WORLD_RANK=1", "OMPI_COMM_WORLD_LOCAL_SIZE=4", "OMPI_COMM_WORLD_LOCAL_RANK=1"}
	cases := []struct {
		env  []string
		args []string
		want string
	}{
		{append(ompi, "OMPI_COMM_WORLD_RANK=4"), nil, "OMPI_COMM_WORLD_RANK=4 is outside 0..3"},
		{[]string{"SLURM_NTASKS=1", "SLURM_PROCID=1"}, nil, "SLURM_PROCID=1 is outside 0..0"},
		{append(ompi, "PMI_SIZE=2", "PMI_RANK=1"), nil, "OMPI_COMM_WORLD_SIZE=4 and PMI_SIZE=2 disagree"},
		{append(ompi, "PMI_SIZE=4", "PMI_RANK=0"), nil, "OMPI_COMM_WORLD_RANK=1 and PMI_RANK=0 disagree"},
		{[]string{"PMI_RANK=1"}, nil, "PMI_RANK is set but PMI_SIZE is not"},
		{ompi, []string{"-nranks", "2"}, "-nranks 2, but OMPI_COMM_WORLD_SIZE=4"},
		{ompi, []string{"-rank", "2"}, "-rank 2, but OMPI_COMM_WORLD_RANK=1"},
		{ompi, []string{"-gpus", "2"}, "-gpus 2: this process is one of 4 (OMPI_COMM_WORLD_SIZE=4)"},
		{append(ompi, "OMPI_COMM_WORLD_LOCAL_SIZE=2"), nil, "-nranks needs -coordinator HOST:PORT"}, // two hosts
		{[]string{"SLURM_NTASKS=8", "SLURM_PROCID=3", "SLURM_LOCALID=3", "SLURM_NNODES=2"}, nil, "-nranks needs -coordinator"},
		{append(ompi, "TECAJ_COORDINATOR=host0"), nil, `TECAJ_COORDINATOR "host0" is not HOST:PORT`},
		{ompi, []string{"-coordinator", "host0:99999"}, `-coordinator "host0:99999": the port must be`},
		{ompi, []string{"-n", "2^10,2^12"}, "one size"},
	}
	ran := 0
	for _, name := range []string{"redukcija", "razdalja", "prefiks"} {
		for _, c := range cases {
			code, _, stderr := clitest.RunEnv(t, c.env, name, c.args...)
			if code != 2 || !strings.Contains(stderr, c.want) || !clitest.OneLine(stderr) {
				t.Errorf("%s %v %v: exit %d, stderr %q; want exit 2 and one line with %q", name, c.env, c.args, code, stderr, c.want)
			}
			ran++
		}
	}
	// the programs without several GPUs ignore a launcher
	if code, _, stderr := clitest.RunEnv(t, ompi, "razlika", "-n", "1000", "-variant", "cpu", "-reps", "1"); code != 0 {
		t.Errorf("razlika under OpenMPI's variables: exit %d, %s", code, stderr)
	}
	if ran < 3*13 {
		t.Fatalf("ran %d", ran)
	}
}

// Without a driver, every path over several GPUs says so as one GPU's does (not the runtime's
// "driver version is insufficient"), exit 3: -gpus, -nranks, and ranks that a launcher's
// variables set (rank 0 runs one GPU's rows first, the others only the run over several).
func TestMultiNoDriver(t *testing.T) {
	if clitest.NoGPU() == "" {
		t.Skip("a GPU is here")
	}
	if _, err := os.Stat("/proc/driver/nvidia/version"); err == nil {
		t.Skip("an NVIDIA driver is here")
	}
	cases := []struct {
		env  []string
		args []string
	}{
		{nil, []string{"-gpus", "2", "-variant", "cpu"}},
		{nil, []string{"-gpus", "2"}},
		{nil, []string{"-nranks", "2", "-rank", "1", "-coordinator", "127.0.0.1:1"}},
		{nil, []string{"-nranks", "2", "-rank", "0", "-coordinator", "127.0.0.1:1", "-variant", "cpu"}},
		{[]string{"OMPI_COMM_WORLD_SIZE=2", "OMPI_COMM_WORLD_RANK=1", "OMPI_COMM_WORLD_LOCAL_SIZE=2", "OMPI_COMM_WORLD_LOCAL_RANK=1"}, nil},
		{[]string{"PMI_SIZE=2", "PMI_RANK=0", "MPI_LOCALNRANKS=2", "MPI_LOCALRANKID=0"}, []string{"-variant", "cpu"}},
		{[]string{"SLURM_NTASKS=4", "SLURM_PROCID=3", "SLURM_LOCALID=1", "SLURM_NNODES=2", "TECAJ_COORDINATOR=host0:29500"}, nil},
	}
	for _, name := range []string{"redukcija", "razdalja", "prefiks"} {
		for _, c := range cases {
			code, _, stderr := clitest.RunEnv(t, c.env, name, append([]string{"-n", "1000", "-reps", "1"}, c.args...)...)
			if code != 3 || !strings.Contains(stderr, "no NVIDIA driver found") || strings.Contains(stderr, "insufficient") {
				t.Errorf("%s %v %v: exit %d, stderr %q; want exit 3 and no NVIDIA driver found", name, c.env, c.args, code, stderr)
			}
		}
	}
}

// A run's row over several GPUs: the slowest GPU's kernel, what the combine adds to it round by
// round, and each GPU's kernel and combine medians in the note, where a GPU that waited for a
// later one shows the longer combine (here GPU 1's rounds started 50 us after GPU 0's).
func TestMultiRowNamesEachGPUsKernelAndCombine(t *testing.T) {
	m := &cli.Multi{Ranks: 2, Local: []*cli.Rank{{Rank: 0}, {Rank: 1, Local: 1}}}
	times := []cli.Times{
		{Kernel: []float64{1.000, 1.001, 1.002}, Combine: []float64{0.060, 0.061, 0.090}},
		{Kernel: []float64{1.000, 1.000, 1.000}, Combine: []float64{0.010, 0.010, 0.010}},
	}
	row := m.Row(report.Row{}, times, 0.5)
	near := func(got report.Num, want float64) bool { return math.Abs(float64(got)-want) < 1e-9 }
	if row.Variant != "best/2gpu" || !near(row.KernelMs, 1.001) || !near(row.HostMs, 0.061) || !near(row.TotalMs, 1.562) {
		t.Errorf("row %s: kernel %v, host %v, total %v; want best/2gpu, 1.001, 0.061, 1.562", row.Variant, row.KernelMs, row.HostMs, row.TotalMs)
	}
	if want := "kernel us a GPU (one process): 1001.0, 1000.0; its combine: 61.0, 10.0; host us"; !strings.Contains(row.Note, want) {
		t.Errorf("note %q, want it to hold %q", row.Note, want)
	}
	// a scan's row whose last GPU waits in its combine, then scans, and ends last
	times = []cli.Times{
		{Kernel: []float64{2.000, 2.002, 2.001}, Combine: []float64{0.010, 0.012, 0.011}, After: []float64{1.500, 1.502, 1.501}},
		{Kernel: []float64{1.510, 1.512, 1.511}, Combine: []float64{0.520, 0.518, 0.519}, After: []float64{1.510, 1.512, 1.511}},
	}
	row = m.Row(report.Row{}, times, 0)
	if !near(row.KernelMs, 2.001) || !near(row.HostMs, 0.029) {
		t.Errorf("scan row: kernel %v, host %v; want 2.001, 0.029 (the last GPU's end, 2.030, less the slowest kernel)", row.KernelMs, row.HostMs)
	}
	want := "its combine: 11.0, 519.0; of its kernel, after the combine: 1501.0, 1511.0; each GPU ends at (us from the round's start): 2012.0, 2030.0; host us"
	if !strings.Contains(row.Note, want) {
		t.Errorf("note %q, want it to hold %q", row.Note, want)
	}
}
