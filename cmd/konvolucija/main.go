// Command konvolucija convolves a 1-D vector or a 2-D image (random, a PNG or JPEG photograph,
// or a .npy array) with a mask (box, shift, sobel-x, sobel-y, gauss or a custom one), with each
// step of the lecture (global memory, the mask in constant memory, shared-memory tiles),
// verifies every output against a float64 reference and times it.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"tecaj/internal/cli"
	"tecaj/internal/data"
	"tecaj/internal/gpu"
	"tecaj/internal/report"
	"tecaj/internal/verify"
	"tecaj/internal/vocab"
)

// options are konvolucija's own flags.
type options struct {
	dim, k, width, height    int
	maskSpec, border         string
	inImage, fileA, channels string
	pixel                    string      // -type
	pixelV                   vocab.Dtype // -type's: float32 or uint8
	out                      cli.Writer
	mask                     verify.Mask
	img                      []float32 // from -in or -a (-channels rgb: the planes stacked)
	planes, planeH, stride   int       // -channels rgb: 3 planes of planeH rows, stride rows apart in img
}

func main() { os.Exit(cli.Main(command())) }

func command() cli.Command {
	opt := &options{dim: 2, k: 3, width: 4096, height: 4096, maskSpec: "box", border: verify.BorderZero, channels: "grey", planes: 1, pixel: vocab.Float32.String()}
	return cli.Command{
		Program: gpu.Konvolucija,
		About: "convolution of a vector (-dim 1) or an image (-dim 2; random, -in photo.png|jpg, or -a FILE.npy) with a mask " +
			"(-mask box|shift|sobel-x|sobel-y|sobel|gauss or \"1,2,1;0,0,0;-1,-2,-1\"; sobel: the gradient magnitude " +
			"sqrt(gx^2 + gy^2) of sobel-x and sobel-y, best and cpu), as the lecture defines it: " +
			"P = sum M[j][i] N[y-r+j][x-r+i], the mask not flipped (correlation, in image processing's words); " +
			"every lecture step, verified and timed",
		DefaultN: 4096 * 4096,
		Default:  "best",
		Baseline: "g",
		Params: func() string {
			p := fmt.Sprintf("-dim %d -mask %s", opt.dim, opt.maskSpec)
			if opt.maskSpec == "box" || opt.maskSpec == "gauss" {
				p += fmt.Sprintf(" -k %d", opt.k)
			}
			return p + fmt.Sprintf(" -border %s -type %s", opt.border, opt.pixelV)
		},
		ErrorKind: "max abs err",
		HostVariants: []cli.HostVariant{
			{Name: "cpu", Summary: "host: rows on every core (goroutines), float32 as a device thread adds; no GPU needed"},
		},
		// what each step of the lecture should change (docs/konvolucija.md): -counters checks them
		Claims: []cli.Claim{
			{Variant: "t", Than: "g", Counter: "dram", Fewer: true},
			{Variant: "best", Counter: "dram"},
		},
		Benchmarks: []string{"-width 8192 -height 8192 -reps 20", "-width 8192 -height 8192 -k 5 -reps 20",
			"-width 8192 -height 8192 -mask sobel -reps 20", "-dim 1 -n 2^26 -k 7 -reps 20",
			"-width 8192 -height 8192 -type uint8 -reps 20",
			// NPP's filter has the replicate border only: best beside npp on it
			"-width 8192 -height 8192 -border replicate -reps 20", "-width 8192 -height 8192 -k 5 -border replicate -reps 20",
			"-width 8192 -height 8192 -mask sobel-x -border replicate -reps 20",
			"-width 8192 -height 8192 -border replicate -type uint8 -reps 20",
			"-width 8192 -height 8192 -mask sobel-x -border replicate -type uint8 -reps 20"},
		DeviceBytes: func(n int64) float64 { return 8*float64(n) + 64<<20 },
		HostBytes:   func(n int64, _ bool) float64 { return 24*float64(n) + 64<<20 }, // inputs, outputs, the reference
		Flags:       opt.flags,
		Check:       opt.check,
		Plan: func(dev *gpu.Device, r gpu.Request) (gpu.Plan, error) {
			w, h := opt.width, opt.height
			if opt.dim == 1 {
				w, h = int(r.N), 1
			}
			return dev.PlanKonvolucija(gpu.KonvolucijaRequest{Request: r, Dim: opt.dim, Width: w, Height: h, MaskW: opt.mask.W,
				MaskH: opt.mask.H, Mask: opt.mask.Weights, Replicate: opt.border == verify.BorderReplicate, Magnitude: opt.mask.Magnitude,
				Uint8: opt.pixelV == vocab.Uint8})
		},
		Output: &opt.out,
		Open:   func(o cli.Options, dev *gpu.Device) (cli.Session, error) { return open(opt, o, dev) },
	}
}

