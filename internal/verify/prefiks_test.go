package verify

import (
	"math"
	"testing"

	"tecaj/internal/vocab"
)

func TestScanReferenceAndCPU(t *testing.T) {
	in := []uint32{1, 2, 3, 4, 5}
	flags := []byte{0, 0, 1, 0, 1}
	r := Scan(vocab.Sum, vocab.Int32, false, in, flags)
	for i, want := range []uint32{1, 3, 3, 7, 5} {
		if r.Bits[i] != want {
			t.Errorf("segmented inclusive %d: %d, want %d", i, r.Bits[i], want)
		}
	}
	r = Scan(vocab.Sum, vocab.Int32, true, in, flags)
	for i, want := range []uint32{0, 1, 0, 3, 0} {
		if r.Bits[i] != want {
			t.Errorf("segmented exclusive %d: %d, want %d", i, r.Bits[i], want)
		}
	}
	if r := Scan(vocab.Max, vocab.Int32, false, []uint32{5, 0xfffffffb, 9}, nil); r.Bits[1] != 5 || r.Bits[2] != 9 {
		t.Errorf("signed max: %v", r.Bits)
	}
	wrap := Scan(vocab.Sum, vocab.Int32, false, []uint32{0x7fffffff, 1}, nil)
	if wrap.Bits[1] != 0x80000000 {
		t.Errorf("int32 sums wrap: %08x", wrap.Bits[1])
	}
	nan := math.Float32bits(float32(math.NaN()))
	f := Scan(vocab.Min, vocab.Float32, false, []uint32{math.Float32bits(1), nan, math.Float32bits(0), math.Float32bits(-1)}, []byte{0, 0, 0, 1})
	if !math.IsNaN(float64(math.Float32frombits(f.Bits[2]))) || math.Float32frombits(f.Bits[3]) != -1 {
		t.Errorf("NaN stays in its segment: %v", f.Bits)
	}
	// the host variant against the reference, plain and segmented, both directions
	n := 3<<20 + 7
	data, seg := make([]uint32, n), make([]byte, n)
	SegmentFlags(seg, 0, 9)
	for _, typ := range []vocab.Dtype{vocab.Int32, vocab.Float32} {
		ScanInput(data, typ, 4)
		for _, op := range []vocab.Op{vocab.Sum, vocab.Max, vocab.Min} {
			for _, excl := range []bool{false, true} {
				for _, flags := range [][]byte{nil, seg} {
					out := make([]uint32, n)
					ScanCPU(op, typ, excl, data, flags, out)
					ref := Scan(op, typ, excl, data, flags)
					c := CheckScan(op, typ, out, ref, func(a float64) float64 { return CPUScanTolerance(int64(n), a) })
					if c.Bad != 0 {
						t.Errorf("%s %s excl=%v segmented=%v: %+v", typ, op, excl, flags != nil, c)
					}
				}
			}
		}
	}
	// and the check rejects a wrong value
	out := make([]uint32, n)
	ScanCPU(vocab.Sum, vocab.Int32, false, data, nil, out)
	out[n/2]++
	if c := CheckScan(vocab.Sum, vocab.Int32, out, Scan(vocab.Sum, vocab.Int32, false, data, nil), func(float64) float64 { return 0 }); c.Bad != 1 {
		t.Errorf("a changed element: %+v", c)
	}
}

// A float sum's NaN and Inf are compared as NaN and Inf, and an overflow to Inf, which the
// float64 reference does not see, is accepted where the magnitudes summed pass float32's range;
// a finite result where the reference is NaN, or a NaN where it is finite, still fails.
func TestScanCheckFloatSpecials(t *testing.T) {
	f := func(xs ...float32) []uint32 {
		out := make([]uint32, len(xs))
		for i, x := range xs {
			out[i] = math.Float32bits(x)
		}
		return out
	}
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	tol := func(a float64) float64 { return 1e-6 * a }
	check := func(name string, in []uint32, wantBad int64) {
		t.Helper()
		for _, gpuNaN := range []uint32{0x7fc00000, 0x7fffffff} { // the host's NaN and the GPU's
			out := make([]uint32, len(in))
			ScanCPU(vocab.Sum, vocab.Float32, false, in, nil, out)
			for i := range out {
				if o := math.Float32frombits(out[i]); o != o {
					out[i] = gpuNaN
				}
			}
			if c := CheckScan(vocab.Sum, vocab.Float32, out, Scan(vocab.Sum, vocab.Float32, false, in, nil), tol); c.Bad != wantBad {
				t.Errorf("%s (NaN %08x): %d bad, want %d: %s", name, gpuNaN, c.Bad, wantBad, c.First)
			}
		}
	}
	check("a NaN", f(1, nan, 2), 0)
	check("an Inf", f(1, inf, 2), 0)
	check("Inf - Inf", f(inf, -inf, 2), 0)
	big := make([]float32, 1000)
	for i := range big {
		big[i] = 3e38
	}
	check("an overflow", f(big...), 0)
	ref := Scan(vocab.Sum, vocab.Float32, false, f(1, nan, 2), nil)
	if c := CheckScan(vocab.Sum, vocab.Float32, f(1, 5, 7), ref, tol); c.Bad != 2 {
		t.Errorf("finite where the reference is NaN: %d bad, want 2", c.Bad)
	}
	ref = Scan(vocab.Sum, vocab.Float32, false, f(1, 2, 3), nil)
	if c := CheckScan(vocab.Sum, vocab.Float32, f(1, nan, inf), ref, tol); c.Bad != 2 {
		t.Errorf("NaN and Inf where the reference is finite: %d bad, want 2", c.Bad)
	}
}
