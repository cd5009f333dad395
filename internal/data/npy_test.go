package data

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"tecaj/internal/vocab"
)

// The committed fixtures in testdata/ were written by NumPy 2.4 (np.save); the tests that need
// NumPy itself run where python3 has it and skip elsewhere.

func TestReadsWhatNumPyWrote(t *testing.T) {
	for _, name := range []string{"f4", "f8", "i4", "u4", "v2", "matrix"} {
		if _, err := Read("testdata/" + name + ".npy"); err != nil {
			t.Fatal(err)
		}
	}
	f4, _ := Read("testdata/f4.npy")
	v, changed, err := f4.Float32s()
	if err != nil || changed != 0 || len(v) != 5 {
		t.Fatalf("f4: %v %d %v", v, changed, err)
	}
	if v[0] != 1.5 || math.Float32bits(v[1]) != 0x80000000 || !math.IsInf(float64(v[2]), 1) || !math.IsNaN(float64(v[3])) || v[4] != 3e-41 {
		t.Errorf("f4 values %v", v)
	}
	f8, _ := Read("testdata/f8.npy")
	v, changed, err = f8.Float32s()
	// 0.1 and -1e300 change when rounded to float32 (the latter to -Inf); 2.0 and 0.5 do not
	if err != nil || changed != 2 || v[1] != 2 || !math.IsInf(float64(v[2]), -1) {
		t.Errorf("f8: %v changed %d %v", v, changed, err)
	}
	i4, _ := Read("testdata/i4.npy")
	w, err := i4.Words()
	if err != nil || int32(w[0]) != -3 || int32(w[3]) != math.MaxInt32 || int32(w[4]) != math.MinInt32 {
		t.Errorf("i4: %v %v", w, err)
	}
	u4, _ := Read("testdata/u4.npy")
	if w, err := u4.Words(); err != nil || w[2] != math.MaxUint32 || u4.Dtype != Uint32 {
		t.Errorf("u4: %v %v", w, err)
	}
	for name, want := range map[string]string{"u1": "\x00\x01\xff", "b1": "\x01\x00\x01"} {
		a, err := Read("testdata/" + name + ".npy")
		if err != nil {
			t.Fatal(err)
		}
		if b, err := a.Bytes(); err != nil || string(b) != want {
			t.Errorf("%s: %v %v", name, b, err)
		}
	}
	v2, err := Read("testdata/v2.npy")
	if v, _, err2 := v2.Float32s(); err != nil || err2 != nil || len(v) != 2 || v[1] != 5 {
		t.Errorf("format 2.0: %v %v %v", v, err, err2)
	}
	m, err := Read("testdata/matrix.npy")
	if err != nil || len(m.Shape) != 2 || m.Shape[0] != 2 || m.Shape[1] != 3 {
		t.Errorf("matrix: %+v %v", m, err)
	}
	if _, err := m.Vector(); err == nil || !strings.Contains(err.Error(), "1-D") {
		t.Errorf("a 2-D array passed as a vector: %v", err)
	}
}

func TestRefusesWithOneLineNamingFileAndProblem(t *testing.T) {
	for file, want := range map[string]string{
		"big.npy":       "big-endian",
		"fortran.npy":   "Fortran",
		"object.npy":    "object",
		"truncated.npy": "truncated",
		"not-npy.txt":   "not a NumPy",
		"missing.npy":   "no such file",
	} {
		_, err := Read(filepath.Join("testdata", file))
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), file) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v; want one line naming the file and %q", file, err, want)
		}
	}
	i4, _ := Read("testdata/i4.npy")
	if _, _, err := i4.Float32s(); err == nil || !strings.Contains(err.Error(), "float32 or float64") {
		t.Errorf("int32 read as floats: %v", err)
	}
}

func TestWriteReadRoundTrip(t *testing.T) {
	dir := t.TempDir()
	values := []float32{1, -0.0, float32(math.Inf(-1)), 1e-45, 3.25}
	path := filepath.Join(dir, "c.npy")
	if err := WriteFloat32s(path, values); err != nil {
		t.Fatal(err)
	}
	a, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	got, _, err := a.Float32s()
	if err != nil || len(got) != len(values) {
		t.Fatal(err)
	}
	for i := range values {
		if math.Float32bits(got[i]) != math.Float32bits(values[i]) {
			t.Errorf("element %d: %v, want %v", i, got[i], values[i])
		}
	}
	raw, _ := os.ReadFile(path)
	if len(raw)-4*len(values) != 128 && (len(raw)-4*len(values))%64 != 0 {
		t.Errorf("header of %d bytes is not 64-byte aligned", len(raw)-4*len(values))
	}
}

