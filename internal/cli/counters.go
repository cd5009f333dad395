package cli

// -counters: why each step is faster. After the timing run, the command runs itself again under
// Nsight Compute (ncu) once a device variant that ran: one run of that variant, its kernels only
// (-k, not the timing gate), bounded by cudaProfilerStart/Stop around its first run (the child,
// marked by counterChildEnv, starts and stops the profiler there: profileFirst). ncu's CSV gives
// the counters of the run's kernels, summed into the row (report.SumLaunches), and the program's
// claims are checked on them. Without ncu, or without the permission to read counters, one line
// says why and how to enable them; the timing table and the exit status are as without -counters.

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"tecaj/internal/gpu"
	"tecaj/internal/report"
)

// Claim is what a lecture says a step changes (report.Claim): a program lists its own in
// Command.Claims, and docs/P.md lists the same in words.
type Claim = report.Claim

// counterChildEnv marks the command ncu runs: it profiles its first run only (profileFirst).
const counterChildEnv = "TECAJ_COUNTERS_CHILD"

// counterTimeout is the longest one variant's profiled run may take (ncu replays each kernel
// once a pass); past it the child is killed and the row says so.
var counterTimeout = 5 * time.Minute

// gateKernel is the timing gate's kernel (cuda/runtime/tecaj.cu), never counted.
const gateKernel = "gate_kernel"

// ncuDirs are the folders searched for ncu after PATH: beside nvcc, $CUDA_HOME/bin, the toolkit's
// default place (a variable, so that tests can search nowhere).
var ncuDirs = func() []string {
	var dirs []string
	if nvcc, err := exec.LookPath("nvcc"); err == nil {
		dirs = append(dirs, filepath.Dir(nvcc))
	}
	for _, env := range []string{"CUDA_HOME", "CUDA_PATH"} {
		if d := os.Getenv(env); d != "" {
			dirs = append(dirs, filepath.Join(d, "bin"))
		}
	}
	return append(dirs, "/usr/local/cuda/bin")
}

// findNcu is ncu's path: on PATH, else in one of ncuDirs; "" where there is none.
func findNcu() string {
	if p, err := exec.LookPath("ncu"); err == nil {
		return p
	}
	for _, d := range ncuDirs() {
		p := filepath.Join(d, "ncu")
		if st, err := os.Stat(p); err == nil && !st.IsDir() && st.Mode()&0o111 != 0 {
			return p
		}
	}
	return ""
}

// The reasons -counters gives for a report without counters.
const (
	noNcuNote = "not read: no ncu (Nsight Compute, part of the CUDA toolkit) on PATH, beside nvcc or in $CUDA_HOME/bin; " +
		"install it or put its folder on PATH"
	permissionNote = "not read: this user may not read the GPU's performance counters (ncu: ERR_NVGPUCTRPERM); run as an " +
		"administrator, or allow every user with `sudo modprobe nvidia NVreg_RestrictProfilingToAdminUsers=0` " +
		"(options nvidia ... in /etc/modprobe.d to keep it; https://developer.nvidia.com/ERR_NVGPUCTRPERM)"
)

// counterFlags adds -counters and -plot-counter (-html is with the other files: addHTMLFlag).
func (o *Options) counterFlags(fs *flag.FlagSet) {
	fs.BoolVar(&o.Counters, "counters", false, "also measure each device variant's hardware counters with Nsight Compute (ncu): divergent\n"+
		"branches, shared bank conflicts, active and launched warps, DRAM bytes, instructions per warp; and check the\n"+
		"lecture's claims on them (one extra profiled run a variant)")
	fs.StringVar(&o.PlotCounter, "plot-counter", "", "with -counters and -plot of one size: draw this counter's bars instead of GB/s: "+
		strings.Join(report.CounterKeys, ", "))
	fs.StringVar(&o.HTML, "html", "", "also write the run as one self-contained page to this .html file: the device, the tables, the\n"+
		"counters and claims (with -counters), the picture and each variant's summary")
}

// checkCounters checks -counters, -plot-counter and -html before any work.
func (c Command) checkCounters(o *Options) error {
	for _, cl := range c.Claims { // (the program's own list: a wrong name is the program's bug)
		_, ok := c.Program.Variant(cl.Variant)
		_, okThan := c.Program.Variant(cl.Than)
		if !ok || !(okThan || cl.Than == "") || report.CounterTitle(cl.Counter) == "" {
			return fmt.Errorf("the program's claim %+v names an unknown variant or counter", cl)
		}
	}
	if err := (&Writer{Path: o.HTML, Exts: []string{".html", ".htm"}}).Check(); err != nil {
		return usagef("-html%s", strings.TrimPrefix(err.Error(), "-o"))
	}
	if o.PlotCounter == "" {
		return nil
	}
	switch {
	case report.CounterTitle(o.PlotCounter) == "":
		return usagef("-plot-counter %q is unknown; choose one of %s", o.PlotCounter, strings.Join(report.CounterKeys, ", "))
	case !o.Counters:
		return usagef("-plot-counter %s needs -counters", o.PlotCounter)
	case o.Plot == "" && o.HTML == "":
		return usagef("-plot-counter %s draws the -plot (or -html) picture: give one", o.PlotCounter)
	case len(o.Sizes) > 1:
		return usagef("-plot-counter draws one size's bars; -n names %d sizes", len(o.Sizes))
	}
	return nil
}

