// Package cli is what every command shares: the flags, their checks, the exit codes, the
// no-GPU message, -list and -info, and the loop that runs the chosen variants into one report.
// A command supplies its inputs and how one variant runs and is verified (a Session).
package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"time"

	"tecaj/internal/gpu"
	"tecaj/internal/multi"
	"tecaj/internal/report"
)

// Exit codes of every command.
const (
	ExitOK     = 0 // success
	ExitFailed = 1 // a variant failed its verification, or the GPU reported an error while running
	ExitUsage  = 2 // bad usage: a flag out of range, an unknown variant, a request outside a variant's domain
	ExitNoGPU  = 3 // no usable CUDA device or driver
)

// Options are the flags every command takes; a command keeps its own in a struct of its own.
type Options struct {
	N          int64           // the size of the run in hand
	Sizes      []int64         // every size -n names (one, a list, or a range)
	CSV        string          // -csv FILE: one row per (variant, size)
	Plot       string          // -plot FILE.svg: GB/s against n (a sweep), or the variants' bars (one size)
	Set        map[string]bool // the flags given on the command line (a data file's shape decides the rest)
	Variant    string
	Threads    int
	Blocks     int
	Seed       int64
	Reps       int
	List       bool
	Info       bool
	JSON       bool
	Benchmarks bool
	// -gpus N, or -rank R -nranks P -coordinator HOST:PORT: best over several GPUs (Command.Multi)
	GPUs, Rank, NRanks int
	Coordinator        string
	Inputs             []string     // the data files given (-a, -b, -keys, -values, -flags, -in)
	FromFiles          bool         // the input is a file's, not drawn from -seed
	Launch             multi.Launch // the launcher that set -nranks and -rank (mpiexec, srun); From "" where none
	// -counters, -plot-counter NAME, -html FILE (counters.go, html.go)
	Counters          bool
	PlotCounter, HTML string
	args              []string      // the command line's arguments (the profiled run's come from them)
	flags             *flag.FlagSet // (which of them are booleans)
}

// HostVariant is a variant that runs on the host (no GPU needed).
type HostVariant struct {
	Name, Summary string
	// Outside is "" where the variant covers a run of n items, else its domain (nil: any n)
	Outside func(n int64) string
}

// outside is h's domain where it does not cover n, else "".
func (h HostVariant) outside(n int64) string {
	if h.Outside == nil {
		return ""
	}
	return h.Outside(n)
}

// Session holds a command's inputs and reference, and runs one variant at a time.
type Session interface {
	// RunDevice runs, verifies and times a planned device variant (the plan the command's Plan
	// made), with the plan's scratch (zero-filled). Error is for failures of the run itself (CUDA
	// errors); a wrong result is a Row with Pass false.
	RunDevice(plan gpu.Plan, scratch *gpu.Buffer, timer *gpu.Timer) (report.Row, error)
	// RunHost runs, verifies and times a host variant.
	RunHost(name string) (report.Row, error)
	// H2DMs is the time the inputs took to reach the device (NaN without a device).
	H2DMs() float64
	Free()
}

// Command describes one program to Main. Every field but Params is set by every command.
type Command struct {
	Program   *gpu.Program
	About     string // what the program computes, for -h
	DefaultN  int64
	Default   string // default variant
	Baseline  string // the variant speed-ups are against
	ErrorKind string // the error column's heading
	Scalar    bool   // the answer is a number (a distance, a sum): the table shows it
	Multi     bool   // best also runs over several GPUs (-gpus, -nranks): the session is a MultiSession
	// Params names the run's parameters as flags (-op min -type int32), after Check; nil: none
	Params       func() string
	HostVariants []HostVariant
	Benchmarks   []string // the argument lines of the benchmark tables (-benchmarks prints them)
	Claims       []Claim  // what the lecture says each step changes, checked by -counters (docs/P.md in words)
	// DeviceBytes is the device memory a run of n items needs (for the "too large" check), as a
	// float64 so that no n can wrap it.
	DeviceBytes func(n int64) float64
	// HostBytes is the host memory a run of n items needs (inputs, outputs, the reference; with
	// device the pinned copies too), checked against what the system has available before
	// anything is allocated.
	HostBytes func(n int64, device bool) float64
	// Flags adds the program's own flags; Check checks them after parsing, and may read data
	// files and set o.N from them.
	Flags func(fs *flag.FlagSet)
	Check func(o *Options) error
	// Plan plans one variant with the program's own request.
	Plan func(dev *gpu.Device, r gpu.Request) (gpu.Plan, error)
	// Output is the command's -o (nil: it has none); where no row passed, a line says it was not written.
	Output *Writer
	// Open prepares inputs and references; dev is nil when only host variants run.
	Open func(o Options, dev *gpu.Device) (Session, error)
}

