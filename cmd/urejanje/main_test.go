package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tecaj/internal/cli/clitest"
	"tecaj/internal/data"
	"tecaj/internal/gpu"
)

func TestMain(m *testing.M) { clitest.Main(m) }

// fixtures writes small .npy files of keys and values into a temporary folder.
func fixtures(t *testing.T) (dir string) {
	t.Helper()
	dir = t.TempDir()
	must := func(err error) {
		if err != nil {
			t.Fatal(err)
		}
	}
	// -3, 0, 7, 2^31-1, -2^31 as int32
	must(data.WriteWords(filepath.Join(dir, "i4.npy"), data.Int32, []uint32{0xfffffffd, 0, 7, 0x7fffffff, 0x80000000}))
	must(data.WriteWords(filepath.Join(dir, "f4.npy"), data.Float32, []uint32{0x3fc00000, 0x80000000, 0x7f800000, 0x7fc00000, 1}))
	must(data.WriteWords(filepath.Join(dir, "u4.npy"), data.Uint32, []uint32{0, 1, 0xffffffff}))
	must(data.Write(filepath.Join(dir, "u1.npy"), data.Uint8, []int{3}, []byte{0, 1, 255}))
	return dir
}

func TestUsage(t *testing.T) {
	dir := fixtures(t)
	f := func(name string) string { return filepath.Join(dir, name) }
	if err := os.Mkdir(f("d.npy"), 0o755); err != nil {
		t.Fatal(err)
	}
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
		{[]string{"-keys", f("f4.npy"), "-type", "int32"}, "does not match"},
		{[]string{"-keys", f("f4.npy"), "-batch", "2"}, "not a multiple of -batch"},
		{[]string{"-keys", f("f4.npy"), "-n", "4"}, "-n 4 does not match"},
		{[]string{"-keys", f("u1.npy")}, "dtype |u1"},
		{[]string{"-keys", f("i4.npy"), "-values", f("u4.npy")}, "3 values for the 5 keys"},
		{[]string{"-keys", f("i4.npy"), "-values", f("f4.npy")}, "f4.npy: dtype <f4, where uint32 or int32 is needed"},
		{[]string{"-values", f("u4.npy")}, "-values needs -keys"},
		{[]string{"-keys", f("missing.npy")}, "missing.npy"},
		{[]string{"-keys", dir}, "is a directory"},
		{[]string{"-variant", "cpu", "-o", f("out.txt")}, "must end in .npy"},
		{[]string{"-variant", "cpu", "-o", f("missing/out.npy")}, "cannot write in"},
		{[]string{"-variant", "cpu", "-pairs", "-o", f("d.npy")}, "is a directory"},
	} {
		if code, _, stderr := clitest.Run(t, "urejanje", c.args...); code != 2 || !strings.Contains(stderr, c.want) || !clitest.OneLine(stderr) {
			t.Errorf("urejanje %v: exit %d, %q; want 2 and one line with %q", c.args, code, stderr, c.want)
		}
	}
}

