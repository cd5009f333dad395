package main

import (
	"encoding/binary"
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
	f4, u1, short := filepath.Join(dir, "f4.npy"), filepath.Join(dir, "u1.npy"), filepath.Join(dir, "short.npy")
	if err := cli.FirstError(data.WriteFloat32s(f4, []float32{1, -2, 3}), data.Write(u1, data.Uint8, []int{3}, []byte{1, 0, 1}),
		data.Write(short, data.Uint8, []int{2}, []byte{1, 0})); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-op", "product"}, `-op "product" is unknown`},
		{[]string{"-type", "float64"}, `-type "float64" is unknown`},
		{[]string{"-seglen", "0"}, "a length of at least 1"},
		{[]string{"-seglen", "3", "-flags", u1}, "choose one"},
		{[]string{"-a", f4, "-type", "int32"}, "does not match"},
		{[]string{"-a", f4, "-flags", short}, "2 flags for 3 elements"},
		{[]string{"-a", f4, "-flags", f4}, "uint8 or bool"},
		{[]string{"-variant", "warp", "-blocks", "3"}, "sizes its own grid"},
	} {
		if code, _, stderr := clitest.Run(t, "prefiks", c.args...); code != 2 || !strings.Contains(stderr, c.want) || !clitest.OneLine(stderr) {
			t.Errorf("prefiks %v: exit %d, %q; want 2 and one line with %q", c.args, code, stderr, c.want)
		}
	}
}

// A file in, segments from a file, the scan written with -o and read back.
func TestFilesRoundTrip(t *testing.T) {
	dir := t.TempDir()
	in, flags, out := filepath.Join(dir, "in.npy"), filepath.Join(dir, "flags.npy"), filepath.Join(dir, "out.npy")
	if err := cli.FirstError(data.WriteWords(in, data.Int32, []uint32{1, 2, 3, 4, 5}),
		data.Write(flags, data.Bool, []int{5}, []byte{0, 0, 1, 0, 1})); err != nil {
		t.Fatal(err)
	}
	variant := "cpu"
	if clitest.NoGPU() == "" {
		variant = "all"
	}
	if code, stdout, stderr := clitest.Run(t, "prefiks", "-variant", variant, "-a", in, "-flags", flags, "-exclusive", "-o", out); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	a, err := data.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := a.Words()
	for i, want := range []uint32{0, 1, 0, 3, 0} {
		if w[i] != want {
			t.Errorf("out[%d] = %d, want %d", i, w[i], want)
		}
	}
}

// NumPy's default dtypes: float64 is rounded to float32 (noted only where a value changes), and
// int64 read as int32 where every value fits; prefiks refused both.
func TestNumPyDefaultDtypes(t *testing.T) {
	dir := t.TempDir()
	f8, f8r, i8 := filepath.Join(dir, "f8.npy"), filepath.Join(dir, "f8r.npy"), filepath.Join(dir, "i8.npy")
	put := func(path, dtype string, bits ...uint64) {
		b := make([]byte, 8*len(bits))
		for i, v := range bits {
			binary.LittleEndian.PutUint64(b[8*i:], v)
		}
		if err := data.Write(path, dtype, []int{len(bits)}, b); err != nil {
			t.Fatal(err)
		}
	}
	put(f8, data.Float64, math.Float64bits(1.5), math.Float64bits(-2), math.Float64bits(0.25))
	put(f8r, data.Float64, math.Float64bits(0.1), math.Float64bits(-2))
	put(i8, data.Int64, 5, uint64(1<<64-3), 7)
	for _, c := range []struct {
		file, note string
	}{{f8, ""}, {f8r, "1 of 2 values changed"}, {i8, ""}} {
		code, stdout, stderr := clitest.Run(t, "prefiks", "-variant", "cpu", "-a", c.file)
		if code != 0 || !strings.Contains(stdout, "PASS") || (c.note == "") != (stderr == "") || !strings.Contains(stderr, c.note) {
			t.Errorf("prefiks -a %s: exit %d, stderr %q (want the note %q)\n%s", filepath.Base(c.file), code, stderr, c.note, stdout)
		}
	}
}