// The command's name is its program's.
func (c Command) name() string { return c.Program.Name }

func (c Command) params() string {
	if c.Params == nil {
		return ""
	}
	return c.Params()
}

// ceilingBytes is the size of the device-to-device copy that gives the bandwidth ceiling:
// far past any GPU's L2 (the largest of the profiles' is the RTX 4090's 72 MiB).
const ceilingBytes = 256 << 20

// Main runs the command with os.Args and returns the exit code.
func Main(c Command) int { return c.run(os.Args[1:], os.Stdout, os.Stderr) }

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...interface{}) error {
	return usageError{fmt.Sprintf(format, args...)}
}

func (c Command) run(args []string, stdout, stderr io.Writer) int {
	o, err := c.parse(args, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return ExitOK
	}
	if err != nil {
		if _, ok := err.(usageError); ok {
			fmt.Fprintf(stderr, "%s: %v\n", c.name(), err)
		}
		return ExitUsage
	}
	if p := os.Getenv("TECAJ_EMULATE"); p != "" {
		if _, err := gpu.Profile(p); err != nil {
			fmt.Fprintf(stderr, "%s: TECAJ_EMULATE: %v\n", c.name(), err)
			return ExitUsage
		}
	}
	if err := c.checkSweep(&o); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", c.name(), err)
		return ExitUsage
	}
	var reports []*report.Report
	code := ExitOK
	for i, n := range o.Sizes { // one report a size (-n takes a list or a range)
		o.N = n
		if i > 0 { // what the last size held goes back before the next is made
			runtime.GC()
			debug.FreeOSMemory()
		}
		if len(o.Sizes) > 1 { // the command's own check again, for what it derives from n (an image's shape)
			if err := c.Check(&o); err != nil {
				fmt.Fprintf(stderr, "%s: %v\n", c.name(), err)
				code = ExitUsage
				break
			}
		}
		r, rc := c.runSize(o, stdout, stderr)
		if r == nil {
			code = rc
			break
		}
		if o.Counters && !counterChild() && !(o.NRanks > 0 && o.Rank > 0) {
			c.addCounters(o, r, stderr)
		}
		reports = append(reports, r)
	}
	if len(reports) == 0 {
		return code
	}
	if len(reports) < len(o.Sizes) { // a sweep stopped part-way keeps the sizes that finished
		fmt.Fprintf(stderr, "%s: the sweep stopped at -n %d; the %d size(s) before it are reported\n", c.name(), o.N, len(reports))
		if o.Plot != "" && len(reports) == 1 {
			fmt.Fprintf(stderr, "%s: -plot %s not written: a sweep's picture needs two sizes, and one finished\n", c.name(), o.Plot)
		}
	}
	if rc := c.output(o, reports, stdout, stderr); rc != ExitOK {
		return rc
	}
	return code
}

// checkSweep checks every size of -n before any runs: the command's own check and the host
// memory each needs, against what is available now (a sweep frees each size before the next).
func (c Command) checkSweep(o *Options) error {
	if len(o.Sizes) < 2 {
		return nil
	}
	avail := hostAvailable()
	device := c.wantsDevice(*o)
	for _, n := range o.Sizes {
		o.N = n
		if err := c.Check(o); err != nil {
			return err
		}
		if avail > 0 {
			if msg := memoryAdvice(n, func(m int64) float64 { return c.HostBytes(m, device) }, avail, 0, "host"); msg != "" {
				return usagef("%s (this machine has %.1f GB available); nothing was run", msg, avail/1e9)
			}
		}
	}
	o.N = o.Sizes[0]
	return nil
}

// checkSweepDomains plans every named variant at every later size of a sweep (the command's
// check first, for what it derives from n), then checks o's own size again.
func (c Command) checkSweepDomains(o Options, dev *gpu.Device, chosen []gpu.Variant, hosts []HostVariant) error {
	defer c.Check(&o)
	for _, n := range o.Sizes[1:] {
		at := o
		at.N = n
		if err := c.Check(&at); err != nil {
			return err
		}
		for _, h := range hosts {
			if why := h.outside(n); why != "" {
				return usagef("-variant %s does not cover -n %d%s: its domain is %s; nothing was run", h.Name, n,
					strings.TrimRight(" "+c.params(), " "), why)
			}
		}
		for _, v := range chosen {
			if v.OwnGrid && o.Blocks != 0 {
				continue
			}
			if _, err := c.Plan(dev, gpu.Request{Variant: v, N: n, Threads: o.Threads, Blocks: o.Blocks}); errors.Is(err, gpu.ErrOutsideDomain) {
				var b strings.Builder
				c.refuseDomain(&b, v, at, err)
				return usageError{strings.TrimSuffix(strings.TrimPrefix(b.String(), c.name()+": "), "\n") + "; nothing was run"}
			}
		}
	}
	return nil
}

