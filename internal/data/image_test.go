package data

import (
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestImageRoundTripIsExact(t *testing.T) {
	dir := t.TempDir()
	img := &Image{Width: 33, Height: 17, Channels: 1, Planes: [][]float32{make([]float32, 33*17)}}
	for i := range img.Planes[0] {
		img.Planes[0][i] = float32((i * 37) % 256)
	}
	path := filepath.Join(dir, "grey.png")
	if err := WriteImage(path, img); err != nil {
		t.Fatal(err)
	}
	back, err := ReadImage(path, false)
	if err != nil || back.Width != 33 || back.Height != 17 || back.Channels != 1 {
		t.Fatalf("%+v %v", back, err)
	}
	for i, v := range img.Planes[0] {
		if back.Planes[0][i] != v {
			t.Fatalf("pixel %d: %v, want %v", i, back.Planes[0][i], v)
		}
	}
	// colour: three planes as written; grey by luma otherwise
	rgb := &Image{Width: 2, Height: 1, Channels: 3, Planes: [][]float32{{255, 0}, {0, 10}, {0, 20}}}
	path = filepath.Join(dir, "rgb.png")
	if err := WriteImage(path, rgb); err != nil {
		t.Fatal(err)
	}
	back, err = ReadImage(path, true)
	if err != nil || back.Channels != 3 || back.Planes[0][0] != 255 || back.Planes[2][1] != 20 {
		t.Fatalf("rgb: %+v %v", back, err)
	}
	back, err = ReadImage(path, false)
	if err != nil || back.Channels != 1 || math.Abs(float64(back.Planes[0][0])-0.299*255) > 1e-4 ||
		math.Abs(float64(back.Planes[0][1])-(0.587*10+0.114*20)) > 1e-4 {
		t.Fatalf("luma: %+v %v", back, err)
	}
}

func TestImageValuesAreClampedAndRounded(t *testing.T) {
	for v, want := range map[float32]uint8{-5: 0, 0.49: 0, 0.5: 1, 254.6: 255, 300: 255, float32(math.NaN()): 0, float32(math.Inf(1)): 255} {
		if got := Byte(v); got != want {
			t.Errorf("Byte(%v) = %d, want %d", v, got, want)
		}
	}
}

func TestSixteenBitPNGAndJPEG(t *testing.T) {
	dir := t.TempDir()
	g := image.NewGray16(image.Rect(0, 0, 3, 1))
	g.SetGray16(0, 0, color.Gray16{Y: 65535})
	g.SetGray16(1, 0, color.Gray16{Y: 257 * 100})
	path := filepath.Join(dir, "g16.png")
	f, _ := os.Create(path)
	if err := png.Encode(f, g); err != nil {
		t.Fatal(err)
	}
	f.Close()
	img, err := ReadImage(path, false)
	if err != nil || img.Planes[0][0] != 255 || img.Planes[0][1] != 100 || img.Planes[0][2] != 0 {
		t.Fatalf("16-bit: %+v %v", img, err)
	}
	jpg := filepath.Join(dir, "flat.jpg")
	flat := &Image{Width: 16, Height: 16, Channels: 1, Planes: [][]float32{make([]float32, 256)}}
	for i := range flat.Planes[0] {
		flat.Planes[0][i] = 128
	}
	if err := WriteImage(jpg, flat); err != nil {
		t.Fatal(err)
	}
	img, err = ReadImage(jpg, false)
	if err != nil || math.Abs(float64(img.Planes[0][100])-128) > 2 {
		t.Fatalf("jpeg: %+v %v", img, err)
	}
}

func TestImageRefusesWithOneLineNamingTheFile(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{"text.png": "not an image", "cut.png": "\x89PNG\r\n\x1a\n\x00\x00"} {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(content), 0o644)
		_, err := ReadImage(path, false)
		if err == nil || !strings.Contains(err.Error(), name) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if _, err := ReadImage(filepath.Join(dir, "missing.png"), false); err == nil || !strings.Contains(err.Error(), "missing.png") {
		t.Errorf("missing: %v", err)
	}
	if err := WriteImage(filepath.Join(dir, "x.png"), &Image{Width: 1, Height: 1, Channels: 2, Planes: [][]float32{{0}, {0}}}); err == nil {
		t.Error("two channels written")
	}
}

// Alpha is ignored, as documented: an RGBA pixel (200, 100, 50, alpha 128) reads as its own
// colour's luma (124.2), not the colour premultiplied by alpha (62.3); 16-bit too.
func TestImageIgnoresAlpha(t *testing.T) {
	dir := t.TempDir()
	m8 := image.NewNRGBA(image.Rect(0, 0, 2, 1))
	m8.SetNRGBA(0, 0, color.NRGBA{200, 100, 50, 128})
	m8.SetNRGBA(1, 0, color.NRGBA{200, 100, 50, 0})
	m16 := image.NewNRGBA64(image.Rect(0, 0, 2, 1))
	m16.SetNRGBA64(0, 0, color.NRGBA64{200 * 257, 100 * 257, 50 * 257, 128 * 257})
	m16.SetNRGBA64(1, 0, color.NRGBA64{200 * 257, 100 * 257, 50 * 257, 0})
	want := 0.299*200 + 0.587*100 + 0.114*50
	for name, m := range map[string]image.Image{"8-bit": m8, "16-bit": m16} {
		path := filepath.Join(dir, name+".png")
		f, err := os.Create(path)
		if err == nil {
			err = png.Encode(f, m)
			f.Close()
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, rgb := range []bool{false, true} {
			img, err := ReadImage(path, rgb)
			if err != nil {
				t.Fatal(err)
			}
			for x := 0; x < 2; x++ {
				got := float64(img.Planes[0][x])
				if rgb {
					got = 0.299*float64(img.Planes[0][x]) + 0.587*float64(img.Planes[1][x]) + 0.114*float64(img.Planes[2][x])
				}
				if math.Abs(got-want) > 1e-3 {
					t.Errorf("%s rgb=%v pixel %d: luma %.2f, want %.2f", name, rgb, x, got, want)
				}
			}
		}
	}
}
