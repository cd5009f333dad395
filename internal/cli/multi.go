package cli

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"time"

	"tecaj/internal/gpu"
	"tecaj/internal/multi"
	"tecaj/internal/report"
)

// MultiSession is a Session that also runs best over several GPUs (razdalja, redukcija, prefiks).
type MultiSession interface {
	// RunMulti runs, verifies and times best over m's GPUs: each rank its slice, the partials
	// all-gathered through NCCL and combined on the device in GPU order (m.Time, m.Row).
	RunMulti(m *Multi) (report.Row, error)
}

// Rank is one GPU of a run over several: its device, communicator, stream and timer, and the
// locked OS thread every call for it runs on (its device current there). Its run's work is queued
// on its stream (non-blocking: nothing waits for another rank's host thread through the legacy
// default stream).
type Rank struct {
	Rank   int // among every process's ranks
	Local  int // among this process's: the index of its part in a command's per-rank slices
	Dev    *gpu.Device
	Comm   *gpu.Comm
	Stream *gpu.Stream
	Timer  *gpu.Timer
	work   chan func()
}

// Multi is a run over several GPUs: every rank's count, and this process's ranks (all of them
// with -gpus; one with -nranks).
type Multi struct {
	Ranks int
	Local []*Rank
	Reps  int
	Link  string // how the GPUs are linked (nvidia-smi topo -m), for the report
	NCCL  string // its version
}

// multiFlags adds -gpus, -rank, -nranks and -coordinator.
func (o *Options) multiFlags(fs *flag.FlagSet) {
	fs.IntVar(&o.GPUs, "gpus", 0, "also run best over this many GPUs of this machine (1 to 8; NCCL, loaded at run time): the\n"+
		"input cut into one contiguous slice a GPU, the partials all-gathered and combined on the device in GPU order.\n"+
		"The combine costs microseconds: at small sizes (10^6) it can cost more than the slices save, and the row says\n"+
		"when several GPUs were slower than one")
	fs.IntVar(&o.Rank, "rank", 0, "with -nranks: this process's rank, 0 to nranks-1 (rank 0 reports; it uses GPU rank % GPUs here,\n"+
		"or under a launcher its local rank's); mpiexec and srun set it")
	fs.IntVar(&o.NRanks, "nranks", 0, "run best over this many processes, one GPU each, on one host or many (-rank, -coordinator);\n"+
		"mpiexec and srun set it (OMPI_COMM_WORLD_SIZE, PMI_SIZE, SLURM_NTASKS)")
	fs.StringVar(&o.Coordinator, "coordinator", "", "with -nranks: HOST:PORT where rank 0 listens and hands every rank NCCL's id (default\n"+
		"$TECAJ_COORDINATOR, or "+multi.DefaultCoordinator+" where a launcher put every rank on this host)")
}

