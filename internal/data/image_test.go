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
