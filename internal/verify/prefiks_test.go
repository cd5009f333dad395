package verify

import (
	"math"
	"testing"
)

func TestScanReferenceAndCPU(t *testing.T) {
	in := []uint32{1, 2, 3, 4, 5}
	flags := []byte{0, 0, 1, 0, 1}
	r := Scan("sum", "int32", false, in, flags)
	for i, want := range []uint32{1, 3, 3, 7, 5} {
		if r.Bits[i] != want {
			t.Errorf("segmented inclusive %d: %d, want %d", i, r.Bits[i], want)
		}
	}
	r = Scan("sum", "int32", true, in, flags)
	for i, want := range []uint32{0, 1, 0, 3, 0} {
		if r.Bits[i] != want {
			t.Errorf("segmented exclusive %d: %d, want %d", i, r.Bits[i], want)
		}
	}
	if r := Scan("max", "int32", false, []uint32{5, 0xfffffffb, 9}, nil); r.Bits[1] != 5 || r.Bits[2] != 9 {
		t.Errorf("signed max: %v", r.Bits)
	}
	wrap := Scan("sum", "int32", false, []uint32{0x7fffffff, 1}, nil)
	if wrap.Bits[1] != 0x80000000 {
		t.Errorf("int32 sums wrap: %08x", wrap.Bits[1])
	}
	nan := math.Float32bits(float32(math.NaN()))
	f := Scan("min", "float32", false, []uint32{math.Float32bits(1), nan, math.Float32bits(0), math.Float32bits(-1)}, []byte{0, 0, 0, 1})
	if !math.IsNaN(float64(math.Float32frombits(f.Bits[2]))) || math.Float32frombits(f.Bits[3]) != -1 {
		t.Errorf("NaN stays in its segment: %v", f.Bits)
	}
	// the host variant against the reference, plain and segmented, both directions
	n := 3<<20 + 7
	data, seg := make([]uint32, n), make([]byte, n)
	SegmentFlags(seg, 0, 9)
	for _, typ := range []string{"int32", "float32"} {
		ScanInput(data, typ, 4)
		for _, op := range []string{"sum", "max", "min"} {
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
	ScanCPU("sum", "int32", false, data, nil, out)
	out[n/2]++
	if c := CheckScan("sum", "int32", out, Scan("sum", "int32", false, data, nil), func(float64) float64 { return 0 }); c.Bad != 1 {
		t.Errorf("a changed element: %+v", c)
	}
}