// checkMulti checks the multi-GPU flags after parsing; under a launcher (mpiexec, srun) -nranks
// and -rank come from its environment, and where it put every rank on this host, so does the
// coordinator.
func (c Command) checkMulti(o *Options) error {
	if !c.Multi {
		return nil
	}
	getenv := os.Getenv
	if counterChild() { // (the profiled run is one process on one GPU, whoever started its parent)
		getenv = func(string) string { return "" }
	}
	launch, err := multi.FromEnv(getenv)
	if err != nil {
		return usagef("%v", err)
	}
	if launch.Size > 1 { // (a launcher's single process is a plain run)
		switch {
		case o.GPUs > 0:
			return usagef("-gpus %d: this process is one of %d (%s=%d), one GPU each; leave -gpus out", o.GPUs, launch.Size, launch.SizeVar, launch.Size)
		case o.Set["nranks"] && o.NRanks != launch.Size:
			return usagef("-nranks %d, but %s=%d: leave -nranks out under a launcher", o.NRanks, launch.SizeVar, launch.Size)
		case o.Set["rank"] && o.Rank != launch.Rank:
			return usagef("-rank %d, but %s=%d: leave -rank out under a launcher", o.Rank, launch.RankVar, launch.Rank)
		}
		o.NRanks, o.Rank, o.Launch = launch.Size, launch.Rank, launch
	}
	from := "-coordinator"
	if o.NRanks > 0 && o.Coordinator == "" {
		if env := os.Getenv("TECAJ_COORDINATOR"); env != "" {
			o.Coordinator, from = env, "TECAJ_COORDINATOR"
		} else if launch.Size > 1 && launch.OneHost() {
			o.Coordinator = multi.DefaultCoordinator
		}
	}
	switch {
	case o.GPUs < 0 || o.GPUs > 8:
		return usagef("-gpus %d: from 1 to 8", o.GPUs)
	case o.GPUs > 0 && o.NRanks > 0:
		return usagef("-gpus and -nranks: one or the other")
	case o.NRanks < 0 || o.NRanks > multi.MaxRanks:
		return usagef("-nranks %d: from 1 to %d processes, one GPU each", o.NRanks, multi.MaxRanks)
	case o.NRanks > 0 && (o.Rank < 0 || o.Rank >= o.NRanks):
		return usagef("-rank %d -nranks %d: the rank from 0 to %d", o.Rank, o.NRanks, o.NRanks-1)
	case o.NRanks > 0 && o.Coordinator == "":
		return usagef("-nranks needs -coordinator HOST:PORT (where rank 0 listens), or TECAJ_COORDINATOR")
	case (o.Set["rank"] || o.Set["coordinator"]) && o.NRanks == 0:
		return usagef("-rank and -coordinator go with -nranks")
	case o.multi() && len(o.Sizes) > 1:
		return usagef("-gpus and -nranks take one size (-n)")
	}
	if o.NRanks > 0 {
		if err := multi.CheckAddr(o.Coordinator); err != nil {
			return usagef("%s %v", from, err)
		}
	}
	if o.multi() && !o.Set["variant"] {
		o.Variant = "best,cub" // the row over several GPUs beside one GPU's best and library
	}
	if o.NRanks > 0 && o.Rank > 0 {
		o.Variant = "" // only rank 0 runs one GPU's rows and reports
	}
	return nil
}

func (o Options) multi() bool { return o.GPUs > 0 || o.NRanks > 0 }

// preflightMulti: this machine has the GPUs -gpus asks for (no driver is said as for one GPU), and
// NCCL loads.
func preflightMulti(o Options) error {
	count, err := gpu.DeviceCount()
	if err != nil {
		return err
	}
	if o.GPUs > count {
		return fmt.Errorf("-gpus %d: this machine has %d GPU(s)", o.GPUs, count)
	}
	// a launcher's ranks on this host each need a GPU of their own (NCCL refuses two ranks on one),
	// unless it gives each rank its own CUDA_VISIBLE_DEVICES
	if l := o.Launch; l.From != "" && l.LocalSize > count && (count > 1 || os.Getenv("CUDA_VISIBLE_DEVICES") == "") {
		return fmt.Errorf("%s started %d ranks on this host, which has %d GPU(s): one GPU a rank (mpiexec -n %d)", l.From, l.LocalSize, count, count)
	}
	if _, err := gpu.NCCL(); err != nil {
		return fmt.Errorf("%s: %v", map[bool]string{true: "-gpus", false: "-nranks"}[o.GPUs > 0], err)
	}
	return nil
}

// openMulti starts a locked thread a local GPU and makes the communicators (preflightMulti has
// loaded NCCL and counted the GPUs).
func openMulti(o Options) (*Multi, error) {
	count, err := gpu.DeviceCount()
	if err != nil {
		return nil, err
	}
	version, _ := gpu.NCCL()
	m := &Multi{Reps: rounds(o.Reps), Link: link(), NCCL: version}
	if o.GPUs > 0 {
		m.Ranks = o.GPUs
		for r := 0; r < o.GPUs; r++ {
			m.Local = append(m.Local, &Rank{Rank: r, Local: r})
		}
	} else {
		m.Ranks = o.NRanks
		m.Local = []*Rank{{Rank: o.Rank}}
	}
	for i, r := range m.Local {
		r.work = make(chan func())
		go func(r *Rank) {
			runtime.LockOSThread() // the device stays current on this thread
			for f := range r.work {
				f()
			}
		}(r)
		dev := r.Rank % count
		if o.Launch.From != "" {
			dev = o.Launch.LocalRank % count // the launcher's place for this process on its host
		}
		if err := m.on(r, func() (err error) {
			if r.Dev, err = gpu.OpenDevice(dev); err != nil {
				return err
			}
			if r.Stream, err = gpu.NewStream(); err != nil {
				return err
			}
			r.Timer, err = gpu.NewTimerOn(r.Stream)
			return err
		}); err != nil {
			m.Close()
			return nil, fmt.Errorf("GPU %d: %w", i, err)
		}
	}
	if o.GPUs > 0 {
		var comms []*gpu.Comm
		if err := m.on(m.Local[0], func() (err error) { comms, err = gpu.InitAll(o.GPUs); return err }); err != nil {
			m.Close()
			return nil, err
		}
		for i, r := range m.Local {
			r.Comm = comms[i]
		}
		return m, nil
	}
	var id []byte
	if o.Rank == 0 {
		if id, err = gpu.UniqueID(); err != nil {
			m.Close()
			return nil, err
		}
	}
	if id, err = multi.Bootstrap(o.Coordinator, o.Rank, o.NRanks, id, gpu.UniqueIDBytes, 5*time.Minute); err != nil {
		m.Close()
		return nil, usagef("%v", err)
	}
	r := m.Local[0]
	if err := m.on(r, func() (err error) { r.Comm, err = gpu.InitRank(id, o.Rank, o.NRanks); return err }); err != nil {
		m.Close()
		return nil, err
	}
	return m, nil
}

