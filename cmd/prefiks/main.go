// Command prefiks computes prefix sums (inclusive or exclusive scans of sum, max or min over
// int32 or float32 elements, plain or segmented by head flags; random or from .npy files) with
// every scan of the lecture from one warp to the whole grid, the cost-optimal scan, the
// segmented scan and CUB; verifies each position against a sequential reference and times it.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"tecaj/internal/cli"
	"tecaj/internal/data"
	"tecaj/internal/gpu"
	"tecaj/internal/multi"
	"tecaj/internal/report"
	"tecaj/internal/verify"
	"tecaj/internal/vocab"
)

// options are prefiks's own flags.
type options struct {
	op, typ   string
	exclusive bool
	seglen    string // "", N or "mixed"
	flagsFile string
	fileA     string
	in        []uint32 // from -a
	heads     []byte   // from -flags
	out       cli.Writer
	opV       vocab.Op    // -op
	typV      vocab.Dtype // -type
}

func (opt *options) segmented() bool { return opt.seglen != "" || opt.flagsFile != "" }

func main() { os.Exit(cli.Main(command())) }

func command() cli.Command {
	opt := &options{op: vocab.Sum.String(), typ: vocab.Float32.String()}
	return cli.Command{
		Program: gpu.Prefiks,
		About: "prefix sums: inclusive (or -exclusive) scans of -op sum|max|min over -type float32|int32 (int32 sums " +
			"wrap as two's complement), plain or segmented (-seglen, -flags), random or -a FILE.npy, every scan of the " +
			"lecture, verified position by position and timed",
		DefaultN:  1 << 20,
		Default:   "best",
		Baseline:  "grid",
		ErrorKind: "max rel. error",
		Multi:     true,
		Params: func() string {
			p := fmt.Sprintf("-op %s -type %s", opt.opV, opt.typV)
			if opt.exclusive {
				p += " -exclusive"
			}
			if opt.seglen != "" {
				p += " -seglen " + opt.seglen
			} else if opt.flagsFile != "" {
				p += " -flags " + filepath.Base(opt.flagsFile)
			}
			return p
		},
		HostVariants: []cli.HostVariant{
			{Name: "cpu", Summary: "host: chunks scanned on every core (goroutines), then the carries; no GPU needed"},
		},
		// what each step of the lecture should change (docs/prefiks.md): -counters checks them
		Claims: []cli.Claim{
			{Variant: "block", Than: "hs", Counter: "inst", Fewer: true},
			{Variant: "co", Than: "grid", Counter: "warps", Fewer: true},
			{Variant: "best", Than: "grid", Counter: "dram", Fewer: true},
			{Variant: "best", Counter: "dram"},
		},
		Benchmarks: []string{"-n 2^28 -reps 20", "-n 1000000 -reps 50", "-n 2^28 -type int32 -reps 20",
			"-n 2^28 -type int32 -seglen mixed -reps 20", "-n 2^28 -op max -reps 20"},
		// in, out, flags, the totals' levels (or CUB's keys and temp), pairs for seg
		DeviceBytes: func(n int64) float64 { return 4*float64(n) + 4*float64(n) + float64(n) + 12*float64(n) + 64<<20 },
		HostBytes:   func(n int64, _ bool) float64 { return 40*float64(n) + 64<<20 }, // inputs, outputs, the reference
		Flags:       opt.flags,
		Check:       opt.check,
		Plan: func(dev *gpu.Device, r gpu.Request) (gpu.Plan, error) {
			return dev.PlanPrefiks(gpu.PrefiksRequest{Request: r, Op: opt.opV, Type: opt.typV, Exclusive: opt.exclusive,
				Segmented: opt.segmented()})
		},
		Output: &opt.out,
		Open:   func(o cli.Options, dev *gpu.Device) (cli.Session, error) { return open(opt, o, dev) },
	}
}

