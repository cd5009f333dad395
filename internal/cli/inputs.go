package cli

import (
	"math"
	"time"

	"tecaj/internal/gpu"
	"tecaj/internal/report"
	"tecaj/internal/verify"
)

// Inputs are two random float32 vectors a and b from the seed, on the host (pinned where a
// device will copy them) and, with a device, on the device.
type Inputs struct {
	A, B   *gpu.Host
	DA, DB *gpu.Buffer // nil without a device
	H2DMs  float64     // copying both to the device (NaN without a device)
}

// OpenInputs draws a from seed and b from seed+1 and copies them to the device when there is one.
func OpenInputs(n, seed int64, dev *gpu.Device) (in *Inputs, err error) {
	in = &Inputs{H2DMs: math.NaN()}
	defer func() {
		if err != nil {
			in.Free()
		}
	}()
	if in.A, err = gpu.AllocHost(n, dev != nil); err != nil {
		return nil, err
	}
	if in.B, err = gpu.AllocHost(n, dev != nil); err != nil {
		return nil, err
	}
	verify.Uniform(in.A.Floats, seed)
	verify.Uniform(in.B.Floats, seed+1)
	if dev == nil {
		return in, nil
	}
	if in.DA, err = gpu.Alloc(4*n, false); err != nil {
		return nil, err
	}
	if in.DB, err = gpu.Alloc(4*n, false); err != nil {
		return nil, err
	}
	timer, err := gpu.NewTimer()
	if err != nil {
		return nil, err
	}
	defer timer.Free()
	in.H2DMs, err = timer.Milliseconds(func() error {
		if err := in.DA.Upload(in.A.Floats); err != nil {
			return err
		}
		return in.DB.Upload(in.B.Floats)
	})
	return in, err
}

// Free releases everything; safe on a partly opened value.
func (in *Inputs) Free() {
	in.DA.Free()
	in.DB.Free()
	in.A.Free()
	in.B.Free()
}

// TimeHost runs fn once to warm up, then reps times, and returns the median wall time in ms.
func TimeHost(reps int, fn func()) float64 {
	fn()
	times := make([]float64, reps)
	for i := range times {
		start := time.Now()
		fn()
		times[i] = float64(time.Since(start).Nanoseconds()) / 1e6
	}
	return report.Median(times)
}

// NaNNum is a missing figure in a report row.
var NaNNum = report.Num(math.NaN())

// LaunchOnce runs a variant's launches once and waits for the device (the verified run).
func LaunchOnce(what string, run func() error) error {
	if err := run(); err != nil {
		return err
	}
	return gpu.Synchronize("running " + what)
}

// TimeKernel fills row's kernel time (median of reps timed runs of run) and its total time
// (kernel + copy back + host work), the columns every device row shares.
func TimeKernel(row *report.Row, timer *gpu.Timer, reps int, run func() error) error {
	times, err := timer.Repeat(reps, run)
	if err != nil {
		return err
	}
	row.KernelMs = report.Num(report.Median(times))
	row.TotalMs = row.KernelMs + row.D2HMs + row.HostMs
	return nil
}

// HostTimes fills a host variant's row: its whole run is host time; no kernel, no copies.
func HostTimes(row *report.Row, ms float64) {
	row.KernelMs, row.D2HMs, row.HostMs, row.TotalMs = NaNNum, NaNNum, report.Num(ms), report.Num(ms)
}
