package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tecaj/internal/cli/clitest"
	"tecaj/internal/data"
)

func TestMain(m *testing.M) { clitest.Main(m) }

func TestUsage(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "text.png")
	os.WriteFile(text, []byte("not an image"), 0o644)
	empty := filepath.Join(dir, "v.npy")
	if err := data.WriteFloat32s(empty, []float32{1, 2, 3}); err != nil {
		t.Fatal(err)
	}
	floats := filepath.Join(dir, "f.npy")
	if err := data.WriteFloat32Array(floats, []int{2, 2}, []float32{1, 2, 3, 4}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-dim", "3"}, "-dim 3: 1 or 2"},
		{[]string{"-k", "4"}, "-k 4: an odd size"},
		{[]string{"-k", "33"}, "-k 33: an odd size from 1 to 31"},
		{[]string{"-mask", "1,2;3,4"}, "must be odd"},
		{[]string{"-mask", "1,2,1;0,0"}, "row 2 has 2 weights"},
		{[]string{"-mask", "blur"}, `"blur" is not a finite number`},
		{[]string{"-border", "wrap"}, `-border "wrap"`},
		{[]string{"-in", text}, "not a PNG or JPEG"},
		{[]string{"-in", filepath.Join(dir, "missing.png")}, "missing.png"},
		{[]string{"-a", empty}, "a 2-D array is needed"},
		{[]string{"-dim", "1", "-mask", "sobel-x"}, "2-D"},
		{[]string{"-width", "0"}, "at least 1"},
		{[]string{"-blocks", "3"}, "sizes its own grid"},
		{[]string{"-channels", "cmyk"}, `-channels "cmyk": grey or rgb`},
		{[]string{"-channels", "rgb"}, "a -in image"},
		{[]string{"-type", "int16"}, `-type "int16": float32 or uint8`},
		{[]string{"-type", "uint8", "-dim", "1"}, "8-bit images"},
		{[]string{"-type", "uint8", "-a", floats}, "needs a uint8 array"},
	} {
		if code, _, stderr := clitest.Run(t, "konvolucija", c.args...); code != 2 || !strings.Contains(stderr, c.want) || !clitest.OneLine(stderr) {
			t.Errorf("konvolucija %v: exit %d, %q; want 2 and one line with %q", c.args, code, stderr, c.want)
		}
	}
}

// A generated picture through the shift mask: a one-pixel move left, exact (the golden output:
// every pixel takes its right neighbour's value; the last column, with replicate, its own).
func TestShiftGolden(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.png"), filepath.Join(dir, "out.png")
	const w, h = 41, 23
	img := &data.Image{Width: w, Height: h, Channels: 1, Planes: [][]float32{make([]float32, w*h)}}
	for i := range img.Planes[0] {
		img.Planes[0][i] = float32((i*29 + i/w*7) % 256)
	}
	if err := data.WriteImage(in, img); err != nil {
		t.Fatal(err)
	}
	variant := "cpu"
	if clitest.NoGPU() == "" {
		variant = "all"
	}
	for _, pixel := range []string{"float32", "uint8"} { // and the 8-bit path: the same exact move
		if code, stdout, stderr := clitest.Run(t, "konvolucija", "-variant", variant, "-in", in, "-mask", "shift", "-border", "replicate", "-type", pixel, "-o", out, "-reps", "2"); code != 0 {
			t.Fatalf("-type %s: exit %d\n%s%s", pixel, code, stdout, stderr)
		}
		got, err := data.ReadImage(out, false)
		if err != nil {
			t.Fatal(err)
		}
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				want := img.Planes[0][y*w+x]
				if x+1 < w {
					want = img.Planes[0][y*w+x+1]
				}
				if got.Planes[0][y*w+x] != want {
					t.Fatalf("-type %s (%d,%d): %v, want %v", pixel, x, y, got.Planes[0][y*w+x], want)
				}
			}
		}
	}
}

// -type uint8 with arrays: a 2-D uint8 .npy in, the shift mask, a uint8 .npy out, exact.
func TestUint8ArraysGolden(t *testing.T) {
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.npy"), filepath.Join(dir, "out.npy")
	const w, h = 37, 19
	px := make([]byte, w*h)
	for i := range px {
		px[i] = byte((i*53 + i/w*5) % 256)
	}
	if err := data.Write(in, data.Uint8, []int{h, w}, px); err != nil {
		t.Fatal(err)
	}
	variant := "cpu"
	if clitest.NoGPU() == "" {
		variant = "all"
	}
	if code, stdout, stderr := clitest.Run(t, "konvolucija", "-variant", variant, "-a", in, "-type", "uint8", "-mask", "shift", "-border", "zero", "-o", out, "-reps", "2"); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, stdout, stderr)
	}
	got, err := data.Read(out)
	if err != nil {
		t.Fatal(err)
	}
	if got.Dtype != data.Uint8 || len(got.Shape) != 2 || got.Shape[0] != h || got.Shape[1] != w {
		t.Fatalf("%s: dtype %s shape %v, want uint8 (%d, %d)", out, got.Dtype, got.Shape, h, w)
	}
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			var want byte // the right neighbour; past the last column, zero
			if x+1 < w {
				want = px[y*w+x+1]
			}
			if got.Data[y*w+x] != want {
				t.Fatalf("(%d,%d): %d, want %d", x, y, got.Data[y*w+x], want)
			}
		}
	}
}

// -channels rgb: each channel through a vertical move (a mask that takes the pixel below:
// rows meet the border rows between the stacked planes), exactly, in a colour PNG; with zero
// and replicate borders.
func TestChannelsRGBGolden(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.png")
	const w, h = 19, 13
	img := &data.Image{Width: w, Height: h, Channels: 3}
	for c := 0; c < 3; c++ {
		p := make([]float32, w*h)
		for i := range p {
			p[i] = float32((i*37 + c*91 + i/w*11) % 256)
		}
		img.Planes = append(img.Planes, p)
	}
	if err := data.WriteImage(in, img); err != nil {
		t.Fatal(err)
	}
	variant := "cpu"
	if clitest.NoGPU() == "" {
		variant = "all"
	}
	for _, border := range []string{"zero", "replicate"} {
		out := filepath.Join(dir, border+".png")
		args := []string{"-variant", variant, "-in", in, "-channels", "rgb", "-mask", "0,0,0;0,0,0;0,1,0", "-border", border, "-o", out, "-reps", "2"}
		if code, stdout, stderr := clitest.Run(t, "konvolucija", args...); code != 0 {
			t.Fatalf("%v: exit %d\n%s%s", args, code, stdout, stderr)
		}
		got, err := data.ReadImage(out, true)
		if err != nil || got.Channels != 3 || got.Width != w || got.Height != h {
			t.Fatalf("%s: %v, %+v", out, err, got)
		}
		for c := 0; c < 3; c++ {
			for y := 0; y < h; y++ {
				for x := 0; x < w; x++ {
					var want float32 // the pixel below; past the last row 0, or the last row itself
					switch {
					case y+1 < h:
						want = img.Planes[c][(y+1)*w+x]
					case border == "replicate":
						want = img.Planes[c][y*w+x]
					}
					if g := got.Planes[c][y*w+x]; g != want {
						t.Fatalf("%s channel %d (%d,%d): %v, want %v", border, c, x, y, g, want)
					}
				}
			}
		}
	}
}