// wantsDevice says whether -variant picks a device variant (or -info, which reads the device).
func (c Command) wantsDevice(o Options) bool {
	for _, v := range c.Program.Variants() {
		if o.picks(v.Name) {
			return true
		}
	}
	return o.Info || o.multi()
}

// output prints the reports (a table or JSON) and writes -csv and -plot.
func (c Command) output(o Options, reports []*report.Report, stdout, stderr io.Writer) int {
	var err2 error
	switch {
	case o.NRanks > 0 && o.Rank > 0: // rank 0 reports; the others say only how their part went
		for _, r := range reports {
			for _, row := range r.Rows {
				fmt.Fprintf(stdout, "%s rank %d of %d: %s %s\n", c.name(), o.Rank, o.NRanks, row.Variant, map[bool]string{true: "PASS", false: "FAIL"}[row.Pass])
			}
		}
	case o.JSON && len(reports) == 1:
		err2 = reports[0].WriteJSON(stdout)
	case o.JSON:
		err2 = report.WriteJSONs(stdout, reports)
	default:
		for i, r := range reports {
			if i > 0 {
				fmt.Fprintln(stdout)
			}
			if err2 = r.WriteTable(stdout); err2 != nil {
				break
			}
		}
	}
	others := o.NRanks > 0 && o.Rank > 0 // (rank 0 writes the files)
	if err2 == nil && o.CSV != "" && !others {
		err2 = report.WriteCSVFile(o.CSV, reports)
	}
	if err2 == nil && o.Plot != "" && !others && (len(reports) > 1 || len(o.Sizes) == 1) {
		err2 = report.WriteSVGFile(o.Plot, reports, o.PlotCounter)
	}
	if err2 == nil && o.HTML != "" && !others {
		err2 = report.WriteHTMLFile(o.HTML, reports, c.summaries(), o.PlotCounter)
	}
	if err2 != nil {
		fmt.Fprintf(stderr, "%s: writing the report: %v\n", c.name(), err2)
		return ExitFailed
	}
	if w := c.Output; w != nil && w.Path != "" && !w.written && !others {
		fmt.Fprintf(stderr, "%s: -o %s not written: no variant passed its check\n", c.name(), w.Path)
	}
	for _, r := range reports {
		if r.Failed() {
			fmt.Fprintf(stderr, "%s: verification FAILED (n=%d)\n", c.name(), r.N)
			return ExitFailed
		}
	}
	return ExitOK
}

