// Command razdalja computes the Euclidean distance sqrt(sum (a_i - b_i)^2) of two random float32
// vectors (random, or from .npy files) with every reduction the lectures teach, verifies each against a float64 reference
// within a derived bound, and times it beside CUB and the device's copy bandwidth.
package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"time"

	"tecaj/internal/cli"
	"tecaj/internal/gpu"
	"tecaj/internal/multi"
	"tecaj/internal/report"
	"tecaj/internal/verify"
)

// options are razdalja's own flags.
type options struct{ files cli.VectorFiles }

func main() { os.Exit(cli.Main(command())) }

func command() cli.Command {
	opt := &options{}
	return cli.Command{
		Program:   gpu.Razdalja,
		About:     "distance sqrt(sum (a_i-b_i)^2) of two float32 vectors (random, or -a/-b .npy files), by every reduction of the lectures, verified and timed",
		DefaultN:  1 << 20,
		Default:   "best",
		Baseline:  "g",
		ErrorKind: "rel. error",
		Scalar:    true,
		Multi:     true,
		HostVariants: []cli.HostVariant{
			{Name: "cpu", Summary: "host: float64 differences, squares and sums (as best), every core (goroutines); no GPU needed"},
		},
		// what each step of the lecture should change (docs/razdalja.md): -counters checks them
		Claims: []cli.Claim{
			{Variant: "ls", Than: "g", Counter: "dram", Fewer: true},
			{Variant: "ls3", Than: "ls2", Counter: "divergent", Fewer: true},
			{Variant: "ls4", Than: "ls3", Counter: "inst", Fewer: true},
			{Variant: "best", Counter: "dram"},
		},
		Benchmarks:  []string{"-n 1000000 -reps 30", "-n 2^28 -reps 30"},
		DeviceBytes: func(n int64) float64 { return 12*float64(n) + 64<<20 }, // a, b, g's n squares, scratch
		HostBytes: func(n int64, device bool) float64 { // a and b; with a device, g's n squares and pinned copies
			if device {
				return 16*float64(n) + 64<<20
			}
			return 8*float64(n) + 64<<20
		},
		Flags: opt.files.Flags,
		Check: func(o *cli.Options) error { return opt.files.Load("razdalja", o) },
		Plan:  func(dev *gpu.Device, r gpu.Request) (gpu.Plan, error) { return dev.PlanRazdalja(r) },
		Open:  func(o cli.Options, dev *gpu.Device) (cli.Session, error) { return open(opt, o, dev) },
	}
}

type session struct {
	o        cli.Options
	in       *cli.Inputs
	out      *gpu.Buffer // the largest output: g's n squares (two words at least: best's float64)
	hostOut  *gpu.Host
	distance float64 // the float64 reference
}

func open(opt *options, o cli.Options, dev *gpu.Device) (cli.Session, error) {
	in, err := cli.OpenInputs(o.N, o.Seed, &opt.files, dev)
	if err != nil {
		return nil, err
	}
	s := &session{o: o, in: in}
	s.distance = math.Sqrt(verify.SquaredDistance(in.A.Floats, in.B.Floats))
	if dev != nil {
		words := o.N // g's n squares, and at least best's one float64 (two words)
		if words < 2 {
			words = 2
		}
		if s.out, err = gpu.Alloc(4*words, false); err == nil {
			s.hostOut, err = gpu.AllocHost(words, true)
		}
		if err != nil {
			s.Free()
			return nil, err
		}
	}
	return s, nil
}

func (s *session) H2DMs() float64 { return s.in.H2DMs }

func (s *session) Free() {
	s.in.Free()
	s.out.Free()
	s.hostOut.Free()
}

// RunDevice: poison the output, run once, copy back, let the host finish, verify; then time reps.
func (s *session) RunDevice(plan gpu.Plan, scratch *gpu.Buffer, timer *gpu.Timer) (report.Row, error) {
	pl := plan.(*gpu.RazdaljaPlan)
	var row report.Row
	if err := s.out.Fill(0xFF); err != nil {
		return row, err
	}
	run := func() error { return gpu.RunRazdalja(pl, s.in.DA, s.in.DB, s.out, scratch, nil) }
	if err := cli.LaunchOnce("razdalja "+pl.Variant.Name, run); err != nil {
		return row, err
	}
	host := s.hostOut.Floats[:pl.OutCount]
	d2h, err := cli.TimeCopy(timer, func() error { return s.out.Download(host) })
	if err != nil {
		return row, err
	}
	unwritten := 0
	wide := pl.Output == gpu.RazdaljaScalar64 // one float64 in two words: unwritten only where both hold the poison
	for i, f := range host {
		if verify.IsPoison(f) && (!wide || verify.IsPoison(host[i^1])) {
			unwritten++
		}
	}
	start := time.Now()
	distance := math.Sqrt(gpu.FinishRazdalja(pl, host))
	row.HostMs = report.Num(float64(time.Since(start).Nanoseconds()) / 1e6)
	row.D2HMs = report.Num(d2h)
	row.Result = report.Num(distance)
	row.Error = report.Num(verify.RelativeError(distance, s.distance))
	row.Tolerance = report.Num(gpu.RazdaljaTolerance(pl))
	row.Pass = unwritten == 0 && verify.Within(distance, s.distance, float64(row.Tolerance))
	if unwritten > 0 {
		row.Note = fmt.Sprintf("%d of %d outputs unwritten", unwritten, len(host))
	}
	return row, cli.TimeKernel(&row, timer, s.o.Reps, run)
}