// Keys from a file, sorted on the host, written with -o and read back: keys and values.
func TestKeysFileRoundTrip(t *testing.T) {
	dir := fixtures(t)
	sorted := filepath.Join(dir, "sorted.npy")
	code, stdout, stderr := clitest.Run(t, "urejanje", "-variant", "cpu", "-keys", filepath.Join(dir, "i4.npy"), "-pairs", "-desc", "-o", sorted)
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
	// descending, with the original indices as values
	want := []int32{2147483647, 7, 0, -3, -2147483648}
	wantIdx := []uint32{3, 2, 1, 0, 4}
	for i := range want {
		if int32(kw[i]) != want[i] || vw[i] != wantIdx[i] {
			t.Errorf("position %d: key %d value %d, want %d and %d", i, int32(kw[i]), vw[i], want[i], wantIdx[i])
		}
	}
	// user values travel with their keys
	vals := filepath.Join(dir, "vals.npy")
	if err := data.WriteWords(vals, data.Uint32, []uint32{50, 40, 30, 20, 10}); err != nil {
		t.Fatal(err)
	}
	variants := "cpu"
	if clitest.NoGPU() == "" {
		variants = "all"
	}
	if code, stdout, stderr := clitest.Run(t, "urejanje", "-variant", variants, "-keys", filepath.Join(dir, "i4.npy"), "-values", vals, "-o", sorted); code != 0 {
		t.Fatalf("urejanje -keys -values: exit %d\n%s%s", code, stdout, stderr)
	}
	values, _ = data.Read(filepath.Join(dir, "sorted.values.npy"))
	vw, _ = values.Words()
	for i, v := range []uint32{10, 50, 40, 30, 20} { // ascending: -2^31, -3, 0, 7, 2^31-1
		if vw[i] != v {
			t.Errorf("value %d: %d, want %d", i, vw[i], v)
		}
	}
}

// int32 values come back as int32 (they were written as uint32: -1 read back as 4294967295), and
// -o's extension is matched in any case.
func TestInt32ValuesKeepTheirType(t *testing.T) {
	dir := fixtures(t)
	vals, sorted := filepath.Join(dir, "vals.npy"), filepath.Join(dir, "S.NPY")
	if err := data.WriteWords(vals, data.Int32, []uint32{0xffffffff, 1, 2, 3, 4}); err != nil {
		t.Fatal(err)
	}
	if code, stdout, stderr := clitest.Run(t, "urejanje", "-variant", "cpu", "-keys", filepath.Join(dir, "i4.npy"), "-values", vals, "-o", sorted); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	values, err := data.Read(filepath.Join(dir, "S.values.npy"))
	if err != nil || values.Dtype != data.Int32 {
		t.Fatalf("values: %v, %+v", err, values)
	}
	if w, _ := values.Words(); int32(w[1]) != -1 { // keys ascending: -2^31 (value 4), -3 (value -1)
		t.Errorf("values %v", w)
	}
}

// best's note names the sort it chose and why.
func TestBestChoice(t *testing.T) {
	plan := func(n, above int64, radix bool) *gpu.UrejanjePlan {
		pl := &gpu.UrejanjePlan{Radix: radix, RadixAbove: above}
		pl.N = n
		return pl
	}
	for _, c := range []struct {
		pl      *gpu.UrejanjePlan
		threads int
		want    string
	}{
		{&gpu.UrejanjePlan{Launch: gpu.Launch{N: 4096}, Rank: true, RankMost: 8319}, 0, "chose the rank sort: one array of 4096 keys <= 8319"},
		{plan(1<<20, 33792, true), 0, "chose radix: 1048576 keys an array > 33792"},
		{plan(4096, 33792, true), 0, "chose radix's block sort: 4096 keys an array, 2049 to 4096"},
		{plan(3000, 33792, false), 0, "chose the network: 3000 keys an array, 2049 to 4096, keys alone in a batch of fewer"},
		{plan(2048, 33792, false), 0, "chose the network: 2048 keys an array <= 2048"},
		{plan(4096, 33792, false), 256, "chose the network: -threads"},
		{plan(3000, 2048, false), 0, "chose the network: 3000 keys an array, 2049 to 4096"}, // (8 SMs: the line below the tile)
		{plan(1<<15, 33792, false), 0, "chose the network: 32768 keys an array <= 33792"},
		{plan(1<<20, 33792, false), 512, "chose the network: -threads"},
		{plan(1<<32, 33792, false), 0, "chose the network: outside radix's domain"},
	} {
		if got := bestChoice(c.pl, c.threads); !strings.HasPrefix(got, c.want) {
			t.Errorf("bestChoice(n=%d, radix %v, threads %d) = %q, want it to begin %q", c.pl.N, c.pl.Radix, c.threads, got, c.want)
		}
	}
}