func (opt *options) flags(fs *flag.FlagSet) {
	fs.StringVar(&opt.op, "op", opt.op, "operator: sum, max, min")
	fs.StringVar(&opt.typ, "type", opt.typ, "element type: float32, int32 (with -a: the file's, unless given)")
	fs.BoolVar(&opt.exclusive, "exclusive", false, "exclusive scan (out[i] combines the elements before i; a segment's head gets the identity)")
	fs.StringVar(&opt.seglen, "seglen", "", "segmented: every segment N long, or mixed (lengths 1 to 10^6, half of them 1)")
	fs.StringVar(&opt.flagsFile, "flags", "", "segmented: head flags from a 1-D .npy file (uint8 or bool; nonzero starts a segment)")
	fs.StringVar(&opt.fileA, "a", "", "the input from a 1-D .npy file (float32 or int32); sets -n")
	opt.out.Flags(fs, "the scan (.npy)", ".npy")
}

func (opt *options) check(o *cli.Options) error {
	if err := opt.out.Check(); err != nil {
		return err
	}
	var err error
	if opt.opV, err = vocab.Parse("op", opt.op, gpu.ScanOps); err != nil {
		return err
	}
	if opt.seglen != "" && opt.flagsFile != "" {
		return fmt.Errorf("-seglen and -flags both give segments: choose one")
	}
	if opt.seglen != "" && opt.seglen != "mixed" {
		if l, err := strconv.ParseInt(opt.seglen, 10, 64); err != nil || l < 1 {
			return fmt.Errorf("-seglen %q: a length of at least 1, or mixed", opt.seglen)
		}
	}
	if opt.typV, err = vocab.Parse("type", opt.typ, gpu.ScanTypes); err != nil {
		return err
	}
	if opt.fileA != "" {
		in, typ, note, err := data.LoadWords(opt.fileA, "prefiks", vocab.Float32, vocab.Float64, vocab.Int32)
		if err != nil {
			return err
		}
		if o.Set["type"] && typ != opt.typV {
			return fmt.Errorf("-type %s does not match %s, which holds %s", opt.typV, opt.fileA, typ)
		}
		opt.typV, opt.in = typ, in
		if note != "" {
			fmt.Fprintln(os.Stderr, note)
		}
		if o.Set["n"] && o.N != int64(len(opt.in)) {
			return fmt.Errorf("-n %d does not match the %d elements of %s (leave -n out with -a)", o.N, len(opt.in), opt.fileA)
		}
		o.N = int64(len(opt.in))
	}
	if opt.flagsFile != "" {
		f, err := data.LoadVector(opt.flagsFile) // (uint8 or bool: Bytes says)
		if err != nil {
			return err
		}
		if opt.heads, err = f.Bytes(); err != nil {
			return err
		}
		if int64(len(opt.heads)) != o.N {
			return fmt.Errorf("%s holds %d flags for %d elements", opt.flagsFile, len(opt.heads), o.N)
		}
	}
	return nil
}

type session struct {
	opt           *options
	o             cli.Options
	in, flags     []uint32
	headFlags     []byte
	ref           verify.ScanReference
	host          *gpu.Host
	din, dout, df *gpu.Buffer
	h2d           float64
}

func open(opt *options, o cli.Options, dev *gpu.Device) (_ cli.Session, err error) {
	s := &session{opt: opt, o: o, in: opt.in, headFlags: opt.heads, h2d: math.NaN()}
	defer func() {
		if err != nil {
			s.Free()
		}
	}()
	if s.in == nil {
		s.in = make([]uint32, o.N)
		verify.ScanInput(s.in, opt.typV, o.Seed)
	}
	if opt.seglen != "" {
		s.headFlags = make([]byte, o.N)
		l, _ := strconv.ParseInt(opt.seglen, 10, 64) // mixed: 0
		verify.SegmentFlags(s.headFlags, l, o.Seed+7)
	}
	s.ref = verify.Scan(opt.opV, opt.typV, opt.exclusive, s.in, s.headFlags)
	if s.host, err = gpu.AllocHost(o.N, dev != nil); err != nil {
		return nil, err
	}
	if dev == nil {
		return s, nil
	}
	for _, b := range []**gpu.Buffer{&s.din, &s.dout} {
		if *b, err = gpu.Alloc(4*o.N, false); err != nil {
			return nil, err
		}
	}
	if s.headFlags != nil { // a byte a flag, for segmented scans only
		if s.df, err = gpu.Alloc(o.N, false); err != nil {
			return nil, err
		}
	}
	start := time.Now()
	err = s.din.UploadWords(s.in)
	if err == nil && s.df != nil {
		err = s.df.UploadBytes(s.headFlags)
	}
	s.h2d = float64(time.Since(start).Nanoseconds()) / 1e6
	return s, err
}