// on runs f on r's thread and waits for it.
func (m *Multi) on(r *Rank, f func() error) error {
	done := make(chan error)
	r.work <- func() { done <- f() }
	return <-done
}

// Do runs f for every local rank at once, each on its own thread; the first error.
func (m *Multi) Do(f func(r *Rank) error) error {
	errs := make([]error, len(m.Local))
	var wg sync.WaitGroup
	for i, r := range m.Local {
		wg.Add(1)
		go func(i int, r *Rank) {
			defer wg.Done()
			errs[i] = m.on(r, func() error { return f(r) })
		}(i, r)
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			return fmt.Errorf("GPU %d: %w", m.Local[i].Rank, err)
		}
	}
	return nil
}

// OnFirst runs f on every local rank and returns how long the first local rank's took (a copy
// back's time, for the row's d2h).
func (m *Multi) OnFirst(f func(r *Rank) error) (ms float64, err error) {
	err = m.Do(func(r *Rank) error {
		start := time.Now()
		err := f(r)
		if r == m.Local[0] {
			ms = float64(time.Since(start).Nanoseconds()) / 1e6
		}
		return err
	})
	return ms, err
}

// Close frees the communicators, timers and streams and ends the threads.
func (m *Multi) Close() {
	for _, r := range m.Local {
		if r.work == nil {
			continue
		}
		m.on(r, func() error {
			r.Comm.Destroy()
			r.Timer.Free()
			r.Stream.Free()
			return nil
		})
		close(r.work)
	}
}

// Times are one rank's timed runs: its kernels, then the combine (the all-gather and what follows);
// After, the part of Kernel that ran after the combine (Stages.After; nil where there is none).
type Times struct{ Kernel, Combine, After []float64 }

// Stages are one round of a run over several GPUs, queued on each rank's stream in this order.
// Kernel is the slice's own work; Gather the rank's part of the collective, every local rank's
// issued in one NCCL group from one thread (a single call's group with -nranks); Fold (nil: none)
// turns the gathered parts into the answer and is timed with the gather as the combine; After
// (nil: none) is work that needs the gathered parts, timed as kernel.
type Stages struct {
	Kernel, Gather, Fold, After func(r *Rank) error
}

// Time runs the stages on every rank, one warm-up round and m.Reps timed rounds. Each timed round
// is queued whole on every local rank behind a timing gate a rank, and this process's gates open
// together once all of them have it: no local rank's late host counts as the others' wait in the
// combine (with -nranks each process opens its own, so another process's late host still counts).
// A round the gate stopped waiting for (a host later than its limit) is run again, up to three
// tries, where every rank is in this process; across processes it is kept (a rank that ran one
// more round than the others would post a collective no peer answers).
func (m *Multi) Time(st Stages) ([]Times, error) {
	times := make([]Times, len(m.Local))
	// what each command queued on the legacy stream (fills, uploads) done before its ranks' streams start
	if err := m.Do(func(*Rank) error { return gpu.Synchronize("preparing the slices") }); err != nil {
		return nil, err
	}
	for rep := 0; rep <= m.Reps; rep++ {
		for try := 1; ; try++ {
			round, late, err := m.round(st, rep > 0)
			if err != nil {
				return nil, err
			}
			if !late || len(m.Local) < m.Ranks {
				if rep > 0 {
					for i, t := range round {
						times[i].Kernel, times[i].Combine = append(times[i].Kernel, t.Kernel...), append(times[i].Combine, t.Combine...)
						times[i].After = append(times[i].After, t.After...)
					}
				}
				break
			}
			if try == 3 {
				return nil, fmt.Errorf("timing a round over %d GPUs: the host queued it after its gate gave up, 3 times", m.Ranks)
			}
		}
	}
	return times, nil
}