// counterChild says whether this process is the run ncu profiles.
func counterChild() bool { return os.Getenv(counterChildEnv) != "" }

// childMode is counterChildEnv's value: "all" where the variant ran among -variant all (razlika's
// 1 then runs as the step, not as the lecture's failure), else "1".
func childMode(o Options) string {
	if o.Variant == "all" {
		return "all"
	}
	return "1"
}

// Named says whether -variant named the variants (not all): the lessons that fail run only then.
func (o Options) Named() bool { return o.Variant != "all" && os.Getenv(counterChildEnv) != "all" }

// profiled is set once the child's run has been profiled.
var profiled bool

// profileFirst wraps a variant's run: in the child ncu profiles, its first call runs between
// cudaProfilerStart and cudaProfilerStop; every other call, and every call elsewhere, runs as it is.
func profileFirst(run func() error) func() error {
	if !counterChild() {
		return run
	}
	return func() error {
		if profiled {
			return run()
		}
		profiled = true
		if err := gpu.ProfilerStart(); err != nil {
			return err
		}
		err := run()
		if serr := gpu.ProfilerStop(); err == nil {
			err = serr
		}
		return err
	}
}

// addCounters measures the counters of every device row of r that ran and checks the claims.
func (c Command) addCounters(o Options, r *report.Report, stderr io.Writer) {
	var device []int // the rows to profile
	for i := range r.Rows {
		row := &r.Rows[i]
		if _, ok := c.Program.Variant(row.Variant); ok && row.Refused == "" {
			device = append(device, i)
		} else if row.Refused == "" {
			row.CountersWhy = "several GPUs: not profiled (its one-GPU row is)"
			for _, h := range c.HostVariants {
				if h.Name == row.Variant {
					row.CountersWhy = "runs on the host: no GPU counters"
				}
			}
		}
	}
	if len(device) == 0 {
		return
	}
	ncu := findNcu()
	if ncu == "" {
		r.CountersNote = noNcuNote
		return
	}
	exe, err := os.Executable()
	if err != nil {
		r.CountersNote = "not read: " + err.Error()
		return
	}
	for _, i := range device {
		row := &r.Rows[i]
		v, _ := c.Program.Variant(row.Variant)
		stop := showProgress(stderr, c.name()+": measuring the counters of "+v.Name)
		counters, why, err := profile(ncu, exe, childArgs(o, v.Name), kernelFilter(v), childMode(o))
		stop()
		if errors.Is(err, errNoPermission) {
			r.CountersNote = permissionNote
			for j := range r.Rows {
				r.Rows[j].Counters, r.Rows[j].CountersWhy = nil, ""
			}
			return
		}
		row.Counters, row.CountersWhy = counters, why
	}
	r.Check(c.Claims)
}

var errNoPermission = errors.New(report.NcuPermission)

// profile runs the command (exe with args: one variant) under ncu, its kernels only where
// filter names them: the counters, or why there are none (errNoPermission: this user can read
// none).
func profile(ncu, exe string, childArgs []string, filter, mode string) (*report.Counters, string, error) {
	args := []string{"--csv", "--print-units", "base", "--profile-from-start", "off", "--metrics", strings.Join(report.NcuMetrics, ",")}
	run := func(filter string) (*report.Counters, string, error) {
		a := args
		if filter != "" {
			a = append(append([]string(nil), a...), "--kernel-name-base", "function", "--kernel-name", filter)
		}
		a = append(append(a, exe), childArgs...)
		out, err := runTimed(ncu, a, counterTimeout, mode)
		if report.NcuRefused(out) {
			return nil, "", errNoPermission
		}
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, fmt.Sprintf("ncu did not finish in %s", counterTimeout), nil
		}
		launches, perr := report.ParseNcuCSV(out)
		counters := report.SumLaunches(launches, gateKernel)
		if perr == nil && counters.Kernels > 0 {
			return counters, "", nil
		}
		why := "ncu measured no kernel"
		if err != nil {
			why = "ncu failed (" + err.Error() + "): " + lastLine(out)
		}
		return nil, why, nil
	}
	counters, why, err := run(filter)
	if counters == nil && err == nil && filter != "" && !strings.HasPrefix(why, "ncu did not finish") {
		// the filter matched nothing (a kernel ncu names otherwise) or this ncu refused it: the
		// profiled range alone holds one run
		return run("")
	}
	return counters, why, err
}

