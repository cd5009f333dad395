// Package gpu is the one cgo boundary of the project: device discovery, device and pinned
// buffers, copies, events, and the launches of libtecaj.a (cuda/include/tecaj.h). Every CUDA
// status becomes a Go error that names the operation and the CUDA error; no CUDA type leaks out.
//
// Device memory is owned by Go values with an explicit Free (use defer); there are no finalizers.
//
// The library is linked statically (link_static.go), or with -tags shared from build/shared/
// libtecaj.so (link_shared.go), as the GPU bundle does so that its binaries share one copy of
// the device code.
//
// By concern: errors.go (CUDA's and the library's statuses as Go errors), device.go (the device,
// its figures and profiles), memory.go (device, managed and pinned buffers, copies), timer.go
// (events, the timing gate, the repetitions), program.go (the variant tables, plans' shared
// parts) and one P.go a program.
package gpu

/*
#cgo CFLAGS: -I${SRCDIR}/../../cuda/include -I/usr/local/cuda/include
#include <stdlib.h>
#include "tecaj.h"
#include <cuda_runtime_api.h>
*/
import "C"
