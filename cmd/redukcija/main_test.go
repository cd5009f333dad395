package main

import (
	"path/filepath"
	"strings"
	"testing"

	"tecaj/internal/cli"
	"tecaj/internal/cli/clitest"
	"tecaj/internal/data"
)

func TestMain(m *testing.M) { clitest.Main(m) }

func TestUsage(t *testing.T) {
	dir := t.TempDir()
	f4, i4, f4short := filepath.Join(dir, "f4.npy"), filepath.Join(dir, "i4.npy"), filepath.Join(dir, "short.npy")
	if err := cli.FirstError(data.WriteFloat32s(f4, []float32{1, -2, 3}), data.WriteWords(i4, data.Int32, []uint32{1, 2, 3}),
		data.WriteFloat32s(f4short, []float32{1})); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-op", "median"}, `-op "median" is unknown`},
		{[]string{"-type", "int8"}, `-type "int8" is unknown`},
		{[]string{"-variant", "r3", "-op", "argmin"}, "domain"},
		{[]string{"-variant", "r0", "-threads", "96"}, "power of two"},
		{[]string{"-variant", "best", "-blocks", "7"}, "sizes its own grid"},
		{[]string{"-b", f4}, "-b needs -a"},
		{[]string{"-a", f4, "-op", "dot"}, "needs -b"},
		{[]string{"-a", f4, "-b", f4short, "-op", "dot"}, "same length and type"},
		{[]string{"-a", f4, "-b", i4, "-op", "dot"}, "same length and type"},
		{[]string{"-a", f4, "-type", "int32"}, "does not match"},
		{[]string{"-a", f4, "-n", "5"}, "-n 5 does not match"},
	} {
		code, _, stderr := clitest.Run(t, "redukcija", c.args...)
		if c.want == "domain" && clitest.NoGPU() != "" {
			continue // the domain is checked once a device is open
		}
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("redukcija %v: exit %d, %q; want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// Data from files: every operator on the host (and every variant where there is a GPU) passes.
func TestFilesEveryOperator(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.npy"), filepath.Join(dir, "b.npy")
	if err := cli.FirstError(data.WriteWords(a, data.Int32, []uint32{5, 0xfffffffd, 9, 9, 0xfffffffd, 7}),
		data.WriteWords(b, data.Int32, []uint32{1, 2, 3, 4, 5, 6})); err != nil {
		t.Fatal(err)
	}
	variant := "cpu"
	if clitest.NoGPU() == "" {
		variant = "all"
	}
	for _, op := range []string{"sum", "min", "max", "mean", "norm", "dot", "argmin", "argmax"} {
		code, stdout, stderr := clitest.Run(t, "redukcija", "-variant", variant, "-a", a, "-b", b, "-op", op, "-reps", "2")
		if code != 0 || !strings.Contains(stdout, "PASS") {
			t.Errorf("redukcija -op %s on int32 files: exit %d\n%s%s", op, code, stdout, stderr)
		}
	}
}