// runSize runs the chosen variants at o.N: the report, or nil and the exit code where there is
// nothing to report (-list, -benchmarks, -info) or the run stops.
func (c Command) runSize(o Options, stdout, stderr io.Writer) (*report.Report, int) {
	var err error
	device := c.Program.Variants()
	if o.List {
		c.list(stdout, device)
		return nil, ExitOK
	}
	if o.Benchmarks {
		for _, b := range c.Benchmarks {
			fmt.Fprintln(stdout, b)
		}
		return nil, ExitOK
	}
	var chosen []gpu.Variant
	var hosts []HostVariant
	for _, v := range device { // in the program's (the lectures') order, whatever the list's
		if o.picks(v.Name) {
			chosen = append(chosen, v)
		}
	}
	for _, h := range c.HostVariants {
		if o.picks(h.Name) {
			hosts = append(hosts, h)
			if why := h.outside(o.N); why != "" && o.Variant != "all" {
				fmt.Fprintf(stderr, "%s: -variant %s does not cover -n %d%s: its domain is %s\n", c.name(), h.Name, o.N,
					strings.TrimRight(" "+c.params(), " "), why)
				return nil, ExitUsage
			}
		}
	}
	for _, v := range chosen {
		switch {
		case v.Pow2Threads && o.Threads&(o.Threads-1) != 0:
			fmt.Fprintf(stderr, "%s: -threads must be a power of two from 32 to 1024 for -variant %s (got %d)\n", c.name(), v.Name, o.Threads)
			return nil, ExitUsage
		case v.OwnGrid && o.Blocks != 0 && o.Variant != "all":
			fmt.Fprintf(stderr, "%s: -blocks %d: -variant %s sizes its own grid; leave -blocks at 0\n", c.name(), o.Blocks, v.Name)
			return nil, ExitUsage
		}
	}
	if avail := hostAvailable(); avail > 0 {
		device := c.wantsDevice(o)
		if msg := memoryAdvice(o.N, func(m int64) float64 { return c.HostBytes(m, device) }, avail, 0, "host"); msg != "" {
			fmt.Fprintf(stderr, "%s: %s (this machine has %.1f GB available)\n", c.name(), msg, avail/1e9)
			return nil, ExitUsage
		}
	}
	var dev *gpu.Device
	if len(chosen) > 0 || o.Info {
		dev, err = gpu.Open()
		if err != nil {
			if gpu.NoGPU(err) {
				// a variant's domain is host knowledge: outside it is bad usage with or without a GPU
				// (here planned for gpu.NoGPUProfile; a library row whose plan needs the device errs otherwise)
				for _, v := range chosen {
					if o.Variant == "all" || (v.OwnGrid && o.Blocks != 0) {
						continue
					}
					if _, err := c.Plan(nil, gpu.Request{Variant: v, N: o.N, Threads: o.Threads, Blocks: o.Blocks}); errors.Is(err, gpu.ErrOutsideDomain) {
						c.refuseDomain(stderr, v, o, err)
						return nil, ExitUsage
					}
				}
				if len(o.Sizes) > 1 && o.Variant != "all" {
					if err := c.checkSweepDomains(o, nil, chosen, hosts); err != nil {
						fmt.Fprintf(stderr, "%s: %v\n", c.name(), err)
						return nil, ExitUsage
					}
				}
				fmt.Fprintf(stderr, "%s: %s.\n", c.name(), gpu.NoGPUReason(err))
				if o.Info { // the kernels' names are the library's; their attributes are the GPU's
					c.infoNames(stdout, device)
					fmt.Fprintf(stderr, "Registers and memory per kernel are read from a GPU's driver; above are the kernels by name (-list: domains and bytes, no GPU needed).\n")
					return nil, ExitNoGPU
				}
				if len(c.HostVariants) > 0 {
					fmt.Fprintf(stderr, "The host version runs without one: %s\n", hostCommandLine(os.Args, c.name(), c.HostVariants[0].Name))
				}
				return nil, ExitNoGPU
			}
			fmt.Fprintf(stderr, "%s: %v\n", c.name(), err)
			return nil, ExitFailed
		}
	}
	if o.Info {
		return nil, c.info(stdout, stderr, device)
	}
	if dev != nil { // every size of a sweep, before its first runs
		for _, n := range o.Sizes {
			if msg := memoryAdvice(n, c.DeviceBytes, float64(dev.FreeBytes), float64(2*ceilingBytes), "device"); msg != "" {
				fmt.Fprintf(stderr, "%s: %s (%s has %.1f GB free)\n", c.name(), msg, dev.Name, float64(dev.FreeBytes)/1e9)
				return nil, ExitUsage
			}
		}
	}
	if len(o.Sizes) > 1 && o.N == o.Sizes[0] && o.Variant != "all" { // a sweep: every later size's domains, on this device, before any work
		if err := c.checkSweepDomains(o, dev, chosen, hosts); err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", c.name(), err)
			return nil, ExitUsage
		}
	}
	plans := make([]gpu.Plan, len(chosen))
	refused := make([]string, len(chosen))
	for i, v := range chosen {
		if v.OwnGrid && o.Blocks != 0 {
			refused[i] = "outside domain: it sizes its own grid (-blocks 0)"
			continue
		}
		plans[i], err = c.Plan(dev, gpu.Request{Variant: v, N: o.N, Threads: o.Threads, Blocks: o.Blocks})
		switch {
		case errors.Is(err, gpu.ErrOutsideDomain) && o.Variant != "all":
			c.refuseDomain(stderr, v, o, err)
			return nil, ExitUsage
		case errors.Is(err, gpu.ErrOutsideDomain):
			refused[i] = "outside domain: " + v.Domain
		case errors.Is(err, gpu.ErrUnavailable): // (a library loaded at run time, not installed here: the row says so)
			var e *gpu.Error
			errors.As(err, &e)
			refused[i] = e.Text
		case err != nil:
			fmt.Fprintf(stderr, "%s: %v\n", c.name(), err)
			return nil, ExitFailed
		}
	}
	if o.multi() { // NCCL and the GPUs first, before any row runs
		if err := preflightMulti(o); err != nil {
			if gpu.NoGPU(err) {
				fmt.Fprintf(stderr, "%s: %s.\n", c.name(), gpu.NoGPUReason(err))
				return nil, ExitNoGPU
			}
			fmt.Fprintf(stderr, "%s: %v\n", c.name(), err)
			return nil, ExitUsage
		}
	}
	r, err := c.measure(o, dev, chosen, plans, refused, hosts, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", c.name(), err)
		if _, ok := err.(usageError); ok {
			return nil, ExitUsage
		}
		return nil, ExitFailed
	}
	return r, ExitOK
}