// kernelFilter is ncu's -k filter for a variant's kernels (the variant table's names, without
// instantiation or namespace); "" for a library's, which lists none (the profiled range holds one
// run, and the gate is left out by name).
func kernelFilter(v gpu.Variant) string {
	if len(v.Kernels) == 0 {
		return ""
	}
	return kernelRegex(v.Kernels)
}

// kernelRegex is ncu's filter for kernels named as the variant table names them
// ("reduce_r0<float,sum>"): their function names, each once, anchored at both ends.
func kernelRegex(kernels []string) string {
	seen := map[string]bool{}
	var names []string
	for _, name := range kernels {
		if i := strings.IndexAny(name, "<("); i >= 0 {
			name = name[:i]
		}
		if i := strings.LastIndex(name, "::"); i >= 0 {
			name = name[i+2:]
		}
		if name != "" && !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	}
	return "regex:(^|::)(" + strings.Join(names, "|") + ")($|[<(])"
}

// childArgs are the command's own arguments for the profiled run of one variant: every flag as
// given but the files, the report's form, the GPUs' spread and the sizes, then -variant NAME
// -reps 1 and this size.
func childArgs(o Options, variant string) []string {
	drop := map[string]bool{"counters": true, "plot-counter": true, "csv": true, "plot": true, "html": true, "o": true, "json": true,
		"variant": true, "reps": true, "n": true, "gpus": true, "rank": true, "nranks": true, "coordinator": true}
	isBool := func(name string) bool {
		if o.flags == nil {
			return false
		}
		f := o.flags.Lookup(name)
		if f == nil {
			return false
		}
		b, ok := f.Value.(interface{ IsBoolFlag() bool })
		return ok && b.IsBoolFlag()
	}
	var out []string
	for i := 0; i < len(o.args); i++ {
		a := o.args[i]
		if a == "--" || !strings.HasPrefix(a, "-") {
			out = append(out, a)
			continue
		}
		name := strings.TrimLeft(a, "-")
		eq := strings.Contains(name, "=")
		name = strings.SplitN(name, "=", 2)[0]
		takesNext := !eq && !isBool(name) && i+1 < len(o.args)
		if !drop[name] {
			out = append(out, a)
		}
		if takesNext {
			if !drop[name] {
				out = append(out, o.args[i+1])
			}
			i++
		}
	}
	out = append(out, "-variant", variant, "-reps", "1")
	if o.Set["n"] {
		out = append(out, "-n", strconv.FormatInt(o.N, 10))
	}
	return out
}

// runTimed runs a command with counterChildEnv set and returns its output (stdout and stderr);
// past limit, it kills the command's process group and returns context.DeadlineExceeded.
func runTimed(name string, args []string, limit time.Duration, mode string) ([]byte, error) {
	cmd := exec.Command(name, args...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Env = append(os.Environ(), counterChildEnv+"="+mode)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // (ncu and the command it runs, killed together)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	interrupt := make(chan os.Signal, 1) // Ctrl-C: the group goes too (it has a group of its own)
	signal.Notify(interrupt, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(interrupt)
	select {
	case err := <-done:
		return out.Bytes(), err
	case sig := <-interrupt:
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		signal.Stop(interrupt)
		if p, err := os.FindProcess(os.Getpid()); err == nil {
			p.Signal(sig) // (as the user asked: this process stops as it would have)
		}
		return out.Bytes(), fmt.Errorf("interrupted")
	case <-time.After(limit):
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-done
		return out.Bytes(), context.DeadlineExceeded
	}
}

// lastLine is the last non-empty line of out, shortened.
func lastLine(out []byte) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	s := strings.TrimSpace(lines[len(lines)-1])
	if len(s) > 160 {
		s = s[:160] + "..."
	}
	return s
}

// summaries are the variants' one-line summaries by name, device and host (-html lists them).
func (c Command) summaries() map[string]string {
	s := map[string]string{}
	for _, v := range c.Program.Variants() {
		s[v.Name] = v.Summary
	}
	for _, h := range c.HostVariants {
		s[h.Name] = h.Summary
	}
	return s
}

// listClaims prints the program's claims under -list.
func (c Command) listClaims(w io.Writer) {
	if len(c.Claims) == 0 {
		return
	}
	fmt.Fprintf(w, "\nWhat each step should change (-counters marks each seen or not seen on this GPU):\n")
	for _, cl := range c.Claims {
		fmt.Fprintf(w, "  %s\n", cl.Text())
	}
}
