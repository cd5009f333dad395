package main

import (
	"encoding/json"
	"math"
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
		{[]string{"-variant", "r3", "-op", "argmin"}, "-variant r3 does not cover -n 1048576 -threads 0 -blocks 0 -op argmin -type float32: its domain is"},
		{[]string{"-variant", "r0", "-threads", "96"}, "power of two"},
		{[]string{"-variant", "best", "-blocks", "7"}, "sizes its own grid"},
		{[]string{"-b", f4}, "-b needs -a"},
		{[]string{"-a", f4, "-op", "dot"}, "needs -b"},
		{[]string{"-a", f4, "-b", f4short, "-op", "dot"}, "same length and type"},
		{[]string{"-a", f4, "-b", i4, "-op", "dot"}, "same length and type"},
		{[]string{"-a", f4, "-type", "int32"}, "does not match"},
		{[]string{"-a", f4, "-n", "5"}, "-n 5 does not match"},
	} {
		code, _, stderr := clitest.Run(t, "redukcija", c.args...) // (the domain needs no GPU: planned for the no-GPU profile)
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
		args := []string{"-variant", variant, "-a", a, "-op", op, "-reps", "2"}
		if op == "dot" { // (-b is dot's alone: beside another operator it is refused)
			args = append(args, "-b", b)
		}
		code, stdout, stderr := clitest.Run(t, "redukcija", args...)
		if code != 0 || !strings.Contains(stdout, "PASS") {
			t.Errorf("redukcija -op %s on int32 files: exit %d\n%s%s", op, code, stdout, stderr)
		}
	}
}

// What -json and the table report (on the host; where there is a GPU, every variant that takes
// the operator): the value for min and max, the index in its own field with the value there for
// argmin and argmax, a sum of only -0.0 as -0.0, int32 dots wrapping past 2^63 as int64 does.
func TestResults(t *testing.T) {
	dir := t.TempDir()
	m, z, big := filepath.Join(dir, "m.npy"), filepath.Join(dir, "z.npy"), filepath.Join(dir, "big.npy")
	negZero := math.Float32frombits(0x80000000)
	if err := cli.FirstError(data.WriteFloat32s(m, []float32{5, 3, -7.5, 2, 9}), data.WriteFloat32s(z, []float32{negZero, negZero, negZero}),
		data.WriteWords(big, data.Int32, []uint32{0x80000000, 0x80000000})); err != nil {
		t.Fatal(err)
	}
	variants := "cpu"
	if clitest.NoGPU() == "" {
		variants = "best,cub,cpu"
	}
	for _, c := range []struct {
		file, op string
		want     float64
		index    int64 // -1: no index field
		table    string
	}{
		{m, "min", -7.5, -1, " -7.5 "},
		{m, "max", 9, -1, " 9 "},
		{m, "argmin", -7.5, 2, "-7.5 at 2"},
		{m, "argmax", 9, 4, "9 at 4"},
		{z, "sum", math.Copysign(0, -1), -1, " -0 "},
		{z, "mean", math.Copysign(0, -1), -1, " -0 "},
		{big, "dot", -9223372036854775808, -1, "-9.223372e+18"},
		{big, "sum", -4294967296, -1, " -4294967296 "},
	} {
		args := []string{"-variant", variants, "-a", c.file, "-op", c.op, "-reps", "2"}
		if c.op == "dot" {
			args = append(args, "-b", c.file)
		}
		code, stdout, stderr := clitest.Run(t, "redukcija", append(args, "-json")...)
		var r struct {
			Rows []struct {
				Variant string
				Result  *float64
				Index   *int64
				Pass    bool
			}
		}
		if err := json.Unmarshal([]byte(stdout), &r); code != 0 || err != nil || len(r.Rows) == 0 {
			t.Errorf("redukcija %v: exit %d, %v\n%s%s", args, code, err, stdout, stderr)
			continue
		}
		for _, row := range r.Rows {
			if row.Result == nil || *row.Result != c.want || math.Signbit(*row.Result) != math.Signbit(c.want) || !row.Pass {
				t.Errorf("%s of %s, %s: result %v (pass %v), want %v", c.op, filepath.Base(c.file), row.Variant, row.Result, row.Pass, c.want)
			}
			if (row.Index == nil) != (c.index < 0) || (row.Index != nil && *row.Index != c.index) {
				t.Errorf("%s of %s, %s: index %v, want %d (-1: none)", c.op, filepath.Base(c.file), row.Variant, row.Index, c.index)
			}
		}
		if _, table, _ := clitest.Run(t, "redukcija", args...); !strings.Contains(table, c.table) {
			t.Errorf("redukcija %v: the table does not show %q:\n%s", args, c.table, table)
		}
	}
}

// cg's domain is the grid that stays resident: past it the refusal names this device's most
// (without a GPU, planned on the no-GPU profile, which it names).
func TestCgNamesItsMostBlocks(t *testing.T) {
	code, _, stderr := clitest.Run(t, "redukcija", "-variant", "cg", "-blocks", "100000")
	where := "on this GPU)"
	if clitest.NoGPU() != "" {
		where = "on the a100 profile (no GPU here))"
	}
	if code != 2 || !strings.Contains(stderr, "-variant cg does not cover") || !strings.Contains(stderr, "blocks of 256 threads "+where) {
		t.Errorf("redukcija -variant cg -blocks 100000: exit %d, %q", code, stderr)
	}
}
