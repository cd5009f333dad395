// Package data reads and writes the files a user brings: NumPy .npy arrays (format versions 1,
// 2 and 3; little-endian, C order; any shape, callers check the dimensions) and PNG or JPEG
// images (image.go). Standard library only. Every error names the file and what is wrong with
// it, in one line.
package data

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"

	"tecaj/internal/vocab"
)

// Dtypes, as NumPy writes them in a header.
const (
	Float32 = "<f4"
	Float64 = "<f8"
	Int32   = "<i4"
	Int64   = "<i8" // read as Int32 where every value fits (NumPy's default integers)
	Uint32  = "<u4"
	Uint8   = "|u1"
	Bool    = "|b1"
)

var itemSize = map[string]int{Float32: 4, Float64: 8, Int32: 4, Uint32: 4, Uint8: 1, Bool: 1, Int64: 8}

// Array is a .npy file's contents: its dtype, shape and raw little-endian data.
type Array struct {
	Path   string
	Dtype  string
	Stored string // the file's own dtype, for messages: "<i8" where an int64 file was read as int32
	Shape  []int
	Data   []byte
}

// StoredDtype is the file's own dtype (an int64 file read as int32 says "<i8"), for messages.
func (a *Array) StoredDtype() string {
	if a.Stored != "" {
		return a.Stored
	}
	return a.Dtype
}

// types are the element types as read, by NumPy dtype (int64 is read as int32; bool has none).
var types = map[string]vocab.Dtype{Float32: vocab.Float32, Float64: vocab.Float64, Int32: vocab.Int32, Uint32: vocab.Uint32, Uint8: vocab.Uint8}

// Type is the element type as read (an int64 file read as int32 is vocab.Int32); ok is false
// for bool, which has none.
func (a *Array) Type() (t vocab.Dtype, ok bool) {
	t, ok = types[a.Dtype]
	return t, ok
}

// Descr is a type's NumPy dtype, as a header writes it ("" for a type no file holds).
func Descr(t vocab.Dtype) string {
	for d, x := range types {
		if x == t {
			return d
		}
	}
	return ""
}

// LoadVector reads a 1-D, non-empty .npy array of one of the types accept (of any type where
// accept is empty). Every refusal names the file; a type's names the file's own dtype and the
// types accepted.
func LoadVector(path string, accept ...vocab.Dtype) (*Array, error) {
	a, err := Read(path)
	if err != nil {
		return nil, err
	}
	if _, err := a.Vector(); err != nil {
		return nil, err
	}
	return a, a.accept(accept)
}

// LoadWords reads a 1-D vector of 4-byte elements as LoadVector does (accept: the types taken,
// float64 among them to be rounded) and returns its words and their type: a float64 file's
// rounded to float32, with note (RoundingNote's for program) saying where values changed.
func LoadWords(path, program string, accept ...vocab.Dtype) (words []uint32, t vocab.Dtype, note string, err error) {
	a, err := LoadVector(path, accept...)
	if err != nil {
		return nil, 0, "", err
	}
	if t, _ = a.Type(); t == vocab.Float64 {
		t = vocab.Float32
	}
	words, note, err = a.Float32Words(program)
	return words, t, note, err
}

// LoadArray reads a non-empty .npy array of any shape (callers check its dimensions) of one of
// the types accept, as LoadVector does.
func LoadArray(path string, accept ...vocab.Dtype) (*Array, error) {
	a, err := Read(path)
	if err != nil {
		return nil, err
	}
	if a.Len() == 0 {
		return nil, fmt.Errorf("%s: the array is empty", a.Path)
	}
	return a, a.accept(accept)
}

// accept refuses a type outside accept (none: any type).
func (a *Array) accept(accept []vocab.Dtype) error {
	t, ok := a.Type()
	for _, x := range accept {
		if ok && x == t {
			return nil
		}
	}
	if len(accept) == 0 {
		return nil
	}
	names := vocab.Names(accept[:len(accept)-1])
	if names != "" {
		names += " or "
	}
	return fmt.Errorf("%s: dtype %s, where %s%s is needed", a.Path, a.StoredDtype(), names, accept[len(accept)-1])
}

