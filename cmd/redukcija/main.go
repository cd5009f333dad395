// Command redukcija reduces a vector (sum, min, max, mean, norm, dot, argmin, argmax of
// float32, float64 or int32 elements, random or from .npy files) with every reduction the
// course teaches: the PyCUDA lecture's race, atomics and shared-memory trees, Harris's seven
// steps and warp shuffles, one variant beyond them and CUB; verifies each against a compensated
// float64 (or exact integer) reference within a derived bound, and times it.
package main

import (
	"encoding/binary"
	"flag"
	"fmt"
	"math"
	"os"
	"time"

	"tecaj/internal/cli"
	"tecaj/internal/data"
	"tecaj/internal/gpu"
	"tecaj/internal/multi"
	"tecaj/internal/report"
	"tecaj/internal/verify"
	"tecaj/internal/vocab"
)

// options are redukcija's own flags.
type options struct {
	op, typ string
	fileA   string
	fileB   string
	a, b    []float64   // from the files
	opV     vocab.Op    // -op
	typV    vocab.Dtype // -type
}

func main() { os.Exit(cli.Main(command())) }

func command() cli.Command {
	opt := &options{op: vocab.Sum.String(), typ: vocab.Float32.String()}
	return cli.Command{
		Program: gpu.Redukcija,
		About: "reduction of a vector: -op sum|min|max|mean|norm|dot|argmin|argmax of -type float32|float64|int32 " +
			"(random, or -a/-b .npy files), every reduction of the lectures, verified and timed. min/max/argmin/argmax " +
			"propagate NaN; argmin/argmax give the lowest index among ties and among NaNs, and the value there; int32 sums are exact (int64)",
		DefaultN:  1 << 20,
		Default:   "best",
		Baseline:  "r0",
		ErrorKind: "rel. error",
		Scalar:    true,
		Multi:     true,
		Params:    func() string { return fmt.Sprintf("-op %s -type %s", opt.opV, opt.typV) },
		HostVariants: []cli.HostVariant{
			{Name: "cpu", Summary: "host: every core (goroutines), float64 (int64) chunk sums combined in order; no GPU needed"},
		},
		// what each step of the lecture should change (docs/redukcija.md): -counters checks them
		Claims: []cli.Claim{
			{Variant: "r1", Than: "r0", Counter: "divergent", Fewer: true},
			{Variant: "r1", Than: "r0", Counter: "inst", Fewer: true},
			{Variant: "r2", Than: "r1", Counter: "conflicts", Fewer: true},
			{Variant: "r3", Than: "r2", Counter: "warps", Factor: 0.5},
			{Variant: "r4", Than: "r3", Counter: "inst", Fewer: true},
			{Variant: "r5", Than: "r4", Counter: "inst", Fewer: true},
			{Variant: "r6", Than: "r5", Counter: "warps", Fewer: true},
			{Variant: "r7", Than: "r6", Counter: "inst", Fewer: true},
			{Variant: "best", Counter: "dram"},
		},
		Benchmarks: []string{"-n 2^28 -op sum -reps 30", "-n 1000000 -op sum -reps 50", "-n 2^28 -op sum -type int32 -reps 30",
			"-n 2^28 -op argmin -reps 30", "-n 1000000 -op argmin -reps 50", "-n 2^28 -op dot -reps 30",
			"-n 2^28 -op norm -reps 30", "-n 1000000 -op max -reps 50"},
		// a and b (8-byte elements at most), partials and scratch
		DeviceBytes: func(n int64) float64 { return 16*float64(n) + 64<<20 },
		HostBytes: func(n int64, device bool) float64 { // a and b as float64; with a device, both in the element type
			if device {
				return (16+2*float64(opt.typV.Bytes()))*float64(n) + 64<<20
			}
			return 16*float64(n) + 64<<20
		},
		Flags: opt.flags,
		Check: opt.check,
		Plan: func(dev *gpu.Device, r gpu.Request) (gpu.Plan, error) {
			return dev.PlanRedukcija(gpu.RedukcijaRequest{Request: r, Op: opt.opV, Type: opt.typV})
		},
		Open: func(o cli.Options, dev *gpu.Device) (cli.Session, error) { return open(opt, o, dev) },
	}
}