// round queues one round of st on every local rank (gated: behind each rank's gate, opened once all
// is queued), waits for it and returns each rank's times; late: some gate gave up first.
func (m *Multi) round(st Stages, gated bool) (times []Times, late bool, err error) {
	defer func() { // (on an error too: a gate left shut would hold its device until its limit)
		for _, r := range m.Local {
			r.Timer.Open()
		}
	}()
	// inTurn runs each step of a rank's part until one fails (a nil step is none)
	inTurn := func(r *Rank, steps ...func(*Rank) error) error {
		for _, f := range steps {
			if f == nil {
				continue
			}
			if err := f(r); err != nil {
				return err
			}
		}
		return nil
	}
	begin := func(r *Rank) error { return r.Timer.Begin(gated) }
	mark := func(r *Rank) error { return r.Timer.Mark() }
	end := func(r *Rank) error { return r.Timer.End() }
	err = m.Do(func(r *Rank) error { return inTurn(r, begin, st.Kernel, mark) })
	if err != nil {
		return nil, false, err
	}
	// from the group on, an error may leave a collective queued that a peer never answers: the
	// gates open and the communicators abort, so the error comes back instead of a hang
	abort := func(err error) ([]Times, bool, error) {
		for _, r := range m.Local {
			r.Timer.Open()
			r.Comm.Abort()
		}
		return nil, false, err
	}
	err = m.on(m.Local[0], func() error {
		return gpu.Group(func() error {
			for _, r := range m.Local {
				if err := st.Gather(r); err != nil {
					return fmt.Errorf("GPU %d: %w", r.Rank, err)
				}
			}
			return nil
		})
	})
	if err != nil {
		return abort(err)
	}
	err = m.Do(func(r *Rank) error { return inTurn(r, st.Fold, mark, st.After, end) })
	if err != nil {
		return abort(err)
	}
	for _, r := range m.Local {
		r.Timer.Open()
	}
	times = make([]Times, len(m.Local))
	lates := make([]bool, len(m.Local))
	err = m.Do(func(r *Rank) error {
		k, c, a, lateHere, err := r.Timer.Wait()
		times[r.Local] = Times{Kernel: []float64{k + a}, Combine: []float64{c}}
		if st.After != nil { // (without one, a is two back-to-back events' gap, not work)
			times[r.Local].After = []float64{a}
		}
		lates[r.Local] = lateHere
		return err
	})
	for _, l := range lates {
		late = late || l
	}
	return times, late, err
}

