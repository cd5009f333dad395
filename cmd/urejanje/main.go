// Command urejanje sorts 32-bit keys (float32, int32 or uint32; random or from a .npy file; keys
// or key-value pairs; one array or a batch) with every bitonic-sort variant of the lecture, one
// beyond it, an LSD radix sort and CUB's, verifies each against the host's stable sort and times it.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"

	"tecaj/internal/cli"
	"tecaj/internal/data"
	"tecaj/internal/gpu"
	"tecaj/internal/report"
	"tecaj/internal/verify"
	"tecaj/internal/vocab"
)

// options are urejanje's own flags.
type options struct {
	keyType           string      // -type
	keyDtype          vocab.Dtype // -type's, or the keys file's
	descending, pairs bool
	batch             int64
	dist              string
	keysFile          string
	valuesFile        string
	keys, values      []uint32    // from the files
	valuesType        vocab.Dtype // the values' type: -values's (uint32 or int32), else uint32 indices
	out               cli.Writer
}

// valuesPath is where -o's values go: FILE.values.npy beside FILE.npy ("" without -o or -pairs).
func (opt *options) valuesPath() string {
	if opt.out.Path == "" || !(opt.pairs || opt.valuesFile != "") {
		return ""
	}
	return strings.TrimSuffix(opt.out.Path, filepath.Ext(opt.out.Path)) + ".values.npy"
}

func main() { os.Exit(cli.Main(command())) }

func command() cli.Command {
	opt := &options{keyType: vocab.Float32.String(), batch: 1, dist: "uniform", valuesType: vocab.Uint32}
	return cli.Command{
		Program:   gpu.Urejanje,
		About:     "bitonic sort of 32-bit keys (random or -keys FILE.npy; or key-value pairs, or batches of arrays), every lecture variant and a radix sort, verified and timed",
		DefaultN:  1 << 20,
		Default:   "best",
		Baseline:  "o",
		ErrorKind: "wrong",
		Params: func() string {
			p := fmt.Sprintf("-type %s -dist %s", opt.keyDtype, opt.dist)
			if opt.keysFile != "" { // (the keys are the file's: no distribution drew them)
				p = "-type " + opt.keyDtype.String()
			}
			if opt.batch > 1 {
				p += fmt.Sprintf(" -batch %d", opt.batch)
			}
			if opt.descending {
				p += " -desc"
			}
			if opt.pairs || opt.valuesFile != "" {
				p += " -pairs"
			}
			return p
		},
		HostVariants: []cli.HostVariant{
			{Name: "cpu", Summary: "host: Go's sort.SliceStable, arrays in parallel; no GPU needed",
				Outside: func(n int64) string { // O(n log^2 n) moves, one core an array
					if n*opt.batch > 1<<25 {
						return "at most 2^25 keys in all (-n x -batch): sort.SliceStable's n log^2 n moves take minutes past it"
					}
					return ""
				}},
			{Name: "seq", Summary: "host: seed 001's sequential bitonic network (any n: padded), arrays in parallel; no GPU needed",
				Outside: func(n int64) string { // O(n log^2 n) compare-exchanges, one core an array
					if n*opt.batch > 1<<25 {
						return "at most 2^25 keys in all (-n x -batch): the network's n log^2 n steps take minutes past it"
					}
					return ""
				}},
		},
		// what each step of the lecture should change (docs/urejanje.md): -counters checks them
		Claims: []cli.Claim{
			{Variant: "ov", Than: "o", Counter: "warps", Factor: 0.5},
			{Variant: "ov", Than: "o", Counter: "divergent", Fewer: true},
			{Variant: "n", Than: "ov", Counter: "dram", Fewer: true},
			{Variant: "nl", Than: "n", Counter: "dram", Fewer: true},
			{Variant: "best", Than: "nl", Counter: "dram", Fewer: true},
		},
		// (the sizes where radix's passes, its launches, the network's block or the rank sort set the time)
		Benchmarks: []string{"-n 2^24 -pairs -type uint32 -reps 10", "-n 1024 -batch 1024 -pairs -type uint32",
			"-n 2^14 -type uint32", "-n 2^20 -pairs -type uint32", "-n 2^26 -pairs -type uint32 -reps 10",
			"-n 2^28 -type uint32 -reps 10", "-n 2^24 -type float32 -desc -reps 10", "-n 2^12 -type uint32",
			"-n 2^12 -pairs -type uint32"},
		// keys in and out, values in and out, the padded network (up to 2x, 8-byte words) or CUB's temp
		DeviceBytes: func(n int64) float64 { return float64(n)*float64(opt.batch)*(4+4+4+4+16+8) + 64<<20 },
		// keys in and out and values; the check's sorted words, its passes' buffer and (after a wrong
		// value) each index's first place, or a sorted input's making; with -values, the user's and
		// three arrays of 8-byte pairs
		HostBytes: func(n int64, _ bool) float64 {
			per := 24.0
			if opt.dist == "sorted" || opt.dist == "reversed" {
				per = 36 // (the inputs' stable order: each key's word and index, twice, and the indices)
			}
			if opt.valuesFile != "" {
				per += 4 + 24
			}
			return float64(n)*float64(opt.batch)*per + 64<<20
		},
		Flags: opt.flags,
		Check: opt.check,
		Plan: func(dev *gpu.Device, r gpu.Request) (gpu.Plan, error) {
			return dev.PlanUrejanje(gpu.UrejanjeRequest{Request: r, Batch: opt.batch, Pairs: opt.pairs, Type: opt.keyDtype,
				Descending: opt.descending})
		},
		Output: &opt.out,
		Open:   func(o cli.Options, dev *gpu.Device) (cli.Session, error) { return open(opt, o, dev) },
	}
}

