package cli

// The flags every command takes: parsing, their checks, and -variant's names.

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

func (c Command) parse(args []string, stderr io.Writer) (Options, error) {
	o := Options{N: c.DefaultN}
	fs := flag.NewFlagSet(c.name(), flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Var((*SizeList)(&o.Sizes), "n", "elements (1000000, 1e6, 2^20, 1<<20, 2^20+3), or several: a list 2^10,2^20,2^28 or a range of\n"+
		"powers of two 2^10..2^28 (2^10..2^28x4: every other one); each size is run in turn")
	fs.StringVar(&o.Plot, "plot", "", "draw the run to this .svg file: GB/s against n for a sweep (millions of items a second where the variants move unlike bytes, as the sorts do), the variants as bars for one size")
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