func (opt *options) flags(fs *flag.FlagSet) {
	fs.StringVar(&opt.op, "op", opt.op, "operator: "+vocab.Names(gpu.ReduceOps)+" (argmin/argmax: best, cub, cpu)")
	fs.StringVar(&opt.typ, "type", opt.typ, "element type: "+vocab.Names(gpu.ReduceTypes)+" (with -a: the file's, unless given)")
	fs.StringVar(&opt.fileA, "a", "", "the vector from a 1-D .npy file (float32, float64 or int32); sets -n")
	fs.StringVar(&opt.fileB, "b", "", "dot's second vector from a .npy file of -a's length and dtype")
}

func (opt *options) check(o *cli.Options) error {
	var err error
	if opt.opV, err = vocab.Parse("op", opt.op, gpu.ReduceOps); err != nil {
		return err
	}
	if opt.typV, err = vocab.Parse("type", opt.typ, gpu.ReduceTypes); err != nil {
		return err
	}
	if opt.fileB != "" && opt.fileA == "" {
		return fmt.Errorf("-b needs -a")
	}
	if opt.fileB != "" && opt.opV != vocab.Dot {
		return fmt.Errorf("-b %s: -b is dot's second vector; -op %s reads -a alone", opt.fileB, opt.opV)
	}
	if opt.fileA == "" {
		return nil
	}
	a, err := data.LoadVector(opt.fileA, gpu.ReduceTypes...)
	if err != nil {
		return err
	}
	typ, _ := a.Type()
	if o.Set["type"] && typ != opt.typV {
		return fmt.Errorf("-type %s does not match %s, which holds %s", opt.typV, opt.fileA, typ)
	}
	opt.typV = typ
	opt.a, _ = a.Float64s()
	if opt.fileB != "" {
		b, err := data.LoadVector(opt.fileB, gpu.ReduceTypes...)
		if err != nil {
			return err
		}
		typB, _ := b.Type()
		if opt.b, _ = b.Float64s(); typB != typ || len(opt.b) != len(opt.a) {
			return fmt.Errorf("%s holds %d %s and %s %d %s: dot needs the same length and type", opt.fileA, len(opt.a), typ, opt.fileB, len(opt.b), typB)
		}
	} else if opt.opV == vocab.Dot {
		return fmt.Errorf("-op dot with -a needs -b")
	}
	if o.Set["n"] && o.N != int64(len(opt.a)) {
		return fmt.Errorf("-n %d does not match the %d elements of %s (leave -n out with -a)", o.N, len(opt.a), opt.fileA)
	}
	o.N = int64(len(opt.a))
	return nil
}

// raw is the values in the element type's bytes, as the device reads them.
func raw(values []float64, typ vocab.Dtype) []byte {
	buf := make([]byte, typ.Bytes()*len(values))
	for i, x := range values {
		switch typ {
		case vocab.Float32:
			binary.LittleEndian.PutUint32(buf[4*i:], math.Float32bits(float32(x)))
		case vocab.Float64:
			binary.LittleEndian.PutUint64(buf[8*i:], math.Float64bits(x))
		default:
			binary.LittleEndian.PutUint32(buf[4*i:], uint32(int32(x)))
		}
	}
	return buf
}

type session struct {
	opt    *options
	o      cli.Options
	a, b   []float64
	ref    verify.ReductionReference
	da, db *gpu.Buffer
	out    *gpu.Buffer
	h2d    float64
}

