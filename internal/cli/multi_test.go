package cli_test

import (
	"encoding/json"
	"fmt"
	"math"
	"net"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"tecaj/internal/cli/clitest"
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
			args := append([]string{"-variant", "best", "-gpus", fmt.Sprint(g), "-reps", "2"}, j.args...)
			rows := multiRun(t, j.name, args...)
			multi, one := rows[fmt.Sprintf("best/%dgpu", g)], rows["best"]
			if !multi.Pass || !one.Pass {
				t.Errorf("%s %v: best over %d GPUs %v, one GPU's %v (%s)", j.name, args, g, multi.Pass, one.Pass, multi.Note)
				continue
			}
			if j.exact && (*multi.Result != *one.Result && !(math.IsNaN(*multi.Result) && math.IsNaN(*one.Result)) ||
				(one.Index != nil && *multi.Index != *one.Index)) {
				t.Errorf("%s %v: %d GPUs give %v (index %v), one GPU %v (index %v)", j.name, args, g, *multi.Result, multi.Index, *one.Result, one.Index)
			}
			if j.name != "prefiks" && g > 1 { // a float result is the same bits run to run
				again := multiRun(t, j.name, args...)[fmt.Sprintf("best/%dgpu", g)]
				if math.Float64bits(*again.Result) != math.Float64bits(*multi.Result) {
					t.Errorf("%s %v: %v, then %v", j.name, args, *multi.Result, *again.Result)
				}
			}
		}
	}
}

// -nranks: two processes on this host, one GPU each where there are two (else both on GPU 0),
// meeting at a coordinator on localhost: rank 0 reports a passing row, rank 1 says it passed.
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
	for _, prog := range []string{"redukcija", "prefiks"} {
		var wg sync.WaitGroup
		outs := make([]string, 2)
		codes := make([]int, 2)
		for rank := 0; rank < 2; rank++ {
			wg.Add(1)
			go func(rank int) {
				defer wg.Done()
				var errOut string
				codes[rank], outs[rank], errOut = clitest.Run(t, prog, "-nranks", "2", "-rank", fmt.Sprint(rank), "-coordinator", addr,
					"-n", "1000003", "-reps", "2")
				outs[rank] += errOut
			}(rank)
		}
		wg.Wait()
		if codes[0] != 0 || codes[1] != 0 || !strings.Contains(outs[0], "best/2gpu") || !strings.Contains(outs[1], "rank 1 of 2: best/2gpu PASS") {
			t.Errorf("%s: exits %v\nrank 0:\n%s\nrank 1:\n%s", prog, codes, outs[0], outs[1])
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
		{[]string{"-nranks", "2", "-rank", "2", "-coordinator", "h:1"}, "the rank from 0 to nranks-1"},
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
