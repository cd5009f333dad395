package gpu

import (
	"errors"
	"testing"

	"tecaj/internal/verify"
)

func find(t *testing.T, p *Program, name string) Variant {
	t.Helper()
	for _, v := range p.Variants() {
		if v.Name == name {
			return v
		}
	}
	t.Fatalf("%s has no variant %s", p.Name, name)
	return Variant{}
}

func TestProgramsRegisterThemselves(t *testing.T) {
	if len(Programs()) < 3 {
		t.Fatalf("programs: %v", Programs())
	}
	for _, p := range Programs() {
		if p.Unit == "" || len(p.Variants()) == 0 {
			t.Errorf("%s: unit %q, %d variants", p.Name, p.Unit, len(p.Variants()))
		}
		for _, v := range p.Variants() {
			if len(v.Kernels) == 0 && !v.Library {
				t.Errorf("%s %s lists no kernels", p.Name, v.Name)
			}
		}
	}
}

func TestNoGPUClassification(t *testing.T) {
	if !NoGPU(&Error{Code: 35}) || !NoGPU(&Error{Code: 100}) || NoGPU(&Error{Code: 2}) || NoGPU(errors.New("x")) {
		t.Error("NoGPU misclassifies")
	}
}

func openOrSkip(t *testing.T) *Device {
	t.Helper()
	d, err := Open()
	if err != nil {
		if NoGPU(err) {
			t.Skip("no usable GPU: " + err.Error())
		}
		t.Fatal(err)
	}
	return d
}

func upload(t *testing.T, xs []float32, managed bool) *Buffer {
	t.Helper()
	b, err := Alloc(int64(len(xs))*4, managed)
	if err != nil {
		t.Fatal(err)
	}
	if managed {
		copy(b.Floats(), xs)
	} else if err := b.Upload(xs); err != nil {
		t.Fatal(err)
	}
	return b
}

// The library from Go: each program's every variant at sizes that are multiples of nothing,
// through the cgo layer (plan, scratch, run, copy back, the host's part), checked against the
// float64 reference. Each program's test file registers how to run one variant (fromGo).
type goRun func(t *testing.T, d *Device, v Variant, n int64) error

var fromGo = map[string]goRun{}

func TestEveryProgramFromGo(t *testing.T) {
	d := openOrSkip(t)
	for _, p := range Programs() {
		run, ok := fromGo[p.Name]
		if !ok {
			t.Errorf("%s: no test from Go (register one in internal/gpu/%s_test.go)", p.Name, p.Name)
			continue
		}
		for _, v := range p.Variants() {
			for _, n := range []int64{1, 31, 33, 1025, 1<<20 + 3} {
				if err := run(t, d, v, n); err != nil && !errors.Is(err, ErrOutsideDomain) {
					t.Fatalf("%s %s n=%d: %v", p.Name, v.Name, n, err)
				}
			}
		}
	}
}

// inputs are a and b uniform from the seed n, on the host and the device.
func inputs(t *testing.T, v Variant, n int64) (ha, hb []float32, a, b *Buffer) {
	ha, hb = make([]float32, n), make([]float32, n)
	verify.Uniform(ha, 3*n)
	verify.Uniform(hb, 3*n+1)
	return ha, hb, upload(t, ha, v.Managed), upload(t, hb, v.Managed)
}

func firstError(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
