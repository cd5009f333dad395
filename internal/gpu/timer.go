package gpu

/*
#include <stdlib.h>
#include "tecaj.h"
#include <cuda_runtime_api.h>
*/
import "C"

import (
	"errors"
	"fmt"
	"sync/atomic"
	"unsafe"
)

// Timer times device work with a pair of CUDA events on the default stream; gate is the timing
// gate's two words (tc_stream_gate), host memory mapped for the device.
type Timer struct {
	start, mid, late, stop C.cudaEvent_t
	gate                   *[2]uint32
}

// NewTimer creates the events and the gate.
func NewTimer() (*Timer, error) {
	t := &Timer{}
	for _, e := range []*C.cudaEvent_t{&t.start, &t.mid, &t.late, &t.stop} {
		if err := cuda("creating an event", C.cudaEventCreate(e)); err != nil {
			t.Free()
			return nil, err
		}
	}
	var p unsafe.Pointer
	if err := cuda("allocating the timing gate", C.cudaHostAlloc(&p, 8, C.cudaHostAllocMapped)); err != nil {
		t.Free()
		return nil, err
	}
	t.gate = (*[2]uint32)(p)
	return t, nil
}

// Free destroys the events and the gate.
func (t *Timer) Free() {
	if t != nil {
		for _, e := range []*C.cudaEvent_t{&t.start, &t.mid, &t.late, &t.stop} {
			if *e != nil { // (one NewTimer did not make: no call, so no error for a later check to find)
				C.cudaEventDestroy(*e)
				*e = nil
			}
		}
		if t.gate != nil {
			C.cudaFreeHost(unsafe.Pointer(t.gate))
			t.gate = nil
		}
	}
}

// Milliseconds runs fn between the two events and returns the device time it took; fn's
// launches are checked and the device synchronised.
func (t *Timer) Milliseconds(fn func() error) (float64, error) {
	return t.between(fn, func() {})
}

// Split queues first's work, second's and third's (nil: none) with no wait between them (several
// GPUs: a kernel, the collective after it, and a kernel that needs the collective's result) and
// returns the device time of each, between four events.
func (t *Timer) Split(first, second, third func() error) (a, b, c float64, err error) {
	total, err := t.between(func() error {
		if err := first(); err != nil {
			return err
		}
		if err := cuda("recording an event", C.cudaEventRecord(t.mid, nil)); err != nil {
			return err
		}
		if err := second(); err != nil {
			return err
		}
		if err := cuda("recording an event", C.cudaEventRecord(t.late, nil)); err != nil {
			return err
		}
		if third == nil {
			return nil
		}
		return third()
	}, func() {})
	if err != nil {
		return 0, 0, 0, err
	}
	if a, err = t.elapsed(t.start, t.mid); err != nil {
		return 0, 0, 0, err
	}
	if b, err = t.elapsed(t.mid, t.late); err != nil {
		return 0, 0, 0, err
	}
	return a, b, total - a - b, nil
}

// elapsed is the time between two recorded events, in milliseconds.
func (t *Timer) elapsed(from, to C.cudaEvent_t) (float64, error) {
	var ms C.float
	err := cuda("reading an event time", C.cudaEventElapsedTime(&ms, from, to))
	return float64(ms), err
}

// between queues the start event, fn's work and the stop event, calls queued(), then waits for
// the stop event and returns the time between the events.
func (t *Timer) between(fn func() error, queued func()) (float64, error) {
	if err := cuda("recording an event", C.cudaEventRecord(t.start, nil)); err != nil {
		return 0, err
	}
	if err := fn(); err != nil {
		return 0, err
	}
	if err := cuda("recording an event", C.cudaEventRecord(t.stop, nil)); err != nil {
		return 0, err
	}
	queued()
	if err := cuda("waiting for the timed work", C.cudaEventSynchronize(t.stop)); err != nil {
		return 0, err
	}
	return t.elapsed(t.start, t.stop)
}