// With NumPy at hand: NumPy reads what Write wrote, and Read reads what NumPy writes now.
func TestAgainstNumPyItself(t *testing.T) {
	if err := exec.Command("python3", "-c", "import numpy").Run(); err != nil {
		t.Skip("python3 with numpy not available: the committed fixtures cover the reading")
	}
	dir := t.TempDir()
	ours := filepath.Join(dir, "ours.npy")
	if err := WriteWords(ours, Int32, []uint32{1, 0xffffffff, 42}); err != nil {
		t.Fatal(err)
	}
	theirs := filepath.Join(dir, "theirs.npy")
	script := `import numpy as np, sys
a = np.load(sys.argv[1])
assert a.dtype == np.int32 and a.tolist() == [1, -1, 42], a
np.save(sys.argv[2], np.random.default_rng(7).standard_normal(1001).astype(np.float32))
print(int(np.load(sys.argv[2]).view(np.uint32)[1000]))`
	out, err := exec.Command("python3", "-c", script, ours, theirs).CombinedOutput()
	if err != nil {
		t.Fatalf("numpy: %v\n%s", err, out)
	}
	a, err := Read(theirs)
	if err != nil {
		t.Fatal(err)
	}
	v, _, err := a.Float32s()
	if err != nil || len(v) != 1001 {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(out)); got != strconv.FormatUint(uint64(math.Float32bits(v[1000])), 10) {
		t.Errorf("last element's bits: numpy says %s, we read %08x", got, math.Float32bits(v[1000]))
	}
}

// A directory given as a data file is called a directory (it read as "not a NumPy .npy file").
func TestReadRefusesADirectory(t *testing.T) {
	dir := t.TempDir()
	_, err := Read(dir)
	_, err2 := ReadImage(dir, false)
	for _, e := range []error{err, err2} {
		if e == nil || !strings.Contains(e.Error(), "is a directory") || !strings.Contains(e.Error(), dir) {
			t.Errorf("reading a directory: %v", e)
		}
	}
}

// A shape whose product wraps int64 (it read as an empty array, and konvolucija's reference then
// indexed past it) or holds no elements in 2-D is refused by name.
func TestRefusesShapesThatWrapOrHoldNothing(t *testing.T) {
	dir := t.TempDir()
	for shape, want := range map[string]string{
		"(4294967296, 4294967296)":    "too large",
		"(3037000500, 3037000500, 4)": "too large",
		"(1099511627777,)":            "too large",
		"(0, 5)":                      "holds no elements",
	} {
		header := fmt.Sprintf("{'descr': '<f4', 'fortran_order': False, 'shape': %s, }", shape)
		for (10+len(header)+1)%64 != 0 {
			header += " "
		}
		raw := append([]byte("\x93NUMPY\x01\x00"), byte(len(header)+1), 0)
		raw = append(append(raw, header...), '\n')
		path := filepath.Join(dir, "a.npy")
		if err := os.WriteFile(path, raw, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Read(path); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("shape %s: %v, want %q", shape, err, want)
		}
	}
}

// One dtype rule for every command: int64 reads as int32 where every value fits, else the first
// value that does not is named; float64's rounding is noted only where values change.
func TestInt64AndFloat64Rule(t *testing.T) {
	dir := t.TempDir()
	raw := func(vs ...int64) []byte {
		b := make([]byte, 8*len(vs))
		for i, v := range vs {
			binary.LittleEndian.PutUint64(b[8*i:], uint64(v))
		}
		return b
	}
	ok, bad := filepath.Join(dir, "ok.npy"), filepath.Join(dir, "bad.npy")
	if err := Write(ok, Int64, []int{3}, raw(-5, 2147483647, -2147483648)); err != nil {
		t.Fatal(err)
	}
	if err := Write(bad, Int64, []int{3}, raw(1, 2, 2147483648)); err != nil {
		t.Fatal(err)
	}
	a, err := Read(ok)
	if err != nil || a.Dtype != Int32 {
		t.Fatalf("%v %+v", err, a)
	}
	if w, _ := a.Words(); int32(w[0]) != -5 || int32(w[1]) != 2147483647 || int32(w[2]) != -2147483648 {
		t.Errorf("int64 as int32: %v", w)
	}
	if _, err := Read(bad); err == nil || !strings.Contains(err.Error(), "2147483648 at index 2") || !strings.Contains(err.Error(), bad) {
		t.Errorf("an int64 past int32: %v", err)
	}
	if RoundingNote("p", "f.npy", 0, 100) != "" || !strings.Contains(RoundingNote("p", "f.npy", 3, 100), "3 of 100") {
		t.Error("the rounding note: only where values changed")
	}
}