func (opt *options) flags(fs *flag.FlagSet) {
	fs.IntVar(&opt.dim, "dim", opt.dim, "1 (a vector of -n) or 2 (an image of -width x -height)")
	fs.Var((*cli.Extent)(&opt.width), "width", "2-D: the random image's width, e.g. 8192 or 2^13 (or -n alone: the squarest image of n pixels)")
	fs.Var((*cli.Extent)(&opt.height), "height", "2-D: the random image's height")
	fs.StringVar(&opt.maskSpec, "mask", opt.maskSpec, "box, shift, sobel-x, sobel-y, sobel (the gradient magnitude), gauss, or rows of weights: \"1,2,1;0,0,0;-1,-2,-1\"")
	fs.IntVar(&opt.k, "k", opt.k, "box and gauss: the odd size (up to 31; 1-D up to 63 taps)")
	fs.StringVar(&opt.border, "border", opt.border, "outside the input: zero (the lecture's ghost elements) or replicate (the nearest edge)")
	fs.StringVar(&opt.inImage, "in", "", "2-D: a PNG or JPEG image (colour converted to grey by luma, or see -channels); sets the size")
	fs.StringVar(&opt.pixel, "type", opt.pixel, "float32, or uint8: 8-bit pixels in and out (2-D; best, with square masks "+
		"of 3, 5 or 7, and cpu; random pixels 0..255, -in, or -a with a 2-D uint8 array; out rounded, ties to even, "+
		"and clamped; -o .npy writes uint8)")
	fs.StringVar(&opt.channels, "channels", opt.channels, "-in: grey (luma), or rgb (each channel filtered: the three planes "+
		"stacked with border rows between them, one launch; -o writes a colour PNG)")
	fs.StringVar(&opt.fileA, "a", "", "a 1-D (-dim 1) or 2-D float32 .npy array (uint8 with -type uint8); sets the size")
	opt.out.Flags(fs, "the result (.npy: float32, or uint8 with -type uint8; or .png/.jpg for -dim 2, rounded and clamped to 0..255, and for masks "+
		"with negative weights, such as Sobel's, |value|, so that edges of either sign show)", ".npy", ".png", ".jpg", ".jpeg")
}