// The timing gate's hold before each timed run (the device's state before it, the same every
// run) and the longest it waits for the host (a run that waits for the device inside it would
// otherwise never start).
const (
	gateMinMicroseconds = 50
	gateMaxMicroseconds = 100_000
	gateTries           = 3
)

// Repeat times fn reps times after one warm-up run and returns every time in milliseconds.
func (t *Timer) Repeat(reps int, fn func() error) ([]float64, error) {
	return t.RepeatUntil(func(times []float64) bool { return len(times) >= reps }, fn)
}

// RepeatUntil times fn after one warm-up run until done says the times so far are enough.
// Each run is queued behind the timing gate (tc_stream_gate), which the host opens only once
// the run and its stop event are queued: the time is the device's work, never the host's
// launches, however late they come (a launch takes microseconds, as long as the kernels of a
// small input). A run the gate stopped waiting for (the host later than 100 ms) is timed again,
// up to three tries.
func (t *Timer) RepeatUntil(done func(times []float64) bool, fn func() error) ([]float64, error) {
	if _, err := t.Milliseconds(fn); err != nil {
		return nil, err
	}
	var times []float64
	for !done(times) {
		for try := 1; ; try++ {
			ms, late, err := t.gated(fn)
			if err != nil {
				return nil, err
			}
			if !late {
				times = append(times, ms)
				break
			}
			if try == gateTries {
				return nil, fmt.Errorf("timing a run: the host queued it more than %d ms after its gate, %d times: %w",
					gateMaxMicroseconds/1000, gateTries, ErrWaitsForDevice)
			}
		}
	}
	return times, nil
}

// ErrWaitsForDevice is wrapped by Repeat's error for a run that waits for the device inside it
// (a library call that synchronises): the gate cannot hold such a run, and RepeatUngated times it.
var ErrWaitsForDevice = errors.New("the run waits for the device inside it")

// RepeatUngated times fn between two events with no gate in front until done says the times so
// far are enough: for a run that waits for the device inside it. Its times include the host's
// launches between the events.
func (t *Timer) RepeatUngated(done func(times []float64) bool, fn func() error) ([]float64, error) {
	var times []float64
	for !done(times) {
		ms, err := t.Milliseconds(fn)
		if err != nil {
			return nil, err
		}
		times = append(times, ms)
	}
	return times, nil
}

// gated times fn behind the gate: the gate, the start event, fn, the stop event, and then the
// gate opens (on an error too, so that it does not wait out its limit). late: the gate stopped
// waiting before it opened.
func (t *Timer) gated(fn func() error) (ms float64, late bool, err error) {
	atomic.StoreUint32(&t.gate[0], 0)
	atomic.StoreUint32(&t.gate[1], 0)
	if err := check("queueing the timing gate", C.tc_stream_gate((*C.uint)(unsafe.Pointer(&t.gate[0])), gateMinMicroseconds,
		gateMaxMicroseconds, nil)); err != nil {
		return 0, false, err
	}
	open := func() { atomic.StoreUint32(&t.gate[0], 1) }
	defer open()
	ms, err = t.between(fn, open)
	return ms, atomic.LoadUint32(&t.gate[1]) != 0, err
}

// CopyTimes times device-to-device copies of `bytes` between two fresh buffers (the bandwidth
// ceiling: a copy reads and writes each byte once) and returns each repetition's milliseconds.
func CopyTimes(bytes int64, reps int, t *Timer) ([]float64, error) {
	src, err := Alloc(bytes, false)
	if err != nil {
		return nil, err
	}
	defer src.Free()
	dst, err := Alloc(bytes, false)
	if err != nil {
		return nil, err
	}
	defer dst.Free()
	if err := src.Fill(0x3c); err != nil { // not zeros: the copy must move real data
		return nil, err
	}
	return t.Repeat(reps, func() error { return dst.CopyFrom(src, bytes) })
}
