// Command urejanje sorts random 32-bit keys (float32, int32 or uint32; keys or key-value pairs;
// one array or a batch) with every bitonic-sort variant of the lecture, one beyond it and CUB's
// radix sort, verifies each against the host's stable sort and times it.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"strings"
	"time"

	"tecaj/internal/cli"
	"tecaj/internal/gpu"
	"tecaj/internal/report"
	"tecaj/internal/verify"
)

var (
	keyType    = "float32"
	descending bool
	pairs      bool
	batch      int64 = 1
	dist             = "uniform"
)

var keyTypes = map[string]gpu.KeyType{"float32": gpu.Float32, "int32": gpu.Int32, "uint32": gpu.Uint32}

func main() {
	os.Exit(cli.Main(cli.Command{
		Name:      "urejanje",
		Kernels:   gpu.Urejanje,
		About:     "bitonic sort of random 32-bit keys (or key-value pairs, or batches of arrays), every lecture variant, verified and timed",
		DefaultN:  1 << 20,
		Default:   "best",
		Baseline:  "o",
		ErrorKind: "wrong",
		HostVariants: []cli.HostVariant{
			{Name: "cpu", Summary: "host: Go's sort.SliceStable, arrays in parallel; no GPU needed"},
		},
		PowerOfTwoThreads: true,
		Flags: func(fs *flag.FlagSet) {
			fs.StringVar(&keyType, "type", keyType, "key type: float32, int32 or uint32")
			fs.BoolVar(&descending, "desc", false, "sort descending")
			fs.BoolVar(&pairs, "pairs", false, "sort key-value pairs (values = original indices: also an argsort)")
			fs.Int64Var(&batch, "batch", 1, "independent arrays of n keys sorted in one call")
			fs.StringVar(&dist, "dist", dist, "input: "+strings.Join(verify.Distributions, ", "))
		},
		Check: func() error {
			if _, ok := keyTypes[keyType]; !ok {
				return fmt.Errorf("-type %q is unknown; choose float32, int32 or uint32", keyType)
			}
			if batch < 1 || batch > 1<<20 {
				return fmt.Errorf("-batch must be from 1 to 1048576 (got %d)", batch)
			}
			for _, d := range verify.Distributions {
				if d == dist {
					return nil
				}
			}
			return fmt.Errorf("-dist %q is unknown; choose one of %s", dist, strings.Join(verify.Distributions, ", "))
		},
		Plan: func(dev *gpu.Device, v gpu.Variant, o cli.Options) (*gpu.Plan, error) {
			return dev.PlanSort(v, o.N, batch, pairs, o.Threads)
		},
		Items: func(o cli.Options) int64 { return o.N * batch },
		// keys in and out, values, the padded network (up to 2x, 8-byte words) or CUB's temp
		DeviceBytes: func(n int64) int64 { return n*batch*(4+4+4+16+8) + 64<<20 },
		Open:        open,
	}))
}

type session struct {
	o                  cli.Options
	items              int64
	in, out, values    *gpu.Host
	dIn, dOut, dValues *gpu.Buffer
	h2d                float64
}

func open(o cli.Options, dev *gpu.Device) (_ cli.Session, err error) {
	s := &session{o: o, items: o.N * batch, h2d: math.NaN()}
	defer func() {
		if err != nil {
			s.Free()
		}
	}()
	pinned := dev != nil
	for _, h := range []**gpu.Host{&s.in, &s.out, &s.values} {
		if *h, err = gpu.AllocHost(s.items, pinned); err != nil {
			return nil, err
		}
	}
	verify.SortKeys(s.in.Words(), verify.KeyType(keyTypes[keyType]), dist, o.Seed)
	if dev == nil {
		return s, nil
	}
	for _, b := range []**gpu.Buffer{&s.dIn, &s.dOut, &s.dValues} {
		if *b, err = gpu.Alloc(4*s.items, false); err != nil {
			return nil, err
		}
	}
	start := time.Now()
	if err = s.dIn.UploadWords(s.in.Words()); err != nil {
		return nil, err
	}
	s.h2d = float64(time.Since(start).Nanoseconds()) / 1e6
	return s, nil
}

func (s *session) H2DMs() float64 { return s.h2d }

func (s *session) Free() {
	for _, h := range []*gpu.Host{s.in, s.out, s.values} {
		h.Free()
	}
	for _, b := range []*gpu.Buffer{s.dIn, s.dOut, s.dValues} {
		b.Free()
	}
}

func (s *session) check(row report.Row, values []uint32) report.Row {
	c := verify.CheckSort(s.in.Words(), s.out.Words(), values, s.o.N, batch, verify.KeyType(keyTypes[keyType]), descending)
	row.Error, row.Tolerance, row.Pass, row.Note = report.Num(c.Bad), 0, c.Bad == 0, c.First
	return row
}

func (s *session) RunDevice(pl *gpu.Plan, scratch *gpu.Buffer, timer *gpu.Timer) (report.Row, error) {
	var row report.Row
	var dValues *gpu.Buffer
	if pairs {
		dValues = s.dValues
	}
	if err := s.dOut.Fill(0xFF); err != nil {
		return row, err
	}
	if err := s.dValues.Fill(0xFF); err != nil {
		return row, err
	}
	run := func() error {
		return gpu.RunUrejanje(pl, keyTypes[keyType], descending, s.dIn, s.dOut, dValues, scratch)
	}
	if err := cli.LaunchOnce("urejanje "+pl.Variant.Name, run); err != nil {
		return row, err
	}
	d2h, err := timer.Milliseconds(func() error {
		if err := s.dOut.DownloadWords(s.out.Words()); err != nil || !pairs {
			return err
		}
		return s.dValues.DownloadWords(s.values.Words())
	})
	if err != nil {
		return row, err
	}
	var values []uint32
	if pairs {
		values = s.values.Words()
	}
	row = s.check(row, values)
	row.D2HMs = report.Num(d2h)
	err = cli.TimeKernel(&row, timer, s.o.Reps, run)
	row.Note = strings.TrimSpace(fmt.Sprintf("%d launches %s", pl.Launches, row.Note))
	return row, err
}

func (s *session) RunHost(string) (report.Row, error) {
	var values []uint32
	if pairs {
		values = s.values.Words()
	}
	reps := s.o.Reps
	if reps > 3 { // Go's sort is slow at large n: three runs are enough for a host baseline
		reps = 3
	}
	ms := cli.TimeHost(reps, func() {
		verify.SortCPU(s.in.Words(), s.out.Words(), values, s.o.N, batch, verify.KeyType(keyTypes[keyType]), descending)
	})
	row := s.check(report.Row{}, values)
	cli.HostTimes(&row, ms)
	return row, nil
}