func (opt *options) flags(fs *flag.FlagSet) {
	fs.StringVar(&opt.keyType, "type", opt.keyType, "key type: float32, int32 or uint32 (with -keys: the file's, unless given)")
	fs.BoolVar(&opt.descending, "desc", false, "sort descending")
	fs.BoolVar(&opt.pairs, "pairs", false, "sort key-value pairs (values = original indices, an argsort, unless -values)")
	opt.batch = 1
	fs.Var((*cli.Count)(&opt.batch), "batch", "independent arrays of n keys sorted in one call (1024, 2^10)")
	fs.StringVar(&opt.dist, "dist", opt.dist, "random input: "+strings.Join(verify.Distributions, ", "))
	fs.StringVar(&opt.keysFile, "keys", "", "keys from a 1-D .npy file (float32, float64 rounded to float32, int32, uint32); sets -n (n x -batch keys)")
	fs.StringVar(&opt.valuesFile, "values", "", "values from a 1-D .npy file (uint32 or int32, as bits) of the keys' length; implies -pairs")
	opt.out.Flags(fs, "the sorted keys (.npy; with -pairs the values go to FILE's name with .values.npy)", ".npy")
}

func (opt *options) check(o *cli.Options) error {
	if err := opt.out.Check(opt.valuesPath()); err != nil {
		return err
	}
	if opt.batch < 1 || opt.batch > 1<<20 {
		return fmt.Errorf("-batch must be from 1 to 1048576 (got %d)", opt.batch)
	}
	var err error
	if opt.keyDtype, err = vocab.Parse("type", opt.keyType, gpu.SortTypes); err != nil {
		return err
	}
	if opt.keysFile != "" {
		if err := opt.load(o); err != nil {
			return err
		}
	} else if opt.valuesFile != "" {
		return fmt.Errorf("-values needs -keys")
	}
	for _, d := range verify.Distributions {
		if d == opt.dist {
			return nil
		}
	}
	return fmt.Errorf("-dist %q is unknown; choose one of %s", opt.dist, strings.Join(verify.Distributions, ", "))
}