// Row fills a row's times from every local rank's: kernel, the slowest GPU's median; total, the
// median of each round's last rank to finish, with the copy back (d2hMs); host, what the combine
// adds to the slowest kernel (a rank may wait in its combine for the others: that wait is not added);
// the note names each GPU's kernel and combine medians (a GPU whose combine is longer than the
// others' waited for a later one: its round started first) and the link; where the run has an After
// stage (a scan's), also each GPU's time after the combine and when each ends, from the round's start.
func (m *Multi) Row(row report.Row, times []Times, d2hMs float64) report.Row {
	reps := len(times[0].Kernel)
	kernel, combine, total := make([]float64, reps), make([]float64, reps), make([]float64, reps)
	for i := 0; i < reps; i++ {
		for _, t := range times {
			kernel[i] = math.Max(kernel[i], t.Kernel[i])
			total[i] = math.Max(total[i], t.Kernel[i]+t.Combine[i])
		}
		combine[i] = total[i] - kernel[i] // (the rounds start together: what the combine adds to the slowest kernel)
	}
	// a run with work after the combine (a scan's): where each GPU's time goes, and which ends last
	var per, perCombine, perAfter, perEnd []string
	for _, t := range times {
		per = append(per, fmt.Sprintf("%.1f", report.Median(t.Kernel)*1000))
		perCombine = append(perCombine, fmt.Sprintf("%.1f", report.Median(t.Combine)*1000))
		if len(t.After) == reps {
			ends := make([]float64, reps)
			for i := range ends {
				ends[i] = t.Kernel[i] + t.Combine[i]
			}
			perAfter = append(perAfter, fmt.Sprintf("%.1f", report.Median(t.After)*1000))
			perEnd = append(perEnd, fmt.Sprintf("%.1f", report.Median(ends)*1000))
		}
	}
	staged := ""
	if reps > 0 && len(perAfter) == len(times) {
		staged = fmt.Sprintf("; of its kernel, after the combine: %s; each GPU ends at (us from the round's start): %s",
			strings.Join(perAfter, ", "), strings.Join(perEnd, ", "))
	}
	row.Variant = fmt.Sprintf("best/%dgpu", m.Ranks)
	row.KernelMs, row.HostMs, row.D2HMs = report.Num(report.Median(kernel)), report.Num(report.Median(combine)), report.Num(d2hMs)
	row.TotalMs = report.Num(report.Median(total) + d2hMs)
	row.SpreadPct = report.Num(report.Spread(total))
	where := "one process"
	if len(m.Local) < m.Ranks {
		where = fmt.Sprintf("rank 0's of %d processes", m.Ranks)
	}
	row.Note = strings.TrimSpace(fmt.Sprintf("kernel us a GPU (%s): %s; its combine: %s%s; host us: the combine (NCCL all-gather%s) %s",
		where, strings.Join(per, ", "), strings.Join(perCombine, ", "), staged, m.Link, row.Note))
	return row
}

// link says how GPU 0 reaches GPU 1 (nvidia-smi topo -m's cell: NV18, PIX, SYS ...), or "".
func link() string {
	out, err := exec.Command("nvidia-smi", "topo", "-m").Output()
	if err != nil || !strings.Contains(string(out), "GPU1") {
		return ""
	}
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) > 2 && f[0] == "GPU0" {
			return " over " + f[2] // GPU0's row: X, then its link to GPU1
		}
	}
	return ""
}

// measureMulti adds the row of best over several GPUs after one GPU's best (or last).
func (c Command) measureMulti(o Options, s Session, r *report.Report, stderr io.Writer) error {
	ms, ok := s.(MultiSession)
	if !ok {
		return fmt.Errorf("-gpus: %s has no run over several GPUs", c.name())
	}
	stop := showProgress(stderr, fmt.Sprintf("%s: starting NCCL on %d GPU(s)", c.name(), max(o.GPUs, o.NRanks)))
	m, err := openMulti(o)
	stop()
	if err != nil {
		return err
	}
	defer m.Close()
	stop = showProgress(stderr, c.name()+": running best over several GPUs")
	row, err := ms.RunMulti(m)
	stop()
	if err != nil {
		return fmt.Errorf("best over %d GPUs: %w", m.Ranks, err)
	}
	r.Device += fmt.Sprintf("; NCCL %s", m.NCCL)
	if m.Link != "" {
		r.Device += ", GPUs linked" + m.Link
	}
	at := len(r.Rows)
	for i, one := range r.Rows {
		if one.Variant == "best" {
			at = i + 1
			row.Note = slowerNote(row, one) + row.Note
		}
	}
	r.Rows = append(r.Rows[:at], append([]report.Row{row}, r.Rows[at:]...)...)
	return nil
}

// slowerNote says where several GPUs took longer to the answer than one GPU's best (kernel and
// host time each: at small sizes the combine costs more than the slices save); else "".
func slowerNote(several, one report.Row) string {
	if t, t1 := float64(several.KernelMs+several.HostMs), float64(one.KernelMs+one.HostMs); t > t1 {
		return fmt.Sprintf("slower than one GPU's best (%.1f us): the combine costs more than the slices save at this size; ", t1*1000)
	}
	return ""
}

func max(a, b int) int {
	if a > b {
		return a
	}
	return b
}

// SliceRun is one rank's part of a reduction over several GPUs: run queues the slice's result (its
// OutBytes) into out on the rank's stream; free releases what prepare made. A rank with an empty
// slice has none.
type SliceRun struct {
	Run  func(out *gpu.Buffer) error
	Free func()
}

