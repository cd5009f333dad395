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

// Timer times device work with CUDA events on its stream (nil: the legacy default stream); gate is
// the timing gate's two words (tc_stream_gate), host memory mapped for the device.
type Timer struct {
	start, mid, late, stop C.cudaEvent_t
	gate                   *[2]uint32
	stream                 C.cudaStream_t // (the handle, not *Stream: cgo refuses a Go pointer inside what it is passed)
	marks                  int            // a stage's events recorded since Begin
}

// NewTimer creates the events and the gate, for work on the legacy default stream.
func NewTimer() (*Timer, error) { return NewTimerOn(nil) }

// NewTimerOn creates the events and the gate for work queued on s (of the calling thread's device).
func NewTimerOn(s *Stream) (*Timer, error) {
	t := &Timer{stream: s.c()}
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

// A timed round in stages, queued on several threads (one timer a GPU) and run together: Begin
// queues the gate and the start event, Mark the end of the first stage and then of the second,
// End the stop event; once every timer's round is queued, Open lets each run, and Wait returns
// the time of each stage. A round's gate holds no minimum: every GPU starts when the host opens
// them all, whenever each one's gate was queued.

// Begin queues the round's gate (gated false: none, a warm-up) and its start event.
func (t *Timer) Begin(gated bool) error {
	t.marks = 0
	atomic.StoreUint32(&t.gate[0], 0)
	atomic.StoreUint32(&t.gate[1], 0)
	if gated {
		if err := check("queueing the timing gate", C.tc_stream_gate((*C.uint)(unsafe.Pointer(&t.gate[0])), 0,
			gateMaxMicroseconds, t.stream)); err != nil {
			return err
		}
	}
	return cuda("recording an event", C.cudaEventRecord(t.start, t.stream))
}

// Mark records the end of the round's next stage (the first, then the second).
func (t *Timer) Mark() error {
	if t.marks >= 2 {
		return errors.New("timing a round: a third stage mark")
	}
	e := []C.cudaEvent_t{t.mid, t.late}[t.marks]
	t.marks++
	return cuda("recording an event", C.cudaEventRecord(e, t.stream))
}

// End records the round's stop event.
func (t *Timer) End() error {
	if t.marks != 2 {
		return fmt.Errorf("timing a round: %d stage marks, not 2", t.marks)
	}
	return cuda("recording an event", C.cudaEventRecord(t.stop, t.stream))
}

// Open lets the round run (safe from any thread, and more than once).
func (t *Timer) Open() { atomic.StoreUint32(&t.gate[0], 1) }

// Wait waits for the round's stop event and returns each stage's device time: start to the first
// mark, to the second, to the stop. late: the gate stopped waiting before the host opened it.
func (t *Timer) Wait() (a, b, c float64, late bool, err error) {
	if err = cuda("waiting for the timed work", C.cudaEventSynchronize(t.stop)); err != nil {
		return
	}
	if a, err = t.elapsed(t.start, t.mid); err == nil {
		if b, err = t.elapsed(t.mid, t.late); err == nil {
			c, err = t.elapsed(t.late, t.stop)
		}
	}
	if err != nil {
		return 0, 0, 0, false, err
	}
	return a, b, c, atomic.LoadUint32(&t.gate[1]) != 0, nil
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
	if err := cuda("recording an event", C.cudaEventRecord(t.start, t.stream)); err != nil {
		return 0, err
	}
	if err := fn(); err != nil {
		return 0, err
	}
	if err := cuda("recording an event", C.cudaEventRecord(t.stop, t.stream)); err != nil {
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
		gateMaxMicroseconds, t.stream)); err != nil {
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