// load reads -keys (and -values) and sets n from their length.
func (opt *options) load(o *cli.Options) error {
	keys, t, note, err := data.LoadWords(opt.keysFile, "urejanje", vocab.Float32, vocab.Float64, vocab.Int32, vocab.Uint32)
	if err != nil {
		return err
	}
	if o.Set["type"] && t != opt.keyDtype {
		return fmt.Errorf("-type %s does not match %s, which holds %s keys", opt.keyDtype, opt.keysFile, t)
	}
	opt.keyDtype, opt.keys = t, keys
	if note != "" {
		fmt.Fprintln(os.Stderr, note)
	}
	count := len(opt.keys)
	if int64(count)%opt.batch != 0 {
		return fmt.Errorf("%s holds %d keys, not a multiple of -batch %d", opt.keysFile, count, opt.batch)
	}
	if n := int64(count) / opt.batch; o.Set["n"] && o.N != n {
		return fmt.Errorf("-n %d does not match %s: %d keys in %d arrays (leave -n out with -keys)", o.N, opt.keysFile, count, opt.batch)
	} else {
		o.N = n
	}
	if opt.valuesFile == "" {
		return nil
	}
	v, err := data.LoadVector(opt.valuesFile, vocab.Uint32, vocab.Int32)
	if err != nil {
		return err
	}
	if opt.values, _ = v.Words(); len(opt.values) != count {
		return fmt.Errorf("%s holds %d values for the %d keys of %s", opt.valuesFile, len(opt.values), count, opt.keysFile)
	}
	opt.valuesType, _ = v.Type()
	opt.pairs = true
	return nil
}

type session struct {
	opt                         *options
	o                           cli.Options
	items                       int64
	in, out, values             *gpu.Host
	dIn, dOut, dValues, dValsIn *gpu.Buffer
	h2d                         float64
	ref                         *verify.SortReference
}

func open(opt *options, o cli.Options, dev *gpu.Device) (_ cli.Session, err error) {
	s := &session{opt: opt, o: o, items: o.N * opt.batch, h2d: math.NaN()}
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
	if opt.keys != nil {
		copy(s.in.Words(), opt.keys)
	} else {
		verify.SortKeys(s.in.Words(), opt.keyDtype, opt.dist, o.Seed)
	}
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
	if opt.values != nil {
		if s.dValsIn, err = gpu.Alloc(4*s.items, false); err != nil {
			return nil, err
		}
		if err = s.dValsIn.UploadWords(opt.values); err != nil {
			return nil, err
		}
	}
	s.h2d = float64(time.Since(start).Nanoseconds()) / 1e6
	return s, nil
}

func (s *session) H2DMs() float64 { return s.h2d }

func (s *session) Free() {
	for _, h := range []*gpu.Host{s.in, s.out, s.values} {
		h.Free()
	}
	for _, b := range []*gpu.Buffer{s.dIn, s.dOut, s.dValues, s.dValsIn} {
		b.Free()
	}
}

// check verifies the sorted keys (and values) on the host and writes the first that pass to -o.
func (s *session) check(row report.Row) (report.Row, error) {
	opt, t := s.opt, s.opt.keyDtype
	var values []uint32
	if opt.pairs {
		values = s.values.Words()
	}
	if s.ref == nil { // (once a run: every variant is checked against the same sorted words)
		s.ref = verify.NewSortReference(s.in.Words(), s.o.N, opt.batch, t, opt.descending)
	}
	var c verify.SortCheck
	if opt.values != nil {
		c = s.ref.CheckPairs(opt.values, s.out.Words(), values)
	} else {
		c = s.ref.Check(s.out.Words(), values)
	}
	row.Error, row.Tolerance, row.Pass, row.Note = report.Num(c.Bad), 0, c.Bad == 0, c.First
	row.Items = s.items
	return row, opt.out.Write(row, func(temp func(string) string) error {
		if err := data.WriteWords(temp(opt.out.Path), data.Descr(opt.keyDtype), s.out.Words()); err != nil || !opt.pairs {
			return err
		}
		return data.WriteWords(temp(opt.valuesPath()), data.Descr(opt.valuesType), values)
	})
}