func (opt *options) check(o *cli.Options) error {
	if err := opt.out.Check(); err != nil {
		return err
	}
	if opt.dim != 1 && opt.dim != 2 {
		return fmt.Errorf("-dim %d: 1 or 2", opt.dim)
	}
	if opt.border != verify.BorderZero && opt.border != verify.BorderReplicate {
		return fmt.Errorf("-border %q: zero or replicate", opt.border)
	}
	var err error
	if opt.mask, err = verify.ParseMask(opt.maskSpec, opt.k, opt.dim); err != nil {
		return err
	}
	if opt.pixelV, err = vocab.Parse("type", opt.pixel, []vocab.Dtype{vocab.Float32, vocab.Uint8}); err != nil {
		return fmt.Errorf("-type %q: float32 or uint8", opt.pixel)
	}
	if opt.pixelV == vocab.Uint8 && opt.dim != 2 {
		return fmt.Errorf("-type uint8: 8-bit images (-dim 2: random, -in, or -a with a 2-D uint8 array), not -dim 1")
	}
	if opt.channels != "grey" && opt.channels != "rgb" {
		return fmt.Errorf("-channels %q: grey or rgb", opt.channels)
	}
	if opt.channels == "rgb" && opt.inImage == "" {
		return fmt.Errorf("-channels rgb: the channels of a -in image")
	}
	switch {
	case opt.inImage != "" && opt.fileA != "":
		return fmt.Errorf("-in and -a both give the input: choose one")
	case opt.inImage != "":
		if opt.dim != 2 {
			return fmt.Errorf("-in %s: an image is 2-D (-dim 2)", opt.inImage)
		}
		img, err := data.ReadImage(opt.inImage, opt.channels == "rgb")
		if err != nil {
			return err
		}
		opt.width, opt.height, opt.img = img.Width, img.Height, img.Planes[0]
		if img.Channels == 3 { // a grey file stays one plane
			opt.planes, opt.planeH = 3, img.Height
			opt.img, opt.height, opt.stride = verify.StackPlanes(img.Planes, img.Width, img.Height, opt.mask, opt.border)
		}
	case opt.fileA != "":
		a, err := data.LoadArray(opt.fileA, vocab.Float32, vocab.Float64, vocab.Uint8)
		if err != nil {
			return err
		}
		if len(a.Shape) != opt.dim {
			return fmt.Errorf("%s: shape %v, where a %d-D array is needed (-dim %d)", opt.fileA, a.Shape, opt.dim, opt.dim)
		}
		switch t, _ := a.Type(); {
		case opt.pixelV == vocab.Uint8 && t != vocab.Uint8:
			return fmt.Errorf("%s: dtype %s, where -type uint8 needs a uint8 array", opt.fileA, a.StoredDtype())
		case opt.pixelV != vocab.Uint8 && t == vocab.Uint8:
			return fmt.Errorf("%s: dtype %s, an 8-bit image: add -type uint8 (or save it as float32)", opt.fileA, a.StoredDtype())
		}
		if px, err := a.Bytes(); err == nil { // the pixels as they are stored
			opt.img = make([]float32, len(px))
			for i, v := range px {
				opt.img[i] = float32(v)
			}
		} else {
			var changed int
			if opt.img, changed, err = a.Float32s(); err != nil {
				return err
			}
			if note := data.RoundingNote("konvolucija", opt.fileA, changed, len(opt.img)); note != "" {
				fmt.Fprintln(os.Stderr, note)
			}
		}
		if opt.dim == 2 {
			opt.height, opt.width = a.Shape[0], a.Shape[1]
		} else {
			opt.width, opt.height = a.Shape[0], 1
		}
	}
	if opt.dim == 2 && opt.img == nil && o.Set["n"] && !o.Set["width"] && !o.Set["height"] {
		// -n in 2-D: the squarest image of exactly n pixels (its height the largest divisor <= sqrt n)
		h := int64(math.Sqrt(float64(o.N)))
		for h > 1 && o.N%h != 0 {
			h--
		}
		if h < 1 || o.N > math.MaxInt32 {
			return fmt.Errorf("-n %d: from 1 to %d pixels", o.N, math.MaxInt32)
		}
		opt.width, opt.height = int(o.N/h), int(h)
	}
	if opt.dim == 2 || opt.img != nil {
		if opt.width < 1 || opt.height < 1 {
			return fmt.Errorf("-width and -height must be at least 1 (got %d x %d)", opt.width, opt.height)
		}
		n := int64(opt.width) * int64(opt.height)
		if o.Set["n"] && o.N != n {
			return fmt.Errorf("-n %d does not match the %d x %d input (leave -n out in 2-D)", o.N, opt.width, opt.height)
		}
		o.N = n
	} else if !o.Set["n"] {
		o.N = 1 << 20
	}
	if o.N > math.MaxInt32 {
		return fmt.Errorf("-n %d: at most %d elements", o.N, math.MaxInt32)
	}
	if opt.out.Path != "" && opt.out.Ext() != ".npy" && opt.dim != 2 {
		return fmt.Errorf("-o %s: a 1-D result is written as .npy", opt.out.Path)
	}
	return nil
}

type session struct {
	opt       *options
	o         cli.Options
	w, h      int
	img       []float32
	px        []uint8    // -type uint8: the pixels (img holds them as floats, for the reference)
	got       [2][]uint8 // -type uint8: the two poisoned runs' copies (in gotHost)
	gotHost   *gpu.Host
	want      []float64
	tol       float64
	host      *gpu.Host
	din, dout *gpu.Buffer
	h2d       float64
}