// SliceReduction is a reduction over several GPUs as a command gives it to ReduceSlices.
type SliceReduction struct {
	OutBytes int64 // a slice's result, and the answer's
	Fill     byte  // every byte of an empty slice's result
	// Prepare makes a non-empty slice's run (its inputs uploaded, its plan).
	Prepare func(r *Rank, sl multi.Slice) (SliceRun, error)
	// Fold queues on r's stream the fold of all (every GPU's result, OutBytes each, in GPU order;
	// the first count of them are the slices with elements) into answer (OutBytes); first holds
	// each slice's first index (int64s on r's device), for a fold that makes indices global.
	Fold func(r *Rank, all, first, answer *gpu.Buffer, count int) error
}

// ReduceSlices runs a reduction over the GPUs of m, each its contiguous slice of n: each writes
// its result, the results are all-gathered through NCCL in GPU order, and every rank folds them
// on its device, all timed; then every local rank's answer comes back, the first local rank's
// returned (their bytes must agree: the fold's order is fixed, whichever GPU finished first).
func (m *Multi) ReduceSlices(n int64, red SliceReduction) (answer []byte, slices []multi.Slice, times []Times, d2hMs float64, err error) {
	slices = multi.Split(n, m.Ranks)
	count := 0 // (empty slices come last)
	firsts := make([]byte, 8*len(slices))
	for i, sl := range slices {
		if sl.Len() > 0 {
			count++
		}
		binary.LittleEndian.PutUint64(firsts[8*i:], uint64(sl.Lo))
	}
	type part struct {
		out, all, first, answer *gpu.Buffer
		run                     SliceRun
	}
	parts := make([]part, len(m.Local))
	defer m.Do(func(r *Rank) error {
		p := &parts[r.Local]
		if p.run.Free != nil {
			p.run.Free()
		}
		gpu.FreeEach(p.out, p.all, p.first, p.answer)
		return nil
	})
	err = m.Do(func(r *Rank) (err error) {
		p, sl := &parts[r.Local], slices[r.Rank]
		if err = gpu.AllocEach([]**gpu.Buffer{&p.out, &p.all, &p.first, &p.answer}, red.OutBytes, int64(m.Ranks)*red.OutBytes,
			int64(len(firsts)), red.OutBytes); err != nil {
			return err
		}
		if err = FirstError(p.out.Fill(red.Fill), p.answer.Fill(Poisons[0]), p.first.UploadBytes(firsts)); err != nil || sl.Len() == 0 {
			return err
		}
		p.run, err = red.Prepare(r, sl)
		return err
	})
	if err != nil {
		return nil, nil, nil, 0, err
	}
	times, err = m.Time(Stages{
		Kernel: func(r *Rank) error {
			if p := &parts[r.Local]; p.run.Run != nil {
				return p.run.Run(p.out)
			}
			return nil
		},
		Gather: func(r *Rank) error {
			p := &parts[r.Local]
			return r.Comm.AllGather(p.out, p.all, red.OutBytes, r.Stream)
		},
		Fold: func(r *Rank) error { p := &parts[r.Local]; return red.Fold(r, p.all, p.first, p.answer, count) },
	})
	if err != nil {
		return nil, nil, nil, 0, err
	}
	answers := make([][]byte, len(m.Local)) // (every rank copies its answer back, as each one's host would read it)
	if err = m.Do(func(r *Rank) error {
		answers[r.Local] = make([]byte, red.OutBytes)
		return parts[r.Local].answer.DownloadBytes(answers[r.Local])
	}); err != nil {
		return nil, nil, nil, 0, err
	}
	// the row's copy back, timed as one GPU's row times its own: events around a copy into pinned memory
	first := m.Local[0]
	if err = m.on(first, func() error {
		timer, err := gpu.NewTimer()
		if err != nil {
			return err
		}
		defer timer.Free()
		host, err := gpu.AllocHost((red.OutBytes+3)/4, true)
		if err != nil {
			return err
		}
		defer host.Free()
		d2hMs, err = TimeCopy(timer, func() error { return parts[first.Local].answer.DownloadBytes(host.Bytes()[:red.OutBytes]) })
		return err
	}); err != nil {
		return nil, nil, nil, 0, err
	}
	for i, a := range answers[1:] {
		if !bytes.Equal(a, answers[0]) {
			return nil, nil, nil, 0, fmt.Errorf("GPU %d's answer % x differs from GPU %d's % x", m.Local[i+1].Rank, a, m.Local[0].Rank, answers[0])
		}
	}
	return answers[0], slices, times, d2hMs, nil
}
