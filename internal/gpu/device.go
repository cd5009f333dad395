package gpu

/*
#include <stdlib.h>
#include "tecaj.h"
#include <cuda_runtime_api.h>
*/
import "C"

import (
	"fmt"
	"os"
	"strings"
	"unsafe"
)

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
	return fmt.Sprintf("%s: sm_%d%d, %d SMs, %d threads and %d KiB shared an SM, %d MiB L2, %.0f GB/s", d.Profile,
		int(d.desc.compute_major), int(d.desc.compute_minor), int(d.desc.multiprocessors),
		int(d.desc.max_threads_per_multiprocessor), int(d.desc.shared_per_multiprocessor)/1024, int(d.desc.l2_bytes)>>20,
		float64(d.desc.memory_bandwidth)/1e9)
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