// Len is the number of elements.
func (a *Array) Len() int {
	n := 1
	for _, d := range a.Shape {
		n *= d
	}
	return n
}

const magic = "\x93NUMPY"

var (
	descrRe   = regexp.MustCompile(`'descr'\s*:\s*'([^']*)'`)
	fortranRe = regexp.MustCompile(`'fortran_order'\s*:\s*(True|False)`)
	shapeRe   = regexp.MustCompile(`'shape'\s*:\s*\(([^)]*)\)`)
)

// Read reads a .npy file of one of the dtypes above (any shape; callers check the dimensions).
func Read(path string) (*Array, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	a, err := read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	a.Path = path
	return a, nil
}

// openFile opens a data file to read, refusing a directory in so many words (reading one fails
// with an error about its contents).
func openFile(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err // already names the file
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s: is a directory, not a file", path)
	}
	return f, nil
}

func read(r io.Reader) (*Array, error) {
	head := make([]byte, 8)
	if _, err := io.ReadFull(r, head); err != nil || string(head[:6]) != magic {
		return nil, errors.New("not a NumPy .npy file (no \\x93NUMPY magic)")
	}
	var headerLen int
	switch head[6] {
	case 1:
		var l uint16
		if err := binary.Read(r, binary.LittleEndian, &l); err != nil {
			return nil, errors.New("truncated header")
		}
		headerLen = int(l)
	case 2, 3:
		var l uint32
		if err := binary.Read(r, binary.LittleEndian, &l); err != nil {
			return nil, errors.New("truncated header")
		}
		if l > 1<<20 {
			return nil, fmt.Errorf("header of %d bytes is not plausible", l)
		}
		headerLen = int(l)
	default:
		return nil, fmt.Errorf("unsupported .npy format version %d.%d", head[6], head[7])
	}
	header := make([]byte, headerLen)
	if _, err := io.ReadFull(r, header); err != nil {
		return nil, errors.New("truncated header")
	}
	h := string(header)
	a := &Array{}
	m := descrRe.FindStringSubmatch(h)
	if m == nil {
		return nil, errors.New("header has no 'descr'")
	}
	a.Dtype = m[1]
	if a.Dtype == "<u1" || a.Dtype == "<b1" { // 1-byte types have no byte order
		a.Dtype = "|" + a.Dtype[1:]
	}
	if _, ok := itemSize[a.Dtype]; !ok {
		switch {
		case strings.HasPrefix(a.Dtype, ">"):
			return nil, fmt.Errorf("big-endian data (%s) is not supported: save it little-endian (arr.astype(arr.dtype.newbyteorder('<')))", a.Dtype)
		case strings.Contains(a.Dtype, "O"):
			return nil, errors.New("object arrays are not supported: save a numeric array")
		}
		return nil, fmt.Errorf("dtype %s is not supported (float32, float64, int32, int64 that fits int32, uint32, uint8 or bool)", a.Dtype)
	}
	if m := fortranRe.FindStringSubmatch(h); m == nil || m[1] == "True" {
		return nil, errors.New("Fortran-order data is not supported: save it in C order (np.ascontiguousarray)")
	}
	m = shapeRe.FindStringSubmatch(h)
	if m == nil {
		return nil, errors.New("header has no 'shape'")
	}
	for _, part := range strings.Split(m[1], ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		d, err := strconv.Atoi(part)
		if err != nil || d < 0 {
			return nil, fmt.Errorf("shape (%s) is not valid", m[1])
		}
		a.Shape = append(a.Shape, d)
	}
	n := int64(1)
	for _, d := range a.Shape { // (checked before each product: a product that wraps cannot pass)
		if d > 0 && n > (1<<40)/int64(d) {
			return nil, fmt.Errorf("shape (%s) is too large (at most 2^40 elements)", m[1])
		}
		n *= int64(d)
	}
	if n == 0 && len(a.Shape) > 1 {
		return nil, fmt.Errorf("shape (%s) holds no elements", m[1])
	}
	want := n * int64(itemSize[a.Dtype])
	var buf bytes.Buffer
	got, err := io.CopyN(&buf, r, want)
	if err != nil || got != want {
		return nil, fmt.Errorf("truncated: %d of %d data bytes", got, want)
	}
	a.Data, a.Stored = buf.Bytes(), a.Dtype
	if a.Dtype == Int64 { // NumPy's default integers: int32 where every value fits
		if err := a.narrow(); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// narrow makes an int64 array int32, or names the first value that does not fit.
func (a *Array) narrow() error {
	n := a.Len()
	out := make([]byte, 4*n)
	for i := 0; i < n; i++ {
		v := int64(binary.LittleEndian.Uint64(a.Data[8*i:]))
		if v < math.MinInt32 || v > math.MaxInt32 {
			return fmt.Errorf("int64 value %d at index %d does not fit int32 (int64 is read as int32 where every value fits)", v, i)
		}
		binary.LittleEndian.PutUint32(out[4*i:], uint32(int32(v)))
	}
	a.Dtype, a.Data = Int32, out
	return nil
}

// RoundingNote is the note a command prints when it rounds a float64 file to float32: "" where
// no value changed (one rule for every command).
func RoundingNote(program, path string, changed, total int) string {
	if changed == 0 {
		return ""
	}
	return fmt.Sprintf("%s: note: %s is float64, rounded to float32 (%d of %d values changed)", program, path, changed, total)
}

// Vector checks that a is 1-D (a 0-D scalar is refused too) and returns its length.
func (a *Array) Vector() (int, error) {
	if len(a.Shape) != 1 {
		return 0, fmt.Errorf("%s: a 1-D array is needed, this one has shape %v", a.Path, a.Shape)
	}
	if a.Shape[0] == 0 {
		return 0, fmt.Errorf("%s: the array is empty", a.Path)
	}
	return a.Shape[0], nil
}

// Float32s returns the values as float32: float32 as stored, float64 rounded to nearest (changed
// counts the values that rounding changed, NaN payloads aside). Other dtypes are refused.
func (a *Array) Float32s() (values []float32, changed int, err error) {
	n := a.Len()
	values = make([]float32, n)
	switch a.Dtype {
	case Float32:
		for i := range values {
			values[i] = math.Float32frombits(binary.LittleEndian.Uint32(a.Data[4*i:]))
		}
	case Float64:
		for i := range values {
			x := math.Float64frombits(binary.LittleEndian.Uint64(a.Data[8*i:]))
			values[i] = float32(x)
			if float64(values[i]) != x && !math.IsNaN(x) {
				changed++
			}
		}
	default:
		return nil, 0, fmt.Errorf("%s: dtype %s, where float32 or float64 is needed", a.Path, a.StoredDtype())
	}
	return values, changed, nil
}

// Float64s returns the values as float64, exactly (float32, float64, int32, uint32, uint8).
// Other dtypes are refused.
func (a *Array) Float64s() ([]float64, error) {
	t, ok := a.Type()
	if !ok {
		return nil, fmt.Errorf("%s: dtype %s, where a number type is needed", a.Path, a.StoredDtype())
	}
	v := make([]float64, a.Len())
	word := func(i int) uint32 { return binary.LittleEndian.Uint32(a.Data[4*i:]) }
	switch t { // (the type chosen once, not an element: files of 2^31 elements come this way)
	case vocab.Float32:
		for i := range v {
			v[i] = float64(math.Float32frombits(word(i)))
		}
	case vocab.Float64:
		for i := range v {
			v[i] = math.Float64frombits(binary.LittleEndian.Uint64(a.Data[8*i:]))
		}
	case vocab.Int32:
		for i := range v {
			v[i] = float64(int32(word(i)))
		}
	case vocab.Uint32:
		for i := range v {
			v[i] = float64(word(i))
		}
	default:
		for i := range v {
			v[i] = float64(a.Data[i])
		}
	}
	return v, nil
}

// Words returns 4-byte elements (float32, int32, uint32) as raw 32-bit words.
func (a *Array) Words() ([]uint32, error) {
	if itemSize[a.Dtype] != 4 {
		return nil, fmt.Errorf("%s: dtype %s, where a 4-byte type (float32, int32, uint32) is needed", a.Path, a.StoredDtype())
	}
	w := make([]uint32, a.Len())
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(a.Data[4*i:])
	}
	return w, nil
}

// Float32Words returns 4-byte elements as words, a float64 array rounded to float32 first (note,
// RoundingNote's for program, says where values changed).
func (a *Array) Float32Words(program string) (words []uint32, note string, err error) {
	if a.Dtype != Float64 {
		words, err = a.Words()
		return words, "", err
	}
	f, changed, _ := a.Float32s()
	words = make([]uint32, len(f))
	for i, x := range f {
		words[i] = math.Float32bits(x)
	}
	return words, RoundingNote(program, a.Path, changed, len(f)), nil
}

// Bytes returns 1-byte elements (uint8, bool).
func (a *Array) Bytes() ([]byte, error) {
	if itemSize[a.Dtype] != 1 {
		return nil, fmt.Errorf("%s: dtype %s, where uint8 or bool is needed", a.Path, a.StoredDtype())
	}
	return a.Data, nil
}

// Write writes raw little-endian data as a .npy file (format 1.0) of the dtype and shape.
func Write(path, dtype string, shape []int, raw []byte) error {
	size, ok := itemSize[dtype]
	if !ok {
		return fmt.Errorf("writing %s: dtype %s is not supported", path, dtype)
	}
	n := 1
	dims := make([]string, len(shape))
	for i, d := range shape {
		n *= d
		dims[i] = strconv.Itoa(d)
	}
	if n*size != len(raw) {
		return fmt.Errorf("writing %s: %d bytes do not make shape %v of %s", path, len(raw), shape, dtype)
	}
	tuple := strings.Join(dims, ", ")
	if len(shape) == 1 {
		tuple += ","
	}
	h := fmt.Sprintf("{'descr': '%s', 'fortran_order': False, 'shape': (%s), }", dtype, tuple)
	pad := 64 - (len(magic)+4+len(h)+1)%64 // the data starts 64-byte aligned
	h += strings.Repeat(" ", pad%64) + "\n"
	var out bytes.Buffer
	out.WriteString(magic)
	out.Write([]byte{1, 0})
	binary.Write(&out, binary.LittleEndian, uint16(len(h)))
	out.WriteString(h)
	out.Write(raw)
	if err := os.WriteFile(path, out.Bytes(), 0o644); err != nil {
		return fmt.Errorf("writing %s: %v", path, err)
	}
	return nil
}

// WriteFloat32s writes a 1-D float32 array.
func WriteFloat32s(path string, values []float32) error {
	return WriteFloat32Array(path, []int{len(values)}, values)
}

// WriteFloat32Array writes float32 values (row-major) as an array of the given shape.
func WriteFloat32Array(path string, shape []int, values []float32) error {
	raw := make([]byte, 4*len(values))
	for i, v := range values {
		binary.LittleEndian.PutUint32(raw[4*i:], math.Float32bits(v))
	}
	return Write(path, Float32, shape, raw)
}

// WriteWords writes a 1-D array of 32-bit words with the given 4-byte dtype.
func WriteWords(path, dtype string, words []uint32) error {
	raw := make([]byte, 4*len(words))
	for i, v := range words {
		binary.LittleEndian.PutUint32(raw[4*i:], v)
	}
	return Write(path, dtype, []int{len(words)}, raw)
}
