package data

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"os"
	"strings"
)

// Image is a picture as float32 planes: Channels planes (1: grey; 3: R, G, B) of Width x Height
// values, row-major, in 0..255.
type Image struct {
	Width, Height, Channels int
	Planes                  [][]float32
}

// ReadImage reads a PNG or JPEG file. Grey images come as they are; colour images are converted
// to grey by luma (Rec. 601: 0.299 R + 0.587 G + 0.114 B), or, with rgb, kept as three planes.
// 16-bit PNGs are scaled to 0..255; alpha is ignored.
func ReadImage(path string, rgb bool) (*Image, error) {
	f, err := openFile(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	src, format, err := image.Decode(f)
	if err != nil {
		if errors.Is(err, image.ErrFormat) {
			return nil, fmt.Errorf("%s: not a PNG or JPEG image", path)
		}
		return nil, fmt.Errorf("%s: unreadable %s: %v", path, strings.ToUpper(format), err)
	}
	b := src.Bounds()
	if b.Dx() < 1 || b.Dy() < 1 {
		return nil, fmt.Errorf("%s: the image is empty (%dx%d)", path, b.Dx(), b.Dy())
	}
	img := &Image{Width: b.Dx(), Height: b.Dy(), Channels: 1}
	grey := isGrey(src.ColorModel())
	if rgb && !grey {
		img.Channels = 3
	}
	for c := 0; c < img.Channels; c++ {
		img.Planes = append(img.Planes, make([]float32, img.Width*img.Height))
	}
	for y := 0; y < img.Height; y++ {
		for x := 0; x < img.Width; x++ {
			r, g, bl := straight(src.At(b.Min.X+x, b.Min.Y+y))
			at := y*img.Width + x
			rf, gf, bf := float64(r)/257, float64(g)/257, float64(bl)/257
			switch {
			case img.Channels == 3:
				img.Planes[0][at], img.Planes[1][at], img.Planes[2][at] = float32(rf), float32(gf), float32(bf)
			case grey:
				img.Planes[0][at] = float32(rf)
			default:
				img.Planes[0][at] = float32(0.299*rf + 0.587*gf + 0.114*bf)
			}
		}
	}
	return img, nil
}

// straight is a pixel's colour without its alpha, 16-bit: a PNG with alpha decodes to
// non-premultiplied pixels, read as they are (RGBA() would premultiply them by alpha); any other
// pixel with alpha is un-premultiplied.
func straight(c color.Color) (r, g, b uint32) {
	switch p := c.(type) {
	case color.NRGBA:
		return uint32(p.R) * 257, uint32(p.G) * 257, uint32(p.B) * 257
	case color.NRGBA64:
		return uint32(p.R), uint32(p.G), uint32(p.B)
	}
	n := color.NRGBA64Model.Convert(c).(color.NRGBA64)
	return uint32(n.R), uint32(n.G), uint32(n.B)
}

func isGrey(m color.Model) bool { return m == color.GrayModel || m == color.Gray16Model }

// Byte rounds a value to the nearest 8-bit level, clamped to 0..255 (NaN: 0).
func Byte(v float32) uint8 {
	switch {
	case !(v > 0):
		return 0
	case v >= 255:
		return 255
	}
	return uint8(math.Floor(float64(v) + 0.5))
}

// WriteImage writes the planes as an 8-bit PNG (one plane: grey; three: RGB), each value rounded
// and clamped to 0..255. A path ending in .jpg or .jpeg writes a JPEG (quality 95) instead.
func WriteImage(path string, img *Image) error {
	if img.Channels != 1 && img.Channels != 3 {
		return fmt.Errorf("writing %s: %d channels (1 or 3 can be written)", path, img.Channels)
	}
	rect := image.Rect(0, 0, img.Width, img.Height)
	var out image.Image
	if img.Channels == 1 {
		g := image.NewGray(rect)
		for i, v := range img.Planes[0] {
			g.Pix[i] = Byte(v)
		}
		out = g
	} else {
		c := image.NewNRGBA(rect)
		for i := range img.Planes[0] {
			c.Pix[4*i], c.Pix[4*i+1], c.Pix[4*i+2], c.Pix[4*i+3] = Byte(img.Planes[0][i]), Byte(img.Planes[1][i]), Byte(img.Planes[2][i]), 255
		}
		out = c
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("writing %s: %v", path, err)
	}
	lower := strings.ToLower(path)
	if strings.HasSuffix(lower, ".jpg") || strings.HasSuffix(lower, ".jpeg") {
		err = jpeg.Encode(f, out, &jpeg.Options{Quality: 95})
	} else {
		err = png.Encode(f, out)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("writing %s: %v", path, err)
	}
	return nil
}
