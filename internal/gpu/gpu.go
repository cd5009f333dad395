// Package gpu is the one cgo boundary of the project: device discovery, device and pinned
// buffers, copies, events, and the launches of libtecaj.a (cuda/include/tecaj.h). Every CUDA
// status becomes a Go error that names the operation and the CUDA error; no CUDA type leaks out.
//
// Device memory is owned by Go values with an explicit Free (use defer); there are no finalizers.
//
// The library is linked statically (link_static.go), or with -tags shared from build/shared/
// libtecaj.so (link_shared.go), as the GPU bundle does so that its binaries share one copy of
// the device code.
package gpu

/*
#cgo CFLAGS: -I${SRCDIR}/../../cuda/include -I/usr/local/cuda/include
#include <stdlib.h>
#include "tecaj.h"
#include <cuda_runtime_api.h>
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"sync/atomic"
	"unsafe"
)

// Error is a failed CUDA call or a refusal of the library.
type Error struct {
	Op   string // what was being done
	Code int    // tc_status: > 0 a cudaError_t, < 0 the library's own
	Name string // e.g. cudaErrorInsufficientDriver
	Text string // CUDA's or the library's description
}

func (e *Error) Error() string { return fmt.Sprintf("%s: %s (%s)", e.Op, e.Text, e.Name) }

// ErrOutsideDomain is wrapped by errors of requests outside a variant's domain.
var ErrOutsideDomain = errors.New("outside the variant's domain")

// DomainDetail is a refusal that knows more than the variant's domain says (the most blocks this
// device keeps resident): Detail is that, in words.
type DomainDetail struct {
	Err    error
	Detail string
}

func (e *DomainDetail) Error() string { return e.Err.Error() + ": " + e.Detail }
func (e *DomainDetail) Unwrap() error { return e.Err }

// ErrUnavailable is wrapped by errors of library variants whose library is not installed.
var ErrUnavailable = errors.New("its library is not installed")

func (e *Error) Unwrap() error {
	switch e.Code {
	case int(C.TC_OUTSIDE_DOMAIN):
		return ErrOutsideDomain
	case int(C.TC_UNAVAILABLE):
		return ErrUnavailable
	}
	return nil
}

// NoGPU says whether err means there is no usable GPU: no driver (cudaErrorInsufficientDriver,
// 35), no card (cudaErrorNoDevice, 100), or a driver that cannot run this runtime.
func NoGPU(err error) bool {
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Code {
	case 35, 100, 803, 804: // insufficient driver, no device, system driver mismatch, compat not supported
		return true
	}
	return false
}

// NoGPUReason says in words why NoGPU(err) holds: no NVIDIA driver at all (the runtime calls that
// an insufficient driver), a driver older than the runtime, or no device.
func NoGPUReason(err error) string {
	var e *Error
	if errors.As(err, &e) && e.Code == 35 {
		if _, statErr := os.Stat("/proc/driver/nvidia/version"); statErr != nil {
			return "no NVIDIA driver found (no GPU, or its driver is not installed)"
		}
		return "the NVIDIA driver is older than this CUDA runtime (" + e.Name + "): update the driver"
	}
	return fmt.Sprintf("no usable GPU or driver (%v)", err)
}

func check(op string, s C.tc_status) error {
	if s == C.TC_OK {
		return nil
	}
	return &Error{Op: op, Code: int(s), Name: C.GoString(C.tc_status_name(s)), Text: C.GoString(C.tc_status_string(s))}
}

func cuda(op string, e C.cudaError_t) error { return check(op, C.tc_status(e)) }

// Device describes the GPU the commands run on (device 0). Under TECAJ_EMULATE=PROFILE its figures
// (and so every plan) are the profile's, and Name says so; the kernels run on the GPU that is there.
type Device struct {
	Index           int // its CUDA device number
	Name            string
	Multiprocessors int
	Profile         string // the emulated profile, "" for the device itself
	L2Bytes         int64  // its L2 (the profile's under TECAJ_EMULATE)
	FreeBytes       uint64
	TotalBytes      uint64
	desc            C.tc_device
}

// Profiles lists the names TECAJ_EMULATE takes.
func Profiles() []string {
	var names []string
	for i := 0; C.tc_device_profile_name(C.int(i)) != nil; i++ {
		names = append(names, C.GoString(C.tc_device_profile_name(C.int(i))))
	}
	return names
}

// Profile is a device with a profile's figures and no GPU behind it: for plans made without one.
func Profile(name string) (*Device, error) {
	d := &Device{}
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	if C.tc_device_profile(cname, &d.desc) != C.TC_OK {
		return nil, fmt.Errorf("unknown GPU profile %q (profiles: %s)", name, strings.Join(Profiles(), ", "))
	}
	d.Profile, d.Name, d.Multiprocessors = name, d.summary(), int(d.desc.multiprocessors)
	return d, nil
}

// summary: a profile's figures in a few words, for the table's header.
func (d *Device) summary() string {
	return fmt.Sprintf("%s: sm_%d%d, %d SMs, %d threads and %d KiB shared an SM, %d MiB L2", d.Profile,
		int(d.desc.compute_major), int(d.desc.compute_minor), int(d.desc.multiprocessors),
		int(d.desc.max_threads_per_multiprocessor), int(d.desc.shared_per_multiprocessor)/1024, int(d.desc.l2_bytes)>>20)
}

// Open selects device 0 and reads its figures. The error satisfies NoGPU where there is none.
func Open() (*Device, error) { return OpenDevice(0) }

// DeviceCount is the number of CUDA devices (an error satisfying NoGPU where there are none).
func DeviceCount() (int, error) {
	var count C.int
	if err := cuda("counting CUDA devices", C.cudaGetDeviceCount(&count)); err != nil {
		return 0, err
	}
	if count == 0 {
		return 0, &Error{Op: "counting CUDA devices", Code: 100, Name: "cudaErrorNoDevice", Text: "no CUDA-capable device is detected"}
	}
	return int(count), nil
}

// SelectDevice makes device d current on the calling OS thread, for this package's calls and the
// library's launches (lock the goroutine to its thread first: runtime.LockOSThread).
func SelectDevice(d int) error {
	op := fmt.Sprintf("selecting device %d", d)
	if err := cuda(op, C.cudaSetDevice(C.int(d))); err != nil {
		return err
	}
	return check(op, C.tc_select_device(C.int(d)))
}

// OpenDevice selects device index on the calling thread and reads its figures.
func OpenDevice(index int) (*Device, error) {
	count, err := DeviceCount()
	if err != nil {
		return nil, err
	}
	if index >= count {
		return nil, fmt.Errorf("device %d: this machine has %d", index, count)
	}
	if err := SelectDevice(index); err != nil {
		return nil, err
	}
	d := &Device{Index: index}
	var props C.struct_cudaDeviceProp
	if err := cuda("reading device properties", C.cudaGetDeviceProperties(&props, C.int(index))); err != nil {
		return nil, err
	}
	d.Name = C.GoString(&props.name[0])
	if err := check("describing the device", C.tc_device_describe(&d.desc)); err != nil {
		if p := os.Getenv("TECAJ_EMULATE"); p != "" {
			return nil, fmt.Errorf("TECAJ_EMULATE=%s: no such profile (profiles: %s)", p, strings.Join(Profiles(), ", "))
		}
		return nil, err
	}
	d.Multiprocessors, d.L2Bytes = int(d.desc.multiprocessors), int64(d.desc.l2_bytes)
	if d.desc.profile[0] != 0 {
		d.Profile = C.GoString(&d.desc.profile[0])
		d.Name += " planned as " + d.summary()
	}
	var free, total C.size_t
	if err := cuda("reading free device memory", C.cudaMemGetInfo(&free, &total)); err != nil {
		return nil, err
	}
	d.FreeBytes, d.TotalBytes = uint64(free), uint64(total)
	return d, nil
}

// Synchronize waits for the device; execution errors of earlier launches surface here.
func Synchronize(op string) error { return cuda(op, C.cudaDeviceSynchronize()) }

// Buffer is device (or managed) memory.
type Buffer struct {
	ptr     unsafe.Pointer
	bytes   int64
	managed bool
}

// Alloc allocates device memory; managed asks for unified memory (cudaMallocManaged).
func Alloc(bytes int64, managed bool) (*Buffer, error) {
	b := &Buffer{bytes: bytes, managed: managed}
	size := C.size_t(bytes)
	if size == 0 {
		size = 16
	}
	var err error
	if managed {
		err = cuda(fmt.Sprintf("allocating %d bytes of managed memory", bytes), C.cudaMallocManaged(&b.ptr, size, C.cudaMemAttachGlobal))
	} else {
		err = cuda(fmt.Sprintf("allocating %d bytes of device memory", bytes), C.cudaMalloc(&b.ptr, size))
	}
	if err != nil {
		return nil, err
	}
	return b, nil
}

// Free releases the memory; a nil buffer is ignored.
func (b *Buffer) Free() {
	if b != nil && b.ptr != nil {
		C.cudaFree(b.ptr)
		b.ptr = nil
	}
}

// Bytes is the buffer's size.
func (b *Buffer) Bytes() int64 { return b.bytes }

// Fill sets every byte (cudaMemset): 0 to zero scratch, 0xFF to poison floats with a NaN
// (0xFFFFFFFF) that no kernel produces (the GPU's NaN is 0x7FFFFFFF).
func (b *Buffer) Fill(value byte) error {
	return cuda("filling a device buffer", C.cudaMemset(b.ptr, C.int(value), C.size_t(b.bytes)))
}

// Floats is a host view of managed memory (valid only for managed buffers, and only while no
// kernel is using it).
func (b *Buffer) Floats() []float32 {
	if !b.managed {
		panic("gpu: Floats on device memory")
	}
	return unsafe.Slice((*float32)(b.ptr), b.bytes/4)
}

// Upload copies src to the start of the buffer.
func (b *Buffer) Upload(src []float32) error {
	if int64(len(src))*4 > b.bytes {
		return fmt.Errorf("copying %d floats to the device: buffer holds %d bytes", len(src), b.bytes)
	}
	if len(src) == 0 {
		return nil
	}
	return cuda("copying host to device", C.cudaMemcpy(b.ptr, unsafe.Pointer(&src[0]), C.size_t(len(src)*4), C.cudaMemcpyHostToDevice))
}

// UploadBytes copies raw bytes to the start of the buffer.
func (b *Buffer) UploadBytes(src []byte) error {
	if int64(len(src)) > b.bytes {
		return fmt.Errorf("copying %d bytes to the device: buffer holds %d bytes", len(src), b.bytes)
	}
	if len(src) == 0 {
		return nil
	}
	return cuda("copying host to device", C.cudaMemcpy(b.ptr, unsafe.Pointer(&src[0]), C.size_t(len(src)), C.cudaMemcpyHostToDevice))
}

// DownloadBytes copies the start of the buffer to dst.
func (b *Buffer) DownloadBytes(dst []byte) error {
	if int64(len(dst)) > b.bytes {
		return fmt.Errorf("copying %d bytes from the device: buffer holds %d bytes", len(dst), b.bytes)
	}
	if len(dst) == 0 {
		return nil
	}
	return cuda("copying device to host", C.cudaMemcpy(unsafe.Pointer(&dst[0]), b.ptr, C.size_t(len(dst)), C.cudaMemcpyDeviceToHost))
}

// UploadWords copies 32-bit words (keys of any type) to the start of the buffer.
func (b *Buffer) UploadWords(src []uint32) error {
	if len(src) == 0 {
		return nil
	}
	return b.Upload(unsafe.Slice((*float32)(unsafe.Pointer(&src[0])), len(src)))
}

// DownloadWords copies the start of the buffer to dst as 32-bit words.
func (b *Buffer) DownloadWords(dst []uint32) error {
	if len(dst) == 0 {
		return nil
	}
	return b.Download(unsafe.Slice((*float32)(unsafe.Pointer(&dst[0])), len(dst)))
}

// Download copies the start of the buffer to dst.
func (b *Buffer) Download(dst []float32) error {
	if int64(len(dst))*4 > b.bytes {
		return fmt.Errorf("copying %d floats from the device: buffer holds %d bytes", len(dst), b.bytes)
	}
	if len(dst) == 0 {
		return nil
	}
	return cuda("copying device to host", C.cudaMemcpy(unsafe.Pointer(&dst[0]), b.ptr, C.size_t(len(dst)*4), C.cudaMemcpyDeviceToHost))
}

// CopyFrom copies bytes from src on the device (the copy-bandwidth ceiling).
func (b *Buffer) CopyFrom(src *Buffer, bytes int64) error {
	if bytes > b.bytes || bytes > src.bytes {
		return fmt.Errorf("device copy of %d bytes exceeds a buffer", bytes)
	}
	return cuda("copying device to device", C.cudaMemcpyAsync(b.ptr, src.ptr, C.size_t(bytes), C.cudaMemcpyDeviceToDevice, nil))
}

func (b *Buffer) floats() *C.float { return (*C.float)(b.ptr) }

// Host is float32 host memory: page-locked (pinned) when it is copied to or from the device,
// so copies run at full speed, or an ordinary Go slice where no GPU is used.
type Host struct {
	ptr    unsafe.Pointer
	Floats []float32
}

// AllocHost allocates n floats, pinned (cudaMallocHost) or not.
func AllocHost(n int64, pinned bool) (*Host, error) {
	if !pinned {
		return &Host{Floats: make([]float32, n)}, nil
	}
	h := &Host{}
	size := n * 4
	if size == 0 {
		size = 16
	}
	if err := cuda(fmt.Sprintf("allocating %d bytes of pinned host memory", n*4), C.cudaMallocHost(&h.ptr, C.size_t(size))); err != nil {
		return nil, err
	}
	h.Floats = unsafe.Slice((*float32)(h.ptr), n)
	return h, nil
}

// Words is the same memory as 32-bit words.
func (h *Host) Words() []uint32 {
	if len(h.Floats) == 0 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&h.Floats[0])), len(h.Floats))
}

// Bytes is the same memory as bytes.
func (h *Host) Bytes() []byte {
	if len(h.Floats) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&h.Floats[0])), 4*len(h.Floats))
}

// Free releases pinned memory; a nil value is ignored.
func (h *Host) Free() {
	if h != nil && h.ptr != nil {
		C.cudaFreeHost(h.ptr)
		h.ptr = nil
	}
	if h != nil {
		h.Floats = nil
	}
}

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

// AllocEach allocates a device buffer of bytes[i] into *into[i], in turn; on an error it frees the
// ones it made and returns it.
func AllocEach(into []**Buffer, bytes ...int64) error {
	if len(into) != len(bytes) {
		return fmt.Errorf("AllocEach: %d buffers, %d sizes", len(into), len(bytes))
	}
	for i := range into {
		b, err := Alloc(bytes[i], false)
		if err != nil {
			for _, made := range into[:i] {
				(*made).Free()
			}
			return err
		}
		*into[i] = b
	}
	return nil
}

// FreeEach frees every buffer (nil ones are ignored).
func FreeEach(bufs ...*Buffer) {
	for _, b := range bufs {
		b.Free()
	}
}