// refuseDomain says, in one line, that a variant does not cover the request, and what does.
func (c Command) refuseDomain(stderr io.Writer, v gpu.Variant, o Options, err error) {
	detail := ""
	var d *gpu.DomainDetail
	if errors.As(err, &d) {
		detail = " (" + d.Detail + ")"
	}
	fmt.Fprintf(stderr, "%s: -variant %s does not cover -n %d -threads %d -blocks %d%s: its domain is %s%s\n",
		c.name(), v.Name, o.N, o.Threads, o.Blocks, strings.TrimRight(" "+c.params(), " "), v.Domain, detail)
}

// measure opens the session, measures the copy ceiling and runs every chosen variant.
func (c Command) measure(o Options, dev *gpu.Device, chosen []gpu.Variant, plans []gpu.Plan, refused []string,
	hosts []HostVariant, stderr io.Writer) (*report.Report, error) {
	stop := showProgress(stderr, c.name()+": preparing the inputs and the reference")
	s, err := c.Open(o, dev)
	stop()
	if err != nil {
		return nil, err
	}
	defer s.Free()
	r := &report.Report{Program: c.name(), Device: "host only", N: o.N, Seed: o.Seed, Reps: o.Reps, Unit: c.Program.Unit,
		ErrorKind: c.ErrorKind, Scalar: c.Scalar, Params: c.params(), Baseline: c.Baseline, CopyGBps: report.Num(math.NaN()), H2DMs: report.Num(s.H2DMs()),
		Commit: commit, Date: time.Now().UTC().Format(time.RFC3339), Input: strings.Join(o.Inputs, " "), FromFiles: o.FromFiles}
	if dev != nil {
		r.Device, r.L2Bytes = dev.Name, float64(dev.L2Bytes)
		timer, err := gpu.NewTimer()
		if err != nil {
			return nil, err
		}
		defer timer.Free()
		times, err := gpu.CopyTimes(ceilingBytes, rounds(o.Reps), timer)
		if err != nil {
			return nil, err
		}
		r.CopyGBps = report.Num(report.GBps(2*ceilingBytes, report.Median(times)))
		// where every variant copies the same outputs back, the copy says nothing about a step:
		// speed-ups leave it out (razdalja's g copies n squares, the others one sum: they keep it)
		outputs := map[int64]bool{}
		for i := range chosen {
			if refused[i] == "" {
				outputs[plans[i].Header().OutCount] = true
			}
		}
		r.WorkOnly = len(outputs) == 1
		for i, v := range chosen {
			if refused[i] != "" {
				r.Rows = append(r.Rows, report.RefusedRow(v.Name, refused[i]))
				continue
			}
			h := plans[i].Header()
			scratch, err := h.AllocScratch()
			if err != nil {
				return nil, fmt.Errorf("variant %s: %w", v.Name, err)
			}
			stop := showProgress(stderr, c.name()+": running "+v.Name)
			row, err := s.RunDevice(plans[i], scratch, timer)
			stop()
			scratch.Free()
			if err != nil {
				return nil, fmt.Errorf("variant %s: %w", v.Name, err)
			}
			row.Variant, row.Threads, row.Blocks, row.Bytes, row.Items = v.Name, h.Threads, h.Blocks, report.Num(h.BytesMoved), h.Items
			if h.Launches > 1 {
				row.Note = strings.TrimSpace(fmt.Sprintf("%d launches  %s", h.Launches, row.Note))
			}
			r.Rows = append(r.Rows, row)
		}
	}
	if o.multi() {
		if err := c.measureMulti(o, s, r, stderr); err != nil {
			return nil, err
		}
	}
	for _, h := range hosts {
		if why := h.outside(o.N); why != "" { // (named, it was refused before the work)
			r.Rows = append(r.Rows, report.RefusedRow(h.Name, "outside domain: "+why))
			continue
		}
		stop := showProgress(stderr, c.name()+": running "+h.Name)
		row, err := s.RunHost(h.Name)
		stop()
		if err != nil {
			return nil, fmt.Errorf("variant %s: %w", h.Name, err)
		}
		row.Variant = h.Name
		if row.Items == 0 {
			row.Items = o.N
		}
		r.Rows = append(r.Rows, row)
	}
	if o.Reps == 0 && len(r.Rows) > 0 {
		r.Note("%s", StopNote())
	}
	r.Derive()
	return r, nil
}