func (s *session) RunDevice(plan gpu.Plan, scratch *gpu.Buffer, timer *gpu.Timer) (report.Row, error) {
	pl := plan.(*gpu.UrejanjePlan)
	var row report.Row
	var dValues *gpu.Buffer
	if s.opt.pairs {
		dValues = s.dValues
	}
	run := func() error {
		return gpu.RunUrejanje(pl, s.dIn, s.dValsIn, s.dOut, dValues, scratch)
	}
	// every bit pattern is a legal key and value: two runs under two poisons
	var first [2][]uint32 // run 0's keys and values
	err := cli.RunPoisoned(&row, timer, "urejanje "+pl.Variant.Name,
		func(poison byte) error { return cli.FirstError(s.dOut.Fill(poison), s.dValues.Fill(poison)) }, run,
		func(k int) error {
			if err := s.dOut.DownloadWords(s.out.Words()); err != nil {
				return err
			}
			if s.opt.pairs {
				if err := s.dValues.DownloadWords(s.values.Words()); err != nil {
					return err
				}
			}
			if k == 0 {
				first = [2][]uint32{append([]uint32(nil), s.out.Words()...), append([]uint32(nil), s.values.Words()...)}
			}
			return nil
		})
	if err != nil {
		return row, err
	}
	unwritten := cli.UnwrittenWords(first[0], s.out.Words())
	if s.opt.pairs {
		unwritten += cli.UnwrittenWords(first[1], s.values.Words())
	}
	row, err = s.check(row)
	if pl.Variant.Name == "best" {
		row.Note = strings.TrimSpace(bestChoice(pl, s.o.Threads) + "; " + row.Note)
		row.Note = strings.TrimSuffix(row.Note, ";")
	}
	if unwritten > 0 {
		row.Pass, row.Error, row.Note = false, report.Num(unwritten), fmt.Sprintf("%d slots unwritten (they follow the poison)", unwritten)
	}
	if err != nil {
		return row, err
	}
	return row, cli.TimeKernel(&row, timer, s.o.Reps, run)
}

// bestChoice says which sort best chose for the plan, and by what (its rule is the plan's, from
// the device: one array of up to RankMost keys takes the rank sort; arrays of up to
// gpu.UrejanjeBlockTile keys take radix's block sort past half of it with pairs, or with keys in a
// batch of at least the SMs; longer ones radix's sort past RadixAbove keys).
func bestChoice(pl *gpu.UrejanjePlan, threads int) string {
	tile := gpu.UrejanjeBlockTile
	switch {
	case threads != 0:
		return "chose the network: -threads sizes its block"
	case pl.Rank:
		return fmt.Sprintf("chose the rank sort: one array of %d keys <= %d (n^2 comparisons over the SMs, at most 2^19 each)",
			pl.N, pl.RankMost)
	case pl.Radix && pl.N <= tile:
		return fmt.Sprintf("chose radix's block sort: %d keys an array, %d to %d (pairs, or keys in a batch of at least the SMs)",
			pl.N, tile/2+1, tile)
	case pl.Radix:
		return fmt.Sprintf("chose radix: %d keys an array > %d (the SMs x 256)", pl.N, pl.RadixAbove)
	case pl.N <= tile/2:
		return fmt.Sprintf("chose the network: %d keys an array <= %d", pl.N, tile/2)
	case pl.N <= tile:
		return fmt.Sprintf("chose the network: %d keys an array, %d to %d, keys alone in a batch of fewer arrays than the SMs",
			pl.N, tile/2+1, tile)
	case pl.N <= pl.RadixAbove:
		return fmt.Sprintf("chose the network: %d keys an array <= %d (the SMs x 256)", pl.N, pl.RadixAbove)
	default:
		return "chose the network: outside radix's domain"
	}
}

func (s *session) RunHost(name string) (report.Row, error) {
	sortHost := verify.SortCPU
	if name == "seq" {
		sortHost = verify.SortSeq
	}
	var values []uint32
	if s.opt.pairs {
		values = s.values.Words()
	}
	reps := s.o.Reps
	if reps > 3 || reps == 0 { // the host's sorts are slow at large n: three runs are enough for a host baseline
		reps = 3
	}
	ms := cli.TimeHost(reps, func() {
		sortHost(s.in.Words(), s.opt.values, s.out.Words(), values, s.o.N, s.opt.batch,
			s.opt.keyDtype, s.opt.descending)
	})
	row, err := s.check(report.Row{})
	cli.HostTimes(&row, ms)
	return row, err
}