func open(opt *options, o cli.Options, dev *gpu.Device) (_ cli.Session, err error) {
	s := &session{opt: opt, o: o, a: opt.a, b: opt.b, h2d: math.NaN()}
	defer func() {
		if err != nil {
			s.Free()
		}
	}()
	if s.a == nil {
		s.a, s.b = make([]float64, o.N), make([]float64, o.N)
		verify.ReductionInput(s.a, opt.typV, o.Seed)
		verify.ReductionInput(s.b, opt.typV, o.Seed+1)
	}
	if s.b == nil {
		s.b = s.a
	}
	s.ref = verify.Reference(opt.opV, s.a, s.b)
	if dev == nil {
		return s, nil
	}
	ra, rb := raw(s.a, opt.typV), raw(s.b, opt.typV)
	if s.da, err = gpu.Alloc(int64(len(ra)), false); err != nil {
		return nil, err
	}
	if s.db, err = gpu.Alloc(int64(len(rb)), false); err != nil {
		return nil, err
	}
	if s.out, err = gpu.Alloc(gpu.ReductionOutBytes, false); err != nil {
		return nil, err
	}
	start := time.Now()
	if err = cli.FirstError(s.da.UploadBytes(ra), s.db.UploadBytes(rb)); err != nil {
		return nil, err
	}
	s.h2d = float64(time.Since(start).Nanoseconds()) / 1e6
	return s, nil
}

func (s *session) H2DMs() float64 { return s.h2d }

func (s *session) Free() {
	for _, b := range []*gpu.Buffer{s.da, s.db, s.out} {
		b.Free()
	}
}

// checked checks a result; the row shows the value, and for argmin/argmax also its index.
func (s *session) checked(row report.Row, value float64, exact, index int64, tol float64) report.Row {
	c := verify.CheckReduction(s.opt.opV, s.opt.typV, s.o.N, value, exact, index, s.ref, tol)
	row.Error, row.Tolerance, row.Pass, row.Note = report.Num(c.Error), report.Num(c.Tolerance), c.Pass, c.Note
	row.Result = report.Num(value)
	if s.opt.opV.Arg() {
		row.Index = &index
	}
	return row
}

func (s *session) RunDevice(plan gpu.Plan, scratch *gpu.Buffer, timer *gpu.Timer) (report.Row, error) {
	pl := plan.(*gpu.RedukcijaPlan)
	var row report.Row
	run := func() error { return gpu.RunRedukcija(pl, s.da, s.db, s.out, scratch, nil) }
	// two runs under two poisons (every bit pattern of an integer result is legal)
	var host [2][gpu.ReductionOutBytes]byte
	if err := cli.RunPoisoned(&row, timer, "redukcija "+pl.Variant.Name, s.out.Fill, run,
		func(k int) error { return s.out.DownloadBytes(host[k][:]) }); err != nil {
		return row, err
	}
	r := gpu.FinishRedukcija(pl, host[0][:])
	row = s.checked(row, r.Value, r.Exact, r.Index, gpu.RedukcijaTolerance(pl, s.ref.SumAbs))
	// (atomics' float sums may differ run to run in their last bits; that is not unwritten)
	for _, span := range pl.ResultBytes() {
		if cli.UnwrittenBytes(host[0][span[0]:span[1]], host[1][span[0]:span[1]]) {
			row.Pass, row.Note = false, "the result follows the poison: not written"
		}
	}
	row.CounterExample = pl.Variant.CounterExample
	if row.CounterExample && !row.Pass {
		row.Note = "a data race: concurrent read-modify-writes of one word lose updates"
	}
	return row, cli.TimeKernel(&row, timer, s.o.Reps, run)
}

func (s *session) RunHost(string) (report.Row, error) {
	var sum float64
	var exact, index int64
	ms := cli.TimeHost(s.o.Reps, func() { sum, exact, index = verify.ReduceCPU(s.opt.opV, s.a, s.b) })
	if s.opt.typV == vocab.Int32 && !s.opt.opV.Selects() {
		sum = float64(exact) // int32 sums, norms and dots are int64 sums, wrapping past 2^63 as the devices' do
	}
	value := sum
	switch s.opt.opV {
	case vocab.Mean:
		value = sum / float64(s.o.N)
	case vocab.Norm:
		value = math.Sqrt(sum)
	}
	row := s.checked(report.Row{}, value, exact, index, verify.CPUReductionTolerance(s.o.N, s.ref.SumAbs))
	cli.HostTimes(&row, ms)
	row.Bytes = report.Num(float64(s.opt.typV.Bytes()) * float64(s.o.N))
	return row, nil
}