func (c Command) parse(args []string, stderr io.Writer) (Options, error) {
	o := Options{N: c.DefaultN}
	fs := flag.NewFlagSet(c.name(), flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Var((*SizeList)(&o.Sizes), "n", "elements (1000000, 1e6, 2^20, 1<<20, 2^20+3), or several: a list 2^10,2^20,2^28 or a range of\n"+
		"powers of two 2^10..2^28 (2^10..2^28x4: every other one); each size is run in turn")
	fs.StringVar(&o.Plot, "plot", "", "draw the run to this .svg file: GB/s against n for a sweep, the variants as bars for one size")
	fs.StringVar(&o.CSV, "csv", "", "also write every row, one a (variant, size), with the run's parameters, to this .csv file")
	fs.StringVar(&o.Variant, "variant", c.Default, "variant name (see -list), a comma-separated list of them ("+c.listExample()+"), or all for a table of every variant")
	fs.IntVar(&o.Threads, "threads", 0, "threads per block: a multiple of 32 from 32 to 1024; 0 lets each variant choose")
	fs.IntVar(&o.Blocks, "blocks", 0, "blocks; 0 computes them from n, threads and the device")
	fs.Int64Var(&o.Seed, "seed", 1, "seed of the random inputs")
	fs.IntVar(&o.Reps, "reps", 0, "timed runs of each row, after one warm-up (the median is reported); 0: until their spread\n"+
		"is at most 1% (at least 10 runs and 50 ms, at most 1 s or 5000 runs)")
	fs.BoolVar(&o.List, "list", false, "list the variants with their domains and bytes moved, and exit")
	fs.BoolVar(&o.Info, "info", false, "print each variant's kernel attributes (registers, shared, local, constant memory, max threads) and exit")
	fs.BoolVar(&o.JSON, "json", false, "print the report as JSON")
	fs.BoolVar(&o.Benchmarks, "benchmarks", false, "print the argument lines of this program's benchmark tables and exit")
	o.counterFlags(fs)
	if c.Multi {
		o.multiFlags(fs)
	}
	if c.Flags != nil {
		c.Flags(fs)
	}
	fs.Usage = func() {} // -h prints help() alone; a parse error its message and the hint below
	help := func() {
		fmt.Fprintf(stderr, "%s: %s\n\nUsage: %s [flags]\n\n", c.name(), c.About, c.name())
		fs.PrintDefaults()
		fmt.Fprintf(stderr, "\nVariants (-list for domains):\n")
		for _, v := range c.Program.Variants() {
			fmt.Fprintf(stderr, "  %-6s %s\n", v.Name, v.Summary)
		}
		for _, h := range c.HostVariants {
			fmt.Fprintf(stderr, "  %-6s %s\n", h.Name, h.Summary)
		}
		fmt.Fprintf(stderr, "\nExit status: 0 ok, 1 verification failed (or a GPU error), 2 bad usage, 3 no usable GPU.\n")
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			help()
		} else {
			fmt.Fprintf(stderr, "run %s -h for the flags and variants\n", c.name())
		}
		return o, err
	}
	if fs.NArg() > 0 {
		return o, usagef("unexpected argument %q (flags only; see -h)", fs.Arg(0))
	}
	o.args, o.flags = args, fs
	o.Set = map[string]bool{}
	var empty error // a flag given an empty value: a file name, a variant or a word left out
	fs.Visit(func(f *flag.Flag) {
		o.Set[f.Name] = true
		if g, ok := f.Value.(flag.Getter); ok && empty == nil {
			if s, ok := g.Get().(string); ok && strings.TrimSpace(s) == "" {
				empty = usagef("-%s is empty: give it a value (-h shows what it takes)", f.Name)
			}
		}
	})
	if empty != nil {
		return o, empty
	}
	for _, name := range []string{"a", "b", "keys", "values", "flags", "in"} { // the data files, in the header
		if f := fs.Lookup(name); f != nil && o.Set[name] {
			o.Inputs = append(o.Inputs, f.Value.String())
			o.FromFiles = o.FromFiles || name == "a" || name == "keys" || name == "in"
		}
	}
	if len(o.Sizes) > 0 {
		o.N = o.Sizes[0]
	}
	if len(o.Sizes) > 1 {
		seen := map[int64]bool{}
		for _, n := range o.Sizes {
			if n < 1 {
				return o, usagef("-n must be at least 1 (got %d in the list)", n)
			}
			if seen[n] {
				return o, usagef("-n lists %d twice: a sweep runs each size once", n)
			}
			seen[n] = true
		}
		if o.Set["o"] {
			return o, usagef("-o writes one size's output: give -n one size with -o (the sweep's rows go to -csv)")
		}
	}
	err := c.validate(&o)
	if len(o.Sizes) > 1 && o.N != o.Sizes[0] {
		return o, usagef("-n with several sizes cannot take its size from a data file")
	}
	if len(o.Sizes) <= 1 {
		o.Sizes = []int64{o.N} // (a data file may have set it)
	}
	return o, err
}

