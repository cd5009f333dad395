package verify

import (
	"math"
	"strings"
	"testing"
)

func TestParseMask(t *testing.T) {
	box, err := ParseMask("box", 5, 2)
	if err != nil || box.W != 5 || box.H != 5 || box.Weights[12] != 1.0/25 {
		t.Errorf("box: %+v %v", box, err)
	}
	g, err := ParseMask("gauss", 7, 2)
	var sum float64
	for _, w := range g.Weights {
		sum += float64(w)
	}
	if err != nil || math.Abs(sum-1) > 1e-6 || g.Weights[24] <= g.Weights[0] {
		t.Errorf("gauss: sum %v, centre %v, corner %v, %v", sum, g.Weights[24], g.Weights[0], err)
	}
	c, err := ParseMask("1,2,1;0,0,0;-1,-2,-1", 3, 2)
	if err != nil || c.W != 3 || c.H != 3 || c.Weights[7] != -2 {
		t.Errorf("custom: %+v %v", c, err)
	}
	if one, err := ParseMask("1,-1,0.5,2,3", 3, 1); err != nil || one.W != 5 || one.H != 1 {
		t.Errorf("1-D custom: %+v %v", one, err)
	}
	for spec, want := range map[string]string{
		"1,2;3,4":           "must be odd",
		"1,2,1;0,0":         "row 2 has 2 weights",
		"1,x,1":             `"x" is not a finite number`,
		"1,NaN,1":           "not a finite number",
		"sobel-x":           "2-D",
		"1,1,1;1,1,1;1,1,1": "one row",
	} {
		dim := 2
		if spec == "sobel-x" || spec == "1,1,1;1,1,1;1,1,1" {
			dim = 1
		}
		if _, err := ParseMask(spec, 3, dim); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", spec, err, want)
		}
	}
	big := strings.TrimSuffix(strings.Repeat("1,", 33), ",")
	if _, err := ParseMask(big, 3, 2); err == nil || !strings.Contains(err.Error(), "at most 31") {
		t.Errorf("33 wide: %v", err)
	}
	for _, k := range []int{0, 2, 33} {
		if _, err := ParseMask("box", k, 2); err == nil {
			t.Errorf("-k %d accepted", k)
		}
	}
}

func TestConvolveReference(t *testing.T) {
	const w, h = 33, 17
	img := make([]float32, w*h)
	for i := range img {
		img[i] = float32(i%7) - 3
	}
	// shift moves the picture one pixel left, exactly; the last column reads the border
	shift, _ := ParseMask("shift", 3, 2)
	for _, border := range []string{BorderZero, BorderReplicate} {
		out := Convolve(img, w, h, shift, border)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				want := float64(0)
				if x+1 < w {
					want = float64(img[y*w+x+1])
				} else if border == BorderReplicate {
					want = float64(img[y*w+x])
				}
				if out[y*w+x] != want {
					t.Fatalf("shift %s (%d,%d): %v, want %v", border, x, y, out[y*w+x], want)
				}
			}
		}
	}
	// a box over a constant image is the constant inside, and (zero border) less at the edges
	flat := make([]float32, w*h)
	for i := range flat {
		flat[i] = 2
	}
	box, _ := ParseMask("box", 3, 2)
	out := Convolve(flat, w, h, box, BorderZero)
	if math.Abs(out[5*w+5]-2) > 1e-6 || math.Abs(out[0]-2*4.0/9) > 1e-6 {
		t.Errorf("box: inside %v, corner %v", out[5*w+5], out[0])
	}
	if r := Convolve(flat, w, h, box, BorderReplicate); math.Abs(r[0]-2) > 1e-6 {
		t.Errorf("box replicate corner %v", r[0])
	}
	// sobel-x finds a vertical edge: left half 0, right half 1
	edge := make([]float32, w*h)
	for y := 0; y < h; y++ {
		for x := w / 2; x < w; x++ {
			edge[y*w+x] = 1
		}
	}
	sx, _ := ParseMask("sobel-x", 3, 2)
	se := Convolve(edge, w, h, sx, BorderReplicate)
	if se[5*w+w/2] != -4 || se[5*w+w/2-1] != -4 || se[5*w+2] != 0 {
		t.Errorf("sobel-x at the edge: %v %v, flat %v", se[5*w+w/2], se[5*w+w/2-1], se[5*w+2])
	}
	// a NaN spreads over its footprint only
	img[8*w+10] = float32(math.NaN())
	nan := Convolve(img, w, h, box, BorderZero)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			inside := x >= 9 && x <= 11 && y >= 7 && y <= 9
			if math.IsNaN(nan[y*w+x]) != inside {
				t.Fatalf("NaN at (10,8) reaches (%d,%d): %v", x, y, nan[y*w+x])
			}
		}
	}
}

