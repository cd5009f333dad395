// Command razlika computes c = a - b on two float32 vectors (random, or from .npy files) with each step of the
// lecture (one block, bounds check, many blocks, grid-stride loop, unified memory) and a
// vectorised variant, verifies every element exactly, and times each beside the device's copy
// bandwidth.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"tecaj/internal/cli"
	"tecaj/internal/data"
	"tecaj/internal/gpu"
	"tecaj/internal/report"
	"tecaj/internal/verify"
)

// options are razlika's own flags.
type options struct {
	files cli.VectorFiles
	out   cli.Writer
	named bool // -variant names its variants (not all): 1 and 3 run past their domain as the lecture's failure
}

func main() { os.Exit(cli.Main(command())) }

func command() cli.Command {
	opt := &options{}
	return cli.Command{
		Program:   gpu.Razlika,
		About:     "vector difference c = a - b of two float32 vectors (random, or -a/-b .npy files), each lecture step, verified exactly and timed",
		DefaultN:  1 << 20,
		Default:   "best",
		Baseline:  "1",
		ErrorKind: "max abs err",
		HostVariants: []cli.HostVariant{
			{Name: "cpu", Summary: "host: every core (goroutines); no GPU needed"},
		},
		// what each step of the lecture should change (docs/razlika.md): -counters checks them
		Claims: []cli.Claim{
			{Variant: "4", Than: "3", Counter: "warps", Fewer: true},
			{Variant: "best", Than: "4", Counter: "inst", Fewer: true},
			{Variant: "best", Counter: "dram"},
		},
		Benchmarks: []string{"-n 1000000 -reps 30", "-n 2^28 -reps 30"},
		// a, b, c on the device, and e4's three managed vectors beside them
		DeviceBytes: func(n int64) float64 { return 24*float64(n) + 64<<20 },
		HostBytes: func(n int64, device bool) float64 { // a, b and c; with a device, unified memory's pages too
			if device {
				return 16*float64(n) + 64<<20
			}
			return 12*float64(n) + 64<<20
		},
		Flags: func(fs *flag.FlagSet) {
			opt.files.Flags(fs)
			opt.out.Flags(fs, "c (.npy)", ".npy")
		},
		Check: func(o *cli.Options) error {
			opt.named = o.Named()
			return cli.FirstError(opt.out.Check(), opt.files.Load("razlika", o))
		},
		Plan:   func(dev *gpu.Device, r gpu.Request) (gpu.Plan, error) { return dev.PlanRazlika(r, opt.named) },
		Output: &opt.out,
		Open:   func(o cli.Options, dev *gpu.Device) (cli.Session, error) { return open(opt, o, dev) },
	}
}

type session struct {
	opt *options
	o   cli.Options
	in  *cli.Inputs
	dc  *gpu.Buffer
	c   *gpu.Host
}

func open(opt *options, o cli.Options, dev *gpu.Device) (cli.Session, error) {
	in, err := cli.OpenInputs(o.N, o.Seed, &opt.files, dev)
	if err != nil {
		return nil, err
	}
	s := &session{opt: opt, o: o, in: in}
	if s.c, err = gpu.AllocHost(o.N, dev != nil); err == nil && dev != nil {
		s.dc, err = gpu.Alloc(4*o.N, false)
	}
	if err != nil {
		s.Free()
		return nil, err
	}
	return s, nil
}

func (s *session) H2DMs() float64 { return s.in.H2DMs }

func (s *session) Free() {
	s.in.Free()
	s.dc.Free()
	s.c.Free()
}