func (s *session) RunHost(string) (report.Row, error) {
	var sum float64
	ms := cli.TimeHost(s.o.Reps, func() { sum = verify.SquaredDistanceCPU(s.in.A.Floats, s.in.B.Floats) })
	distance := math.Sqrt(sum)
	tol := verify.DistanceCPUTolerance(s.o.N)
	row := report.Row{
		Bytes: report.Num(8 * float64(s.o.N)), Result: report.Num(distance),
		Error: report.Num(verify.RelativeError(distance, s.distance)), Tolerance: report.Num(tol),
		Pass: verify.Within(distance, s.distance, tol),
	}
	cli.HostTimes(&row, ms)
	return row, nil
}

// RunMulti runs best over the GPUs of m: each its contiguous slice's sum of squares (a float64),
// all-gathered through NCCL and added in GPU order in float64 by every rank on its device
// (gpu.CombineRazdaljaOn): the same bits every run for a given number of GPUs.
func (s *session) RunMulti(m *cli.Multi) (report.Row, error) {
	best, _ := gpu.Razdalja.Variant("best")
	// the first slice's plan (the longest): its bound, and the fold and decoding of float64 sums
	deepest, err := m.Local[0].Dev.PlanRazdalja(gpu.Request{Variant: best, N: multi.Split(s.o.N, m.Ranks)[0].Len()})
	if err != nil {
		return report.Row{}, err
	}
	answer, _, times, d2h, err := m.ReduceSlices(s.o.N, cli.SliceReduction{
		OutBytes: 8,
		Fill:     0, // (an empty slice's sum is +0)
		Prepare: func(r *cli.Rank, sl multi.Slice) (run cli.SliceRun, err error) {
			var a, b, scratch *gpu.Buffer
			run.Free = func() { gpu.FreeEach(a, b, scratch) }
			plan, err := r.Dev.PlanRazdalja(gpu.Request{Variant: best, N: sl.Len()})
			if err != nil {
				return run, err
			}
			if plan.Output != gpu.RazdaljaScalar64 {
				return run, fmt.Errorf("best writes a float64 sum to combine; its plan says %v", plan.Output)
			}
			if scratch, err = plan.AllocScratch(); err != nil {
				return run, err
			}
			if err = gpu.AllocEach([]**gpu.Buffer{&a, &b}, 4*sl.Len(), 4*sl.Len()); err != nil {
				return run, err
			}
			run.Run = func(out *gpu.Buffer) error { return gpu.RunRazdalja(plan, a, b, out, scratch, r.Stream) }
			return run, cli.FirstError(a.Upload(s.in.A.Floats[sl.Lo:sl.Hi]), b.Upload(s.in.B.Floats[sl.Lo:sl.Hi]))
		},
		Fold: func(r *cli.Rank, all, _, answer *gpu.Buffer, _ int) error {
			return gpu.CombineRazdaljaOn(deepest, all, m.Ranks, answer, r.Stream) // (every GPU's: an empty slice adds +0)
		},
	})
	if err != nil {
		return report.Row{}, err
	}
	sum := gpu.FinishRazdalja(deepest, words(answer))
	distance := math.Sqrt(sum)
	var row report.Row
	row.Result = report.Num(distance)
	row.Error = report.Num(verify.RelativeError(distance, s.distance))
	// the deepest slice's bound, and the float64 additions of the combine (half of it: the root)
	row.Tolerance = report.Num(gpu.RazdaljaTolerance(deepest) + float64(m.Ranks)*0x1p-53)
	row.Pass = verify.Within(distance, s.distance, float64(row.Tolerance))
	row.Bytes, row.Items = report.Num(8*float64(s.o.N)), s.o.N
	return m.Row(row, times, d2h), nil
}

// words is a result's bytes as the float32 words FinishRazdalja reads.
func words(b []byte) []float32 {
	w := make([]float32, len(b)/4)
	for i := range w {
		w[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return w
}