// hostCommandLine is the user's own command line with -variant set to host (and no -gpus or
// -nranks, which need GPUs): the program as it was started (under `go run`, as `go run ./cmd/NAME`), every other argument as given.
func hostCommandLine(argv []string, name, host string) string {
	prog := name
	if len(argv) > 0 {
		prog = argv[0]
		if strings.Contains(prog, "go-build") { // a binary `go run` built and removes
			prog = "go run ./cmd/" + name
		}
	}
	out := []string{prog}
	dropped := map[string]bool{"variant": true, "gpus": true, "rank": true, "nranks": true, "coordinator": true}
	for i := 1; i < len(argv); i++ {
		a := strings.TrimLeft(argv[i], "-")
		switch {
		case dropped[a] && strings.HasPrefix(argv[i], "-") && i+1 < len(argv):
			i++ // its value goes
		case strings.HasPrefix(argv[i], "-") && dropped[strings.SplitN(a, "=", 2)[0]]:
		default:
			out = append(out, argv[i])
		}
	}
	return strings.Join(append(out, "-variant", host), " ")
}

func (c Command) validate(o *Options) error {
	if err := (&Writer{Path: o.CSV, Exts: []string{".csv"}}).Check(); err != nil {
		return usagef("-csv%s", strings.TrimPrefix(err.Error(), "-o"))
	}
	if err := (&Writer{Path: o.Plot, Exts: []string{".svg"}}).Check(); err != nil {
		return usagef("-plot%s", strings.TrimPrefix(err.Error(), "-o"))
	}
	if err := c.checkCounters(o); err != nil {
		return err
	}
	switch {
	case o.N < 1:
		return usagef("-n must be at least 1 (got %d)", o.N)
	case o.Threads != 0 && (o.Threads < 32 || o.Threads > 1024 || o.Threads%32 != 0):
		return usagef("-threads must be a multiple of 32 from 32 to 1024 (got %d)", o.Threads)
	case o.Blocks < 0 || int64(o.Blocks) > 1<<31-1:
		return usagef("-blocks must be from 0 (computed) to 2147483647 (got %d)", o.Blocks)
	case o.Reps < 0 || o.Reps > 100000:
		return usagef("-reps must be from 1 to 100000, or 0 for the stop rule (got %d)", o.Reps)
	}
	if err := c.Check(o); err != nil {
		return usageError{err.Error()}
	}
	names := []string{}
	for _, v := range c.Program.Variants() {
		names = append(names, v.Name)
	}
	for _, h := range c.HostVariants {
		names = append(names, h.Name)
	}
	for _, want := range o.listed() {
		if want == "all" {
			return usagef("-variant all stands alone: it already runs every variant (or list the ones you want: %s)", strings.Join(names, ","))
		}
		known := false
		for _, n := range names {
			known = known || want == n
		}
		if !known {
			return usagef("-variant %q is unknown; choose one of %s (or several, comma-separated), all", want, strings.Join(names, ", "))
		}
	}
	return c.checkMulti(o)
}

// listExample is a -variant list of this command's own: its default beside its library (or its
// host variant).
func (c Command) listExample() string {
	other := ""
	for _, v := range c.Program.Variants() {
		if v.Library && v.Name != c.Default {
			other = v.Name
		}
	}
	if other == "" && len(c.HostVariants) > 0 {
		other = c.HostVariants[0].Name
	}
	if other == "" {
		return c.Default
	}
	return c.Default + "," + other
}

func (c Command) list(w io.Writer, device []gpu.Variant) {
	fmt.Fprintf(w, "%s: %s\n\n", c.name(), c.About)
	for _, v := range device {
		extra := ""
		if v.Managed {
			extra = " [unified memory]"
		}
		fmt.Fprintf(w, "%-6s %s%s\n       domain: %s\n       bytes moved: %s\n", v.Name, v.Summary, extra, v.Domain, v.Bytes)
	}
	for _, h := range c.HostVariants {
		domain := "any n"
		if h.Outside != nil {
			domain = h.Outside(1<<62) + ";"
		}
		fmt.Fprintf(w, "%-6s %s\n       domain: %s (host, no GPU needed)\n", h.Name, h.Summary, domain)
	}
	c.listClaims(w)
}

// infoNames lists every kernel a variant can launch, by name (what -info shows without a GPU).
func (c Command) infoNames(w io.Writer, device []gpu.Variant) {
	fmt.Fprintf(w, "%-8s %s\n", "variant", "kernel")
	for _, v := range device {
		if len(v.Kernels) == 0 {
			fmt.Fprintf(w, "%-8s %s\n", v.Name, "(library baseline: its kernels are the library's)")
		}
		for _, k := range v.Kernels {
			fmt.Fprintf(w, "%-8s %s\n", v.Name, k)
		}
	}
}