func open(opt *options, o cli.Options, dev *gpu.Device) (_ cli.Session, err error) {
	s := &session{opt: opt, o: o, w: opt.width, h: opt.height, img: opt.img, h2d: math.NaN()}
	if opt.dim == 1 {
		s.w, s.h = int(o.N), 1
	}
	defer func() {
		if err != nil {
			s.Free()
		}
	}()
	if s.img == nil {
		s.img = make([]float32, o.N)
		verify.Uniform(s.img, o.Seed)
		if opt.pixelV == vocab.Uint8 { // [-1, 1) onto 0..255
			for i, v := range s.img {
				s.img[i] = float32(math.Floor((float64(v) + 1) * 128))
			}
		}
	}
	if opt.pixelV == vocab.Uint8 { // the pixels as bytes (a 16-bit PNG's values rounded, in place: rounding again changes nothing), and as floats for the reference
		s.px = make([]uint8, len(s.img))
		for i, v := range s.img {
			s.px[i] = verify.ToUint8(float64(v))
			s.img[i] = float32(s.px[i])
		}
		// the two poisoned runs' copies, pinned as the float output is (in Go's memory the first
		// variant's d2h timed page faults: 13-20 ms against 4 at 8192^2)
		n := int64(len(s.px))
		if s.gotHost, err = gpu.AllocHost((2*n+3)/4, dev != nil); err != nil {
			return nil, err
		}
		b := s.gotHost.Bytes()
		s.got = [2][]uint8{b[:n:n], b[n : 2*n : 2*n]}
	}
	s.want = verify.Convolve(s.img, s.w, s.h, opt.mask, opt.border)
	maxAbs := 0.0
	for _, x := range s.img {
		if v := math.Abs(float64(x)); v > maxAbs && !math.IsInf(v, 0) {
			maxAbs = v
		}
	}
	s.tol = verify.ConvTolerance(opt.mask, maxAbs)
	if s.host, err = gpu.AllocHost(o.N, dev != nil); err != nil {
		return nil, err
	}
	if dev == nil {
		return s, nil
	}
	size := int64(4)
	if s.px != nil {
		size = 1
	}
	for _, b := range []**gpu.Buffer{&s.din, &s.dout} {
		if *b, err = gpu.Alloc(size*o.N, false); err != nil {
			return nil, err
		}
	}
	start := time.Now()
	up := func() error { return s.din.Upload(s.img) }
	if s.px != nil {
		up = func() error { return s.din.UploadBytes(s.px) }
	}
	err = up()
	s.h2d = float64(time.Since(start).Nanoseconds()) / 1e6
	return s, err
}

func (s *session) H2DMs() float64 { return s.h2d }

func (s *session) Free() {
	s.host.Free()
	s.gotHost.Free()
	for _, b := range []*gpu.Buffer{s.din, s.dout} {
		b.Free()
	}
}

// checkedU8 checks an 8-bit result (and that the two poisoned runs agree), then writes it as checked
// does; truncating: the library row (NPP, whose integer division may round down).
func (s *session) checkedU8(row report.Row, got, again []uint8, truncating bool) (report.Row, error) {
	var maxErr float64
	var bad, truncated int
	var first string
	if truncating {
		maxErr, bad, truncated, first = verify.ConvCheckU8Truncating(got, s.want, s.tol)
	} else {
		maxErr, bad, first = verify.ConvCheckU8(got, s.want, s.tol)
	}
	if again != nil { // an unwritten pixel holds the two poisons, and so differs
		for i := range got {
			if got[i] != again[i] {
				bad++
				if first == "" {
					first = fmt.Sprintf("pixel %d: unwritten (or different in two runs: %d, %d)", i, got[i], again[i])
				}
			}
		}
	}
	out := make([]float32, len(got))
	for i, v := range got {
		out[i] = float32(v)
	}
	row, err := s.report(row, out, maxErr, bad, first)
	row.Tolerance = 1 // a pixel off the rounded reference by one, and only at a tie (verify.ConvCheckU8)
	if truncated > 0 {
		row.Note = strings.TrimSpace(fmt.Sprintf("%s NPP truncates its integer division: %d pixels one below the rounded reference", row.Note, truncated))
	}
	return row, err
}

// checked fills the row's check and writes the first passing result to -o.
func (s *session) checked(row report.Row, out []float32) (report.Row, error) {
	maxErr, bad, first := verify.ConvCheck(out, s.want, s.tol)
	return s.report(row, out, maxErr, bad, first)
}