// verified fills the row's check from c (n elements, and a lesson's guard words past them): exact
// agreement with the reference, every element written, none past n; the first c that passes goes to -o.
func (s *session) verified(row report.Row, c []float32) (report.Row, error) {
	check := verify.CheckDifference(s.in.A.Floats, s.in.B.Floats, c)
	c = c[:len(s.in.A.Floats)]
	past := check.Past
	row.Error = report.Num(check.MaxAbs)
	row.Tolerance = 0
	row.Pass = check.Mismatches == 0 && past == 0
	switch {
	case row.CounterExample:
		row.Note = fmt.Sprintf("the lecture's failure: %d elements written past n (guard words overwritten), %d of %d left unwritten",
			past, check.Unwritten, len(c))
	case check.Unwritten > 0:
		row.Note = fmt.Sprintf("%d of %d elements unwritten (first at %d)", check.Unwritten, len(c), check.First)
	case check.Mismatches > 0:
		row.Note = fmt.Sprintf("%d elements differ (first at %d)", check.Mismatches, check.First)
	}
	return row, s.opt.out.Write(row, func(temp func(string) string) error { return data.WriteFloat32s(temp(s.opt.out.Path), c) })
}

func (s *session) RunDevice(plan gpu.Plan, _ *gpu.Buffer, timer *gpu.Timer) (report.Row, error) {
	pl := plan.(*gpu.RazlikaPlan)
	if pl.Variant.Managed {
		return s.runManaged(pl, timer)
	}
	row := report.Row{CounterExample: pl.Lesson}
	a, b, c := s.in.DA, s.in.DB, s.dc
	out := s.c.Floats
	if pl.Reach > s.o.N { // a lesson whose launch reads and writes past n: padded copies, c's pad guard words
		var err error
		if a, b, c, err = gpu.LessonBuffers(pl, s.in.A.Floats, s.in.B.Floats, func(k int, pad []float32) {
			verify.Uniform(pad, s.o.Seed+int64(2+k))
		}); err != nil {
			return row, err
		}
		defer gpu.FreeEach(a, b, c)
		out = make([]float32, pl.Reach) // (reach is at most a block: tiny)
	}
	run := func() error { return gpu.RunRazlika(pl, a, b, c) }
	if err := c.Fill(0xFF); err != nil {
		return row, err
	}
	if err := cli.LaunchOnce("razlika "+pl.Variant.Name, run); err != nil {
		return row, err
	}
	d2h, err := cli.TimeCopy(timer, func() error { return c.Download(out) })
	if err != nil {
		return row, err
	}
	if row, err = s.verified(row, out); err != nil {
		return row, err
	}
	row.D2HMs = report.Num(d2h)
	return row, cli.TimeKernel(&row, timer, s.o.Reps, run)
}

// runManaged is e4's lesson: the host writes the inputs straight into unified memory, the first
// launch pulls the pages to the device, the host's read of c pulls them back; no explicit copies.
func (s *session) runManaged(pl *gpu.RazlikaPlan, timer *gpu.Timer) (report.Row, error) {
	var row report.Row
	var bufs [3]*gpu.Buffer
	for i := range bufs {
		b, err := gpu.Alloc(4*s.o.N, true)
		if err != nil {
			return row, err
		}
		defer b.Free()
		bufs[i] = b
	}
	a, b, c := bufs[0], bufs[1], bufs[2]
	copy(a.Floats(), s.in.A.Floats)
	copy(b.Floats(), s.in.B.Floats)
	for i := range c.Floats() {
		c.Floats()[i] = verify.PoisonFloat
	}
	run := func() error { return gpu.RunRazlika(pl, a, b, c) }
	first, err := timer.Milliseconds(run)
	if err != nil {
		return row, err
	}
	start := time.Now()
	copy(s.c.Floats, c.Floats()) // the host's first touch migrates c back
	row.D2HMs = report.Num(float64(time.Since(start).Nanoseconds()) / 1e6)
	if row, err = s.verified(row, s.c.Floats); err != nil {
		return row, err
	}
	if err := cli.TimeKernel(&row, timer, s.o.Reps, run); err != nil {
		return row, err
	}
	if row.Note == "" {
		row.Note = fmt.Sprintf("first launch, migrating the pages in: %.1f us", first*1000)
	}
	return row, nil
}

func (s *session) RunHost(string) (report.Row, error) {
	ms := cli.TimeHost(s.o.Reps, func() { verify.DifferenceCPU(s.in.A.Floats, s.in.B.Floats, s.c.Floats) })
	row, err := s.verified(report.Row{}, s.c.Floats)
	cli.HostTimes(&row, ms)
	row.Bytes = report.Num(12 * float64(s.o.N))
	return row, err
}
