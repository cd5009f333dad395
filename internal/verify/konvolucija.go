package verify

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Mask is a convolution mask of odd width and height (1-D: height 1), weights row by row. The
// lecture's formula does not flip it: P[y][x] = sum M[j][i] * N[y - ry + j][x - rx + i]
// (image processing calls this correlation, CNN libraries convolution).
// Magnitude: the output is sqrt(gx^2 + gy^2) of the mask (gx) and its transpose (gy): Sobel's
// gradient magnitude from sobel-x.
type Mask struct {
	Name      string
	W, H      int
	Weights   []float32
	Magnitude bool
}

// The largest masks: 31 x 31 in 2-D, 63 taps in 1-D.
const (
	MaxMask2D = 31
	MaxMask1D = 63
)

// MaskNames are the named masks; anything else is read as a custom mask.
var MaskNames = []string{"box", "shift", "sobel-x", "sobel-y", "sobel", "gauss"}

// ParseMask makes the mask a -mask flag names, in 1 or 2 dimensions: box (k x k of 1/k^2; 1-D: k
// taps of 1/k), shift (moves the picture one pixel left: P[x] = N[x+1]), sobel-x and sobel-y
// (the lecture's edge masks, 2-D only), sobel (their gradient magnitude sqrt(gx^2 + gy^2)),
// gauss (k x k, sigma = 0.3 ((k-1)/2 - 1) + 0.8, summing to 1), or a custom mask: rows separated
// by ';', weights by ',' ("1,2,1;0,0,0;-1,-2,-1"; 1-D one row).
func ParseMask(spec string, k, dim int) (Mask, error) {
	if dim != 1 && dim != 2 {
		return Mask{}, fmt.Errorf("-dim %d: 1 or 2", dim)
	}
	limit := MaxMask2D
	if dim == 1 {
		limit = MaxMask1D
	}
	if k < 1 || k%2 == 0 || k > limit {
		return Mask{}, fmt.Errorf("-k %d: an odd size from 1 to %d", k, limit)
	}
	h := k
	if dim == 1 {
		h = 1
	}
	m := Mask{Name: spec, W: k, H: h, Weights: make([]float32, k*h)}
	switch spec {
	case "box":
		for i := range m.Weights {
			m.Weights[i] = 1 / float32(k*h)
		}
		return m, nil
	case "shift":
		if dim == 1 {
			return Mask{Name: spec, W: 3, H: 1, Weights: []float32{0, 0, 1}}, nil
		}
		return Mask{Name: spec, W: 3, H: 3, Weights: []float32{0, 0, 0, 0, 0, 1, 0, 0, 0}}, nil
	case "sobel-x", "sobel-y", "sobel":
		if dim == 1 {
			return Mask{}, fmt.Errorf("-mask %s is 2-D (use -dim 2)", spec)
		}
		w := []float32{1, 0, -1, 2, 0, -2, 1, 0, -1}
		if spec == "sobel-y" {
			w = []float32{1, 2, 1, 0, 0, 0, -1, -2, -1}
		}
		return Mask{Name: spec, W: 3, H: 3, Weights: w, Magnitude: spec == "sobel"}, nil
	case "gauss":
		sigma := 0.3*(float64(k-1)*0.5-1) + 0.8
		var sum float64
		g := make([]float64, k)
		for i := range g {
			d := float64(i - k/2)
			g[i] = math.Exp(-d * d / (2 * sigma * sigma))
			sum += g[i]
		}
		total := sum
		if dim == 2 {
			total = sum * sum
		}
		for y := 0; y < h; y++ {
			for x := 0; x < k; x++ {
				v := g[x]
				if dim == 2 {
					v *= g[y]
				}
				m.Weights[y*k+x] = float32(v / total)
			}
		}
		return m, nil
	}
	return parseCustom(spec, dim, limit)
}

func parseCustom(spec string, dim, limit int) (Mask, error) {
	rows := strings.Split(spec, ";")
	m := Mask{Name: "custom", H: len(rows)}
	for r, row := range rows {
		cells := strings.Split(row, ",")
		if r == 0 {
			m.W = len(cells)
		} else if len(cells) != m.W {
			return Mask{}, fmt.Errorf("-mask %q: row %d has %d weights, row 1 has %d", spec, r+1, len(cells), m.W)
		}
		for _, c := range cells {
			v, err := strconv.ParseFloat(strings.TrimSpace(c), 32)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return Mask{}, fmt.Errorf("-mask %q: %q is not a finite number (or name one of %s)", spec, strings.TrimSpace(c), strings.Join(MaskNames, ", "))
			}
			m.Weights = append(m.Weights, float32(v))
		}
	}
	switch {
	case dim == 1 && m.H != 1:
		return Mask{}, fmt.Errorf("-mask %q has %d rows: a 1-D mask is one row", spec, m.H)
	case m.W%2 == 0 || m.H%2 == 0:
		return Mask{}, fmt.Errorf("-mask %q is %d x %d: both sizes must be odd (the mask has a centre)", spec, m.W, m.H)
	case m.W > limit || m.H > limit:
		return Mask{}, fmt.Errorf("-mask %q is %d x %d: at most %d", spec, m.W, m.H, limit)
	}
	return m, nil
}

