// Package cli is what every command shares: the flags, their checks, the exit codes, the
// no-GPU message, -list and -info, and the loop that runs the chosen variants into one report.
// A command supplies its inputs and how one variant runs and is verified (a Session).
//
// By concern: cli.go (the run loop: sizes, devices, plans, rows, the report's outputs), flags.go,
// info.go (-list, -info), memory.go, progress.go, version.go, count.go (-n), stop.go (when to stop
// timing), timing.go, poison.go (the checked runs), inputs.go (data files), outputs.go (-o),
// counters.go, multi.go.
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
	Plot       string          // -plot FILE.svg: GB/s (or items a second) against n (a sweep), or the variants' bars (one size)
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

// outsideAt is the first size of -n outside h's domain and why ("" where h covers them all).
func (h HostVariant) outsideAt(o Options) (int64, string) {
	for _, n := range o.Sizes {
		if why := h.outside(n); why != "" {
			return n, why
		}
	}
	return 0, ""
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

// checkSweep checks every size of -n before any runs, as far as the host knows: the command's own
// check, the host memory each needs against what is available now (a sweep frees each size
// before the next), and the named host variants' domains.
func (c Command) checkSweep(o *Options) error {
	if len(o.Sizes) < 2 {
		return nil
	}
	avail := hostAvailable()
	device := c.wantsDevice(*o)
	defer func() { o.N = o.Sizes[0] }()
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
	for _, h := range c.HostVariants {
		if o.Variant != "all" && o.picks(h.Name) {
			if err := c.hostOutside(h, *o); err != nil {
				return usagef("%v; nothing was run", err)
			}
		}
	}
	return nil
}

// checkLaterSizes checks, at a sweep's first size, what every later size needs of the device (dev,
// or without a GPU the no-GPU profile): its memory, and each named variant's domain (the command's
// check first, for what it derives from n); then o's own size is checked again.
func (c Command) checkLaterSizes(o Options, dev *gpu.Device, chosen []gpu.Variant) error {
	if len(o.Sizes) < 2 || o.N != o.Sizes[0] {
		return nil
	}
	defer c.Check(&o)
	for _, n := range o.Sizes[1:] {
		at := o
		at.N = n
		if err := c.Check(&at); err != nil {
			return err
		}
		if err := c.deviceFits(at, dev); err != nil {
			return err
		}
		if o.Variant == "all" {
			continue
		}
		for _, v := range chosen {
			if v.OwnGrid && o.Blocks != 0 {
				continue
			}
			if _, err := c.Plan(dev, gpu.Request{Variant: v, N: n, Threads: o.Threads, Blocks: o.Blocks}); errors.Is(err, gpu.ErrOutsideDomain) {
				return usagef("%v; nothing was run", c.domainError(v, at, err))
			}
		}
	}
	return nil
}

// deviceFits says, where there is a device, whether a run of o.N fits its free memory beside the
// copy ceiling's two buffers.
func (c Command) deviceFits(o Options, dev *gpu.Device) error {
	if dev == nil {
		return nil
	}
	if msg := memoryAdvice(o.N, c.DeviceBytes, float64(dev.FreeBytes), float64(2*ceilingBytes), "device"); msg != "" {
		return usagef("%s (%s has %.1f GB free)", msg, dev.Name, float64(dev.FreeBytes)/1e9)
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
			if err := c.hostOutside(h, o); err != nil && o.Variant != "all" {
				fmt.Fprintf(stderr, "%s: %v\n", c.name(), err)
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
						fmt.Fprintf(stderr, "%s: %v\n", c.name(), c.domainError(v, o, err))
						return nil, ExitUsage
					}
				}
				if err := c.checkLaterSizes(o, nil, chosen); err != nil {
					fmt.Fprintf(stderr, "%s: %v\n", c.name(), err)
					return nil, ExitUsage
				}
				fmt.Fprintf(stderr, "%s: %s.\n", c.name(), gpu.NoGPUReason(err))
				if o.Info { // the kernels' names are the library's; their attributes are the GPU's
					c.infoNames(stdout, device)
					fmt.Fprintf(stderr, "Registers and memory per kernel are read from a GPU's driver; above are the kernels by name (-list: domains and bytes, no GPU needed).\n")
					return nil, ExitNoGPU
				}
				c.hostAdvice(stderr, o)
				return nil, ExitNoGPU
			}
			fmt.Fprintf(stderr, "%s: %v\n", c.name(), err)
			return nil, ExitFailed
		}
	}
	if o.Info {
		return nil, c.info(stdout, stderr, device)
	}
	if err := FirstError(c.deviceFits(o, dev), c.checkLaterSizes(o, dev, chosen)); err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", c.name(), err)
		return nil, ExitUsage
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
			fmt.Fprintf(stderr, "%s: %v\n", c.name(), c.domainError(v, o, err))
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

// domainError says, in one line, that a variant does not cover the request, and what does.
func (c Command) domainError(v gpu.Variant, o Options, err error) error {
	detail := ""
	var d *gpu.DomainDetail
	if errors.As(err, &d) {
		detail = " (" + d.Detail + ")"
	}
	return usagef("-variant %s does not cover -n %d -threads %d -blocks %d%s: its domain is %s%s",
		v.Name, o.N, o.Threads, o.Blocks, strings.TrimRight(" "+c.params(), " "), v.Domain, detail)
}

// hostAdvice names, where there is no GPU, the first host variant whose domain covers every size
// of -n, or each one's domain where none does.
func (c Command) hostAdvice(stderr io.Writer, o Options) {
	var domains []string
	for _, h := range c.HostVariants {
		n, why := h.outsideAt(o)
		if why == "" {
			fmt.Fprintf(stderr, "The host version runs without one: %s\n", hostCommandLine(os.Args, c.name(), h.Name))
			return
		}
		domains = append(domains, fmt.Sprintf("%s's domain is %s (not -n %d)", h.Name, why, n))
	}
	if len(domains) > 0 {
		fmt.Fprintf(stderr, "No host version covers -n here: %s.\n", strings.Join(domains, "; "))
	}
}

// hostOutside is domainError's for a host variant, nil where it covers every size of -n.
func (c Command) hostOutside(h HostVariant, o Options) error {
	if n, why := h.outsideAt(o); why != "" {
		return usagef("-variant %s does not cover -n %d%s: its domain is %s", h.Name, n, strings.TrimRight(" "+c.params(), " "), why)
	}
	return nil
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