// loadTest is LoadVector (or LoadArray) of a fixture accepting some types: the type read, or a
// refusal whose message holds each of want.
type loadTest struct {
	file   string
	array  bool // LoadArray (any shape)
	accept []vocab.Dtype
	typ    vocab.Dtype // where it loads
	want   []string    // where it is refused
}

var (
	floats = []vocab.Dtype{vocab.Float32, vocab.Float64}
	words  = []vocab.Dtype{vocab.Float32, vocab.Int32, vocab.Uint32}
)

var loadTests = []loadTest{
	{file: "f4", accept: floats, typ: vocab.Float32},
	{file: "f8", accept: floats, typ: vocab.Float64},
	{file: "i8", accept: words, typ: vocab.Int32}, // int64 is read as int32 where it fits
	{file: "u4", accept: words, typ: vocab.Uint32},
	{file: "u1", typ: vocab.Uint8}, // no types named: any
	{file: "b1"},                   // bool has no element type, but any is any
	{file: "matrix", array: true, accept: floats, typ: vocab.Float32},
	{file: "i4", accept: floats, want: []string{"testdata/i4.npy: dtype <i4, where float32 or float64 is needed"}},
	{file: "i8", accept: floats, want: []string{"i8.npy", "dtype <i8", "float32 or float64"}}, // the file's own dtype
	{file: "u1", accept: words, want: []string{"u1.npy", "dtype |u1", "where float32, int32 or uint32 is needed"}},
	{file: "b1", accept: []vocab.Dtype{vocab.Uint8}, want: []string{"b1.npy", "dtype |b1", "where uint8 is needed"}},
	{file: "matrix", accept: floats, want: []string{"matrix.npy", "1-D", "shape [2 3]"}},
	{file: "missing", accept: floats, want: []string{"missing.npy"}},
}

func TestLoad(t *testing.T) {
	ran := 0
	for _, test := range loadTests {
		path := "testdata/" + test.file + ".npy"
		load := LoadVector
		if test.array {
			load = LoadArray
		}
		a, err := load(path, test.accept...)
		ran++
		if test.want != nil {
			for _, w := range test.want {
				if err == nil || !strings.Contains(err.Error(), w) {
					t.Errorf("%s accepting %v: %v, want an error with %q", path, test.accept, err, w)
				}
			}
			continue
		}
		if err != nil {
			t.Errorf("%s accepting %v: %v", path, test.accept, err)
			continue
		}
		if typ, ok := a.Type(); ok != (test.file != "b1") || (ok && typ != test.typ) {
			t.Errorf("%s: type %v (%v), want %v", path, typ, ok, test.typ)
		}
	}
	if ran != len(loadTests) || ran < 13 {
		t.Fatalf("%d cases ran", ran)
	}
	empty := filepath.Join(t.TempDir(), "empty.npy")
	if err := Write(empty, Float32, []int{0}, nil); err != nil {
		t.Fatal(err)
	}
	for _, load := range []func(string, ...vocab.Dtype) (*Array, error){LoadVector, LoadArray} {
		if _, err := load(empty, floats...); err == nil || !strings.Contains(err.Error(), "empty.npy: the array is empty") {
			t.Errorf("an empty array: %v", err)
		}
	}
}

// Float64s is exact for every element type; Descr is the NumPy name each is written under.
func TestFloat64sAndDescr(t *testing.T) {
	for file, want := range map[string][]float64{"f8": {0.1, 2, -1e300, 0.5}, "i4": {-3, 0, 7, math.MaxInt32, math.MinInt32},
		"u4": {0, 1, math.MaxUint32}, "u1": {0, 1, 255}, "i8": {1, 2}} {
		a, err := Read("testdata/" + file + ".npy")
		if err != nil {
			t.Fatal(err)
		}
		got, err := a.Float64s()
		if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%s: %v %v, want %v", file, got, err, want)
		}
	}
	if b1, _ := Read("testdata/b1.npy"); b1 != nil {
		if _, err := b1.Float64s(); err == nil || !strings.Contains(err.Error(), "dtype |b1") {
			t.Errorf("bool as float64: %v", err)
		}
	}
	for typ, want := range map[vocab.Dtype]string{vocab.Float32: Float32, vocab.Float64: Float64, vocab.Int32: Int32,
		vocab.Uint32: Uint32, vocab.Uint8: Uint8, vocab.Int64: ""} {
		if got := Descr(typ); got != want {
			t.Errorf("Descr(%v) = %q, want %q", typ, got, want)
		}
	}
}