func (s *session) H2DMs() float64 { return s.h2d }

func (s *session) Free() {
	s.host.Free()
	for _, b := range []*gpu.Buffer{s.din, s.dout, s.df} {
		b.Free()
	}
}

// checked fills the row's check from out, and writes the first that passes to -o.
func (s *session) checked(row report.Row, out []uint32, tol func(float64) float64) (report.Row, error) {
	c := verify.CheckScan(s.opt.opV, s.opt.typV, out, s.ref, tol)
	row.Error, row.Tolerance, row.Pass, row.Note = report.Num(c.MaxError), report.Num(c.Tolerance), c.Bad == 0, c.First
	return row, s.opt.out.Write(row, func(temp func(string) string) error {
		return data.WriteWords(temp(s.opt.out.Path), data.Descr(s.opt.typV), out)
	})
}

func (s *session) RunDevice(plan gpu.Plan, scratch *gpu.Buffer, timer *gpu.Timer) (report.Row, error) {
	pl := plan.(*gpu.PrefiksPlan)
	var row report.Row
	run := func() error { return gpu.RunPrefiks(pl, s.din, s.df, s.dout, scratch) }
	// two runs under two poisons: every bit pattern is a legal int32
	out := s.host.Words()
	first := make([]uint32, len(out))
	err := cli.RunPoisoned(&row, timer, "prefiks "+pl.Variant.Name, s.dout.Fill, run, func(k int) error {
		if err := s.dout.DownloadWords(out); err != nil || k > 0 {
			return err
		}
		copy(first, out)
		return nil
	})
	if err != nil {
		return row, err
	}
	unwritten := cli.UnwrittenWords(first, out)
	row, err = s.checked(row, first, linearTolerance(pl))
	if pl.Variant.Name == "best" && row.Note == "" {
		row.Note = bestTiles(pl)
	}
	if unwritten > 0 {
		row.Pass, row.Note = false, fmt.Sprintf("%d elements unwritten", unwritten)
	}
	if err != nil {
		return row, err
	}
	return row, cli.TimeKernel(&row, timer, s.o.Reps, run)
}

// bestTiles says best's plan: its tiles, and how far ahead a tile prefetches (the plan's distance,
// from the device's memory system).
func bestTiles(pl *gpu.PrefiksPlan) string {
	tile := 1024 * pl.Rows
	if pl.Ahead == 0 {
		return fmt.Sprintf("tiles of %d", tile)
	}
	return fmt.Sprintf("tiles of %d; the tile %d ahead prefetched into L2 (from the memory system)", tile, pl.Ahead)
}

func (s *session) RunHost(string) (report.Row, error) {
	out := s.host.Words()
	ms := cli.TimeHost(s.o.Reps, func() { verify.ScanCPU(s.opt.opV, s.opt.typV, s.opt.exclusive, s.in, s.headFlags, out) })
	row, err := s.checked(report.Row{}, out, func(a float64) float64 { return verify.CPUScanTolerance(s.o.N, a) })
	cli.HostTimes(&row, ms)
	row.Bytes = report.Num(8 * float64(s.o.N))
	return row, err
}