// Image borders: elements outside the input are 0 (the lecture's ghost elements) or a replica
// of the nearest edge element.
const (
	BorderZero      = "zero"
	BorderReplicate = "replicate"
)

// at is the input at (x, y) under the border rule.
func at(img []float32, w, h, x, y int, zero bool) float32 {
	if x < 0 || x >= w || y < 0 || y >= h {
		if zero {
			return 0
		}
		x, y = clampInt(x, 0, w-1), clampInt(y, 0, h-1)
	}
	return img[y*w+x]
}

func clampInt(v, lo, hi int) int {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// correlate writes every output's weighted sum of its footprint (the lecture's formula, taps in
// the mask's order, products and sums in T) into out; rows on every core, the interior without
// border tests.
func correlate[T float32 | float64](img []float32, w, h int, weights []float32, mw, mh int, border string, out []T) {
	rx, ry, zero := mw/2, mh/2, border == BorderZero
	parallel(h, func(_, lo, hi int) {
		for y := lo; y < hi; y++ {
			inside := y >= ry && y < h-ry
			for x := 0; x < w; x++ {
				var s T
				if inside && x >= rx && x < w-rx {
					for j := 0; j < mh; j++ {
						row, wr := img[(y-ry+j)*w+x-rx:][:mw], weights[j*mw:][:mw]
						for i, v := range row {
							s += T(wr[i]) * T(v)
						}
					}
				} else {
					// every tap multiplies, zero weights too: a NaN or Inf anywhere in the
					// footprint spreads as IEEE says (0 * Inf is NaN), and only there
					for j := 0; j < mh; j++ {
						for i := 0; i < mw; i++ {
							s += T(weights[j*mw+i]) * T(at(img, w, h, x-rx+i, y-ry+j, zero))
						}
					}
				}
				out[y*w+x] = s
			}
		}
	})
}

// transposed is the mask's transpose (a square mask's gy for the magnitude).
func (m Mask) transposed() []float32 {
	t := make([]float32, len(m.Weights))
	for j := 0; j < m.H; j++ {
		for i := 0; i < m.W; i++ {
			t[i*m.H+j] = m.Weights[j*m.W+i]
		}
	}
	return t
}

// convolve is Convolve and ConvolveCPU in T: the mask's sums, or their gradient magnitude.
func convolve[T float32 | float64](img []float32, w, h int, m Mask, border string, out []T) {
	correlate(img, w, h, m.Weights, m.W, m.H, border, out)
	if !m.Magnitude {
		return
	}
	gy := make([]T, len(out))
	correlate(img, w, h, m.transposed(), m.H, m.W, border, gy)
	for i, gx := range out {
		out[i] = T(math.Sqrt(float64(gx*gx + gy[i]*gy[i])))
	}
}

// Convolve is the float64 reference: every output is the mask's weighted sum of its footprint
// (products and sums in float64; for a magnitude mask, sqrt(gx^2 + gy^2)), the image w x h
// row-major (1-D: h = 1).
func Convolve(img []float32, w, h int, m Mask, border string) []float64 {
	out := make([]float64, w*h)
	convolve(img, w, h, m, border, out)
	return out
}

// ConvolveCPU is konvolucija's host variant: rows on every core, float32 products and sums in
// the mask's order, as a device thread does them.
func ConvolveCPU(img []float32, w, h int, m Mask, border string, out []float32) {
	convolve(img, w, h, m, border, out)
}

// ConvTolerance bounds |out - reference| for a float32 convolution that adds its taps one after
// another: each product rounds once and each of the taps-1 additions once, every term at most
// sum |w| * max |x| in size, so gamma(taps + 1) * sum |w| * max |x| (Higham).
// For a magnitude, sqrt(gx^2 + gy^2) moves by at most the length of the two errors (sqrt 2 times
// the bound), and the squares, their sum and the root round three times more.
func ConvTolerance(m Mask, maxAbs float64) float64 {
	var sumW float64
	for _, w := range m.Weights {
		sumW += math.Abs(float64(w))
	}
	if m.Magnitude {
		return (gamma(float64(len(m.Weights)+1), 0x1p-24) + gamma(3, 0x1p-24)) * math.Sqrt2 * sumW * maxAbs
	}
	return gamma(float64(len(m.Weights)+1), 0x1p-24) * sumW * maxAbs
}

// ConvCheck compares a float32 result with the reference: within tol everywhere, NaN where the
// reference is NaN, the same infinity where it is infinite.
func ConvCheck(out []float32, want []float64, tol float64) (maxErr float64, bad int, first string) {
	for i, g := range out {
		w, gv := want[i], float64(g)
		var ok bool
		switch {
		case math.IsNaN(w):
			ok = math.IsNaN(gv)
		case math.IsInf(w, 0):
			ok = gv == w
		default:
			d := math.Abs(gv - w)
			ok = d <= tol
			if d > maxErr {
				maxErr = d
			}
		}
		if !ok {
			if bad == 0 {
				first = fmt.Sprintf("pixel %d: got %g, want %g", i, gv, w)
			}
			bad++
		}
	}
	return maxErr, bad, first
}

// StackPlanes lays the planes of a w x h image (R, G, B) one under another with border rows
// between them, so that one 2-D convolution of the stack gives every plane's own convolution
// (one launch): below a plane, ry rows as its border rule sees them (zeros, or copies of its last
// row), then, for replicate, ry copies of the next plane's first row (zeros serve both sides). It
// returns the stack and its height; plane p's rows start at p * stride.
func StackPlanes(planes [][]float32, w, h int, m Mask, border string) (stack []float32, height, stride int) {
	ry := m.H / 2
	gap := ry
	if border == BorderReplicate {
		gap = 2 * ry
	}
	stride = h + gap
	height = len(planes)*stride - gap
	stack = make([]float32, w*height)
	for p, plane := range planes {
		copy(stack[p*stride*w:], plane[:w*h])
		if p == len(planes)-1 || border != BorderReplicate {
			continue // zeros are already there
		}
		last, first := plane[(h-1)*w:h*w], planes[p+1][:w]
		for r := 0; r < ry; r++ {
			copy(stack[(p*stride+h+r)*w:], last)
			copy(stack[(p*stride+h+ry+r)*w:], first)
		}
	}
	return stack, height, stride
}

// UnstackPlanes takes each plane's h rows back out of a stack's result.
func UnstackPlanes(stack []float32, w, h, planes, stride int) [][]float32 {
	out := make([][]float32, planes)
	for p := range out {
		out[p] = append([]float32(nil), stack[p*stride*w:(p*stride+h)*w]...)
	}
	return out
}

// ToUint8 is an 8-bit output pixel: the value clamped to 0..255 and rounded to the nearest, ties
// to even (as the device's addition of 1.5 x 2^23); NaN gives 0 (as fmaxf).
func ToUint8(v float64) uint8 {
	if math.IsNaN(v) || v < 0 {
		return 0
	}
	if v > 255 {
		return 255
	}
	return uint8(math.RoundToEven(v))
}

// ConvCheckU8 compares an 8-bit result with the float64 reference: each pixel must be the
// reference's ToUint8, or its neighbour where the reference lies within tol of a tie (x.5), where
// float32 sums may round either way. maxErr is the largest |pixel - ToUint8(reference)|: 0 where
// every pixel is the rounded reference, 1 where a tie went the other way.
func ConvCheckU8(out []uint8, want []float64, tol float64) (maxErr float64, bad int, first string) {
	maxErr, bad, _, first = convCheckU8(out, want, tol, false)
	return maxErr, bad, first
}

// ConvCheckU8Truncating is ConvCheckU8 for a library whose integer division may truncate (NPP's
// 8-bit filter): a pixel may also be the clamped reference rounded down (either way where the
// reference lies within tol of an integer); truncated counts those below the rounded reference.
func ConvCheckU8Truncating(out []uint8, want []float64, tol float64) (maxErr float64, bad, truncated int, first string) {
	return convCheckU8(out, want, tol, true)
}

func convCheckU8(out []uint8, want []float64, tol float64, truncating bool) (maxErr float64, bad, truncated int, first string) {
	for i, g := range out {
		w := want[i]
		if math.IsNaN(w) {
			w = 0
		}
		c := math.Min(math.Max(w, 0), 255)
		e := ToUint8(w)
		tie := math.Abs(c-math.Floor(c)-0.5) <= tol
		down, up := uint8(math.Floor(math.Max(c-tol, 0))), uint8(math.Floor(math.Min(c+tol, 255)))
		d := math.Abs(float64(g) - float64(e))
		maxErr = math.Max(maxErr, d)
		switch {
		case g == e || (tie && d == 1):
		case truncating && (g == down || g == up):
			truncated++
		default:
			if bad == 0 {
				allowed := fmt.Sprint(e)
				if truncating {
					allowed = fmt.Sprintf("%d or %d rounded down", e, down)
				}
				first = fmt.Sprintf("pixel %d: got %d, want %s (reference %g)", i, g, allowed, want[i])
			}
			bad++
		}
	}
	return maxErr, bad, truncated, first
}
