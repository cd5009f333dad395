// Command razdalja computes the Euclidean distance sqrt(sum (a_i - b_i)^2) of two random float32
// vectors with every reduction the lectures teach, verifies each against a float64 reference
// within a derived bound, and times it beside CUB and the device's copy bandwidth.
package main

import (
	"fmt"
	"math"
	"os"
	"time"

	"tecaj/internal/cli"
	"tecaj/internal/gpu"
	"tecaj/internal/report"
	"tecaj/internal/verify"
)

func main() {
	os.Exit(cli.Main(cli.Command{
		Name:      "razdalja",
		Kernels:   gpu.Razdalja,
		About:     "distance sqrt(sum (a_i-b_i)^2) of two random float32 vectors, by every reduction of the lectures, verified and timed",
		DefaultN:  1 << 20,
		Default:   "best",
		Baseline:  "g",
		ErrorKind: "rel. error",
		HostVariants: []cli.HostVariant{
			{Name: "cpu", Summary: "host: float32 squares, float64 sums, every core (goroutines); no GPU needed"},
		},
		DeviceBytes: func(n int64) int64 { return 12*n + 64<<20 }, // a, b, g's n squares, scratch
		Open:        open,
	}))
}

type session struct {
	o        cli.Options
	in       *cli.Inputs
	out      *gpu.Buffer // the largest output: g's n squares
	hostOut  *gpu.Host
	distance float64 // the float64 reference
}

func open(o cli.Options, dev *gpu.Device) (cli.Session, error) {
	in, err := cli.OpenInputs(o.N, o.Seed, dev)
	if err != nil {
		return nil, err
	}
	s := &session{o: o, in: in}
	s.distance = math.Sqrt(verify.SquaredDistance(in.A.Floats, in.B.Floats))
	if dev != nil {
		if s.out, err = gpu.Alloc(4*o.N, false); err == nil {
			s.hostOut, err = gpu.AllocHost(o.N, true)
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
func (s *session) RunDevice(pl *gpu.Plan, scratch *gpu.Buffer, timer *gpu.Timer) (report.Row, error) {
	var row report.Row
	if err := s.out.Fill(0xFF); err != nil {
		return row, err
	}
	run := func() error { return gpu.RunRazdalja(pl, s.in.DA, s.in.DB, s.out, scratch) }
	if err := cli.LaunchOnce("razdalja "+pl.Variant.Name, run); err != nil {
		return row, err
	}
	host := s.hostOut.Floats[:pl.OutCount]
	d2h, err := timer.Milliseconds(func() error { return s.out.Download(host) })
	if err != nil {
		return row, err
	}
	unwritten := 0
	for _, f := range host {
		if verify.IsPoison(f) {
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