func (c Command) info(stdout, stderr io.Writer, device []gpu.Variant) int {
	fmt.Fprintf(stdout, "%-8s %-36s %9s %13s %11s %11s %11s\n", "variant", "kernel", "registers", "static shared", "local bytes", "const bytes", "max threads")
	for _, v := range device {
		ks, err := c.Program.KernelInfos(v)
		if err != nil {
			fmt.Fprintf(stderr, "%s: %v\n", c.name(), err)
			return ExitFailed
		}
		if len(ks) == 0 {
			fmt.Fprintf(stdout, "%-8s %s\n", v.Name, "(library baseline: its kernels are the library's)")
		}
		for _, k := range ks {
			fmt.Fprintf(stdout, "%-8s %-36s %9d %13d %11d %11d %11d\n", v.Name, k.Kernel, k.Registers, k.StaticSharedBytes,
				k.LocalBytes, k.ConstBytes, k.MaxThreadsPerBlock)
		}
	}
	return ExitOK
}

// memoryAdvice is "" when a run of n items fits in free bytes of device memory beside the copy
// ceiling's two buffers; otherwise it says how much n needs and the largest n that fits. Sizes are
// float64 so that no n wraps them; the largest n is found by bisection on the same function.
func memoryAdvice(n int64, bytes func(int64) float64, free, reserve float64, what string) string {
	fits := func(m int64) bool { return bytes(m)+reserve <= free }
	if fits(n) {
		return ""
	}
	need := fmt.Sprintf("-n %d needs %.1f GB of %s memory", n, (bytes(n)+reserve)/1e9, what)
	if !fits(1) {
		return need + "; not even -n 1 fits"
	}
	lo, hi := int64(1), n // fits(lo), !fits(hi)
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return fmt.Sprintf("%s: use -n %d or less", need, lo)
}

// showProgress tells a person at a terminal what a step is doing once it has taken over two
// seconds: one line on w, rewritten each second with the time so far, cleared when stop is called.
// Where w is not a terminal (a pipe, a file, a test), nothing is written.
func showProgress(w io.Writer, what string) (stop func()) {
	f, ok := w.(*os.File)
	if !ok {
		return func() {}
	}
	if st, err := f.Stat(); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		return func() {}
	}
	return progressTo(f, what, 2*time.Second, time.Second)
}

// progressTo writes what and the seconds since the start to w after delay, every tick, until
// stop, which clears the line it wrote (and waits for the writer to finish).
func progressTo(w io.Writer, what string, delay, tick time.Duration) (stop func()) {
	done, finished := make(chan struct{}), make(chan struct{})
	start := time.Now()
	go func() {
		defer close(finished)
		wrote := false
		timer := time.NewTimer(delay)
		defer timer.Stop()
		for {
			select {
			case <-done:
				if wrote {
					fmt.Fprint(w, "\r\033[K")
				}
				return
			case <-timer.C:
				fmt.Fprintf(w, "\r\033[K%s (%.0f s)", what, time.Since(start).Seconds())
				wrote = true
				timer.Reset(tick)
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// hostAvailable is the host memory available to a new run (Linux's MemAvailable), 0 where unknown.
func hostAvailable() float64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		var kb float64
		if _, err := fmt.Sscanf(line, "MemAvailable: %f kB", &kb); err == nil {
			return kb * 1024
		}
	}
	return 0
}

// listed is -variant's names (one, or a comma-separated list); nil for all.
func (o Options) listed() []string {
	if o.Variant == "all" {
		return nil
	}
	if o.Variant == "" { // (-nranks: the ranks past 0 run no row of one GPU)
		return []string{}
	}
	return strings.Split(o.Variant, ",")
}

// picks says whether -variant chose the named variant: all, the name, or a list that holds it.
func (o Options) picks(name string) bool {
	names := o.listed()
	for _, v := range names {
		if v == name {
			return true
		}
	}
	return names == nil
}

// commit is buildCommit's answer, read once.
var commit = buildCommit()

// buildCommit is the commit go build stamped into the command (vcs.revision), with "+dirty" where
// the tree had changes, or "" (go run, go test, or a build outside git).
func buildCommit() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	var rev, dirty string
	for _, kv := range info.Settings {
		switch {
		case kv.Key == "vcs.revision":
			rev = kv.Value
		case kv.Key == "vcs.modified" && kv.Value == "true":
			dirty = "+dirty"
		}
	}
	if rev == "" {
		return ""
	}
	return rev + dirty
}