// RunMulti runs best over the GPUs of m: each its contiguous slice, its result all-gathered
// through NCCL, and every rank folding the results in GPU order on its device
// (gpu.CombineRedukcijaOn, the library's host fold bit for bit): the same bits every run for a
// given number of GPUs; integers, min, max and arg results as one GPU's.
func (s *session) RunMulti(m *cli.Multi) (report.Row, error) {
	best, _ := gpu.Redukcija.Variant("best")
	whole, err := (*gpu.Device)(nil).PlanRedukcija(gpu.RedukcijaRequest{Request: gpu.Request{Variant: best, N: s.o.N},
		Op: s.opt.opV, Type: s.opt.typV})
	if err != nil {
		return report.Row{}, err
	}
	answer, slices, times, d2h, err := m.ReduceSlices(s.o.N, cli.SliceReduction{
		OutBytes: gpu.ReductionOutBytes,
		Fill:     cli.Poisons[0], // (an empty slice's result is never folded: empty slices come last)
		Prepare: func(r *cli.Rank, sl multi.Slice) (run cli.SliceRun, err error) {
			var a, b, scratch *gpu.Buffer
			run.Free = func() {
				if b == a {
					b = nil
				}
				gpu.FreeEach(a, b, scratch)
			}
			req := gpu.RedukcijaRequest{Request: gpu.Request{Variant: best, N: sl.Len()}, Op: s.opt.opV, Type: s.opt.typV}
			plan, err := r.Dev.PlanRedukcija(req)
			if err != nil {
				return run, err
			}
			if scratch, err = plan.AllocScratch(); err != nil {
				return run, err
			}
			ra := raw(s.a[sl.Lo:sl.Hi], s.opt.typV)
			if a, err = gpu.Alloc(int64(len(ra)), false); err != nil {
				return run, err
			}
			b = a
			if s.opt.opV == vocab.Dot {
				if b, err = gpu.Alloc(int64(len(ra)), false); err != nil {
					return run, err
				}
				if err = b.UploadBytes(raw(s.b[sl.Lo:sl.Hi], s.opt.typV)); err != nil {
					return run, err
				}
			}
			run.Run = func(out *gpu.Buffer) error { return gpu.RunRedukcija(plan, a, b, out, scratch, r.Stream) }
			return run, a.UploadBytes(ra)
		},
		Fold: func(r *cli.Rank, all, first, answer *gpu.Buffer, count int) error {
			return gpu.CombineRedukcijaOn(whole, all, first, count, answer, r.Stream)
		},
	})
	if err != nil {
		return report.Row{}, err
	}
	// the bound's depth: the first slice's (the longest), planned for this GPU, and the combine's
	deepest, err := m.Local[0].Dev.PlanRedukcija(gpu.RedukcijaRequest{Request: gpu.Request{Variant: best, N: max64(slices[0].Len(), 1)},
		Op: s.opt.opV, Type: s.opt.typV})
	if err != nil {
		return report.Row{}, err
	}
	res := gpu.FinishRedukcija(whole, answer)
	tol := gpu.RedukcijaTolerance(whole.WithDepth(deepest.Depth+int64(m.Ranks)), s.ref.SumAbs)
	row := s.checked(report.Row{}, res.Value, res.Exact, res.Index, tol)
	row.Bytes, row.Items = report.Num(whole.BytesMoved), s.o.N
	return m.Row(row, times, d2h), nil
}

func max64(a, b int64) int64 {
	if a > b {
		return a
	}
	return b
}