func (s *session) report(row report.Row, out []float32, maxErr float64, bad int, first string) (report.Row, error) {
	row.Error, row.Tolerance, row.Pass, row.Note = report.Num(maxErr), report.Num(s.tol), bad == 0, first
	return row, s.opt.out.Write(row, func(temp func(string) string) error {
		path := temp(s.opt.out.Path)
		planes := [][]float32{append([]float32(nil), out...)}
		h := s.h
		if s.opt.planes == 3 { // each channel's rows out of the stack
			h = s.opt.planeH
			planes = verify.UnstackPlanes(out, s.w, h, 3, s.opt.stride)
		}
		if s.opt.out.Ext() == ".npy" {
			shape := []int{h, s.w}
			switch {
			case s.opt.dim == 1:
				shape = []int{s.w}
			case len(planes) == 3:
				shape = []int{3, h, s.w}
			}
			var all []float32
			for _, p := range planes {
				all = append(all, p...)
			}
			if s.px != nil { // 8-bit pixels out as uint8
				raw := make([]byte, len(all))
				for i, v := range all {
					raw[i] = byte(v)
				}
				return data.Write(path, data.Descr(vocab.Uint8), shape, raw)
			}
			return data.WriteFloat32Array(path, shape, all)
		}
		img := &data.Image{Width: s.w, Height: h, Channels: len(planes), Planes: planes}
		negative := false
		for _, w := range s.opt.mask.Weights {
			negative = negative || w < 0
		}
		if negative {
			for _, p := range img.Planes {
				for i, v := range p {
					p[i] = float32(math.Abs(float64(v)))
				}
			}
		}
		return data.WriteImage(path, img)
	})
}

func (s *session) RunDevice(plan gpu.Plan, _ *gpu.Buffer, timer *gpu.Timer) (report.Row, error) {
	pl := plan.(*gpu.KonvolucijaPlan)
	var row report.Row
	if s.px != nil { // 8 bits: every byte is a legal pixel, so two runs under two poisons
		run := func() error { return gpu.RunKonvolucija(pl, s.din, s.dout) }
		err := cli.RunPoisoned(&row, timer, "konvolucija "+pl.Variant.Name, s.dout.Fill, run,
			func(k int) error { return s.dout.DownloadBytes(s.got[k]) })
		if err != nil {
			return row, err
		}
		if row, err = s.checkedU8(row, s.got[0], s.got[1], pl.Variant.Library); err != nil {
			return row, err
		}
		return row, cli.TimeKernel(&row, timer, s.o.Reps, run)
	}
	run := func() error { return gpu.RunKonvolucija(pl, s.din, s.dout) }
	if err := s.dout.Fill(0xFF); err != nil { // a NaN no kernel writes: an unwritten pixel fails
		return row, err
	}
	if err := cli.LaunchOnce("konvolucija "+pl.Variant.Name, run); err != nil {
		return row, err
	}
	out := s.host.Floats
	d2h, err := cli.TimeCopy(timer, func() error { return s.dout.Download(out) })
	if err != nil {
		return row, err
	}
	row.D2HMs = report.Num(d2h)
	if row, err = s.checked(row, out); err != nil {
		return row, err
	}
	return row, cli.TimeKernel(&row, timer, s.o.Reps, run)
}

func (s *session) RunHost(string) (report.Row, error) {
	out := s.host.Floats
	if s.px != nil { // 8 bits: float32 sums, rounded and clamped as the device does
		ms := cli.TimeHost(s.o.Reps, func() {
			verify.ConvolveCPU(s.img, s.w, s.h, s.opt.mask, s.opt.border, out)
			for i, v := range out {
				s.got[0][i] = verify.ToUint8(float64(v))
			}
		})
		row, err := s.checkedU8(report.Row{}, s.got[0], nil, false)
		cli.HostTimes(&row, ms)
		row.Bytes = report.Num(2 * float64(s.o.N))
		return row, err
	}
	ms := cli.TimeHost(s.o.Reps, func() { verify.ConvolveCPU(s.img, s.w, s.h, s.opt.mask, s.opt.border, out) })
	row, err := s.checked(report.Row{}, out)
	cli.HostTimes(&row, ms)
	row.Bytes = report.Num(8 * float64(s.o.N))
	return row, err
}