func TestConvolveCPUWithinTolerance(t *testing.T) {
	const w, h = 1021, 769
	img := make([]float32, w*h)
	Uniform(img, 5)
	for _, spec := range []string{"box", "gauss", "sobel-y", "0.5,-1.25,3;2,0,1;1,1,-7"} {
		for _, k := range []int{3, 15} {
			m, err := ParseMask(spec, k, 2)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]float32, w*h)
			ConvolveCPU(img, w, h, m, BorderReplicate, got)
			want := Convolve(img, w, h, m, BorderReplicate)
			if maxErr, bad, first := ConvCheck(got, want, ConvTolerance(m, 1)); bad != 0 {
				t.Errorf("%s k=%d: %d bad, max error %g, %s", spec, k, bad, maxErr, first)
			}
		}
	}
	got := make([]float32, 4)
	if _, bad, _ := ConvCheck(got, []float64{0, 0, 1, 0}, 0.5); bad != 1 {
		t.Error("a wrong pixel passed")
	}
}

// A stack of planes with border rows between them convolves as each plane alone, for both
// borders, masks of several heights and the magnitude; and the planes come back out.
func TestStackedPlanesConvolveAsEachAlone(t *testing.T) {
	w, h := 37, 23
	planes := make([][]float32, 3)
	for p := range planes {
		planes[p] = make([]float32, w*h)
		Uniform(planes[p], int64(p+1))
	}
	for _, spec := range []string{"box", "sobel", "gauss", "1,2,3,4,5;0,0,0,0,0;1,1,1,1,1"} {
		for _, k := range []int{3, 7} {
			m, err := ParseMask(spec, k, 2)
			if err != nil {
				t.Fatal(err)
			}
			for _, border := range []string{BorderZero, BorderReplicate} {
				stack, height, stride := StackPlanes(planes, w, h, m, border)
				if len(stack) != w*height || stride < h {
					t.Fatalf("stack of %d for %d rows, stride %d", len(stack), height, stride)
				}
				got := Convolve(stack, w, height, m, border)
				for p, plane := range planes {
					want := Convolve(plane, w, h, m, border)
					for i, v := range want {
						if g := got[p*stride*w+i]; g != v {
							t.Fatalf("%s k=%d %s plane %d pixel %d: stacked %g, alone %g", spec, k, border, p, i, g, v)
						}
					}
				}
				back := UnstackPlanes(stack, w, h, 3, stride)
				for p := range planes {
					for i := range planes[p] {
						if back[p][i] != planes[p][i] {
							t.Fatalf("plane %d pixel %d did not come back", p, i)
						}
					}
				}
			}
		}
	}
}

func TestUint8PixelsRoundClampAndCheck(t *testing.T) {
	for _, c := range []struct {
		v    float64
		want uint8
	}{{-3, 0}, {0.5, 0}, {1.5, 2}, {2.5, 2}, {254.49, 254}, {255.7, 255}, {1e9, 255}, {math.NaN(), 0}} {
		if got := ToUint8(c.v); got != c.want {
			t.Errorf("ToUint8(%v) = %d, want %d", c.v, got, c.want)
		}
	}
	want := []float64{10.2, 20.5, 30.5000001, 300, -5}
	if _, bad, first := ConvCheckU8([]uint8{10, 20, 31, 255, 0}, want, 1e-6); bad != 0 {
		t.Errorf("exact pixels fail: %s", first)
	}
	if _, bad, _ := ConvCheckU8([]uint8{10, 21, 30, 255, 0}, want, 1e-6); bad != 0 {
		t.Errorf("a tie within tolerance must pass either way")
	}
	if _, bad, _ := ConvCheckU8([]uint8{11, 20, 31, 255, 0}, want, 1e-6); bad != 1 {
		t.Errorf("a pixel off by one away from a tie must fail")
	}
	// a truncating library: 10.2 may be 10, 20.5 20 or 21, 30.5000001 30 or 31; 10.7 may be 10 (rounded down) but not 9
	lib := []float64{10.7, 20.5, 30.5000001, 300, -5, 7.0000000001}
	if _, bad, trunc, first := ConvCheckU8Truncating([]uint8{10, 20, 30, 255, 0, 7}, lib, 1e-6); bad != 0 || trunc != 1 {
		t.Errorf("truncated pixels: bad %d (%s), truncated %d, want 0 and 1", bad, first, trunc)
	}
	if _, bad, _, _ := ConvCheckU8Truncating([]uint8{9, 20, 31, 255, 0, 5}, lib, 1e-6); bad != 2 {
		t.Errorf("pixels two below the reference must fail (bad %d)", bad)
	}
}