// RunMulti runs best over the GPUs of m: each GPU but the last first reduces its contiguous slice
// to its carry (its total since its last head), the carries are all-gathered through NCCL, and each
// slice's scan starts from the carries before it (folded on its device, in GPU order): one pass over the outputs, whose first GPU's
// total is known after a read of its slice (BENCHMARKS: the floor this sets on two GPUs).
func (s *session) RunMulti(m *cli.Multi) (report.Row, error) {
	best, _ := gpu.Prefiks.Variant("best")
	slices := multi.Split(s.o.N, m.Ranks)
	type part struct {
		in, flags, out, carry, carries, work, scratch *gpu.Buffer
		plan                                          *gpu.PrefiksPlan
	}
	parts := make([]part, len(m.Local))
	index := func(r *cli.Rank) *part { return &parts[r.Local] }
	defer m.Do(func(r *cli.Rank) error {
		p := index(r)
		gpu.FreeEach(p.in, p.flags, p.out, p.carry, p.carries, p.work, p.scratch)
		return nil
	})
	request := func(n int64) gpu.PrefiksRequest {
		return gpu.PrefiksRequest{Request: gpu.Request{Variant: best, N: n}, Op: s.opt.opV, Type: s.opt.typV,
			Exclusive: s.opt.exclusive, Segmented: s.opt.segmented()}
	}
	err := m.Do(func(r *cli.Rank) (err error) {
		p, sl := index(r), slices[r.Rank]
		err = gpu.AllocEach([]**gpu.Buffer{&p.carry, &p.carries, &p.work},
			gpu.PrefiksCarryBytes, gpu.PrefiksCarryBytes*int64(m.Ranks), gpu.PrefiksCarryWorkBytes)
		if err == nil { // (an empty slice's carry is gathered, never folded: empty slices come last)
			err = p.carry.Fill(0)
		}
		if err != nil || sl.Len() == 0 {
			return err
		}
		if p.plan, err = r.Dev.PlanPrefiks(request(sl.Len())); err != nil {
			return err
		}
		if p.scratch, err = p.plan.AllocScratch(); err != nil {
			return err
		}
		if err = gpu.AllocEach([]**gpu.Buffer{&p.in, &p.out}, 4*sl.Len(), 4*sl.Len()); err != nil {
			return err
		}
		if err = p.out.Fill(cli.Poisons[0]); err != nil {
			return err
		}
		if s.headFlags != nil {
			if p.flags, err = gpu.Alloc(sl.Len(), false); err != nil {
				return err
			}
			if err = p.flags.UploadBytes(s.headFlags[sl.Lo:sl.Hi]); err != nil {
				return err
			}
		}
		return p.in.UploadWords(s.in[sl.Lo:sl.Hi])
	})
	if err != nil {
		return report.Row{}, err
	}
	// every GPU reduces its slice, the last too (no one folds its carry): so all enter the all-gather
	// at once, where the last would wait for the others' reductions and scan behind them
	reduce := func(r *cli.Rank) error {
		if p := index(r); p.plan != nil {
			return gpu.PrefiksCarryOut(p.plan, p.in, p.flags, p.work, p.carry, r.Stream)
		}
		return nil
	}
	gather := func(r *cli.Rank) error {
		p := index(r)
		return r.Comm.AllGather(p.carry, p.carries, gpu.PrefiksCarryBytes, r.Stream)
	}
	scan := func(r *cli.Rank) error {
		p := index(r)
		if p.plan == nil {
			return nil
		}
		return gpu.RunPrefiksAfter(p.plan, p.in, p.flags, p.out, p.scratch, p.carries, m.Ranks, r.Rank, r.Stream)
	}
	times, err := m.Time(cli.Stages{Kernel: reduce, Gather: gather, After: scan})
	if err != nil {
		return report.Row{}, err
	}
	out := s.host.Words()
	d2h, err := m.OnFirst(func(r *cli.Rank) error {
		if p, sl := index(r), slices[r.Rank]; p.out != nil {
			return p.out.DownloadWords(out[sl.Lo:sl.Hi])
		}
		return nil
	})
	if err != nil {
		return report.Row{}, err
	}
	if len(m.Local) < m.Ranks { // -nranks: this process holds its own slice only; rank 0 checks that
		sl := slices[m.Local[0].Rank]
		for i := range out {
			if int64(i) < sl.Lo || int64(i) >= sl.Hi {
				out[i] = s.ref.Bits[i]
			}
		}
	}
	deepest, err := m.Local[0].Dev.PlanPrefiks(request(slices[0].Len()))
	if err != nil {
		return report.Row{}, err
	}
	// an output's operations, at most: a carry's reduction, the carries' fold and its slice's scan
	tolPlan := deepest.WithDepth(deepest.Depth + gpu.PrefiksCarryDepth(deepest) + int64(m.Ranks))
	var row report.Row
	row, err = s.checked(row, out, linearTolerance(tolPlan))
	row.Bytes, row.Items = report.Num(8*float64(s.o.N)), s.o.N
	return m.Row(row, times, d2h), err
}

// linearTolerance is the plan's bound as a function of the prefix's magnitude, gamma(depth) * a,
// with gamma read once (a call into the library for each of 2^31 outputs took minutes).
func linearTolerance(pl *gpu.PrefiksPlan) func(float64) float64 {
	gamma := gpu.PrefiksTolerance(pl, 1)
	return func(a float64) float64 { return gamma * a }
}
