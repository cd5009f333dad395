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
	"os"
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

// NoGPU says whether err means there is no usable GPU: no driver (cudaErrorInsufficientDriver),
// no card (cudaErrorNoDevice), or a driver that cannot run this runtime.
func NoGPU(err error) bool {
	var e *Error
	if !errors.As(err, &e) {
		return false
	}
	switch C.cudaError_t(e.Code) {
	case C.cudaErrorInsufficientDriver, C.cudaErrorNoDevice, C.cudaErrorSystemDriverMismatch, C.cudaErrorCompatNotSupportedOnDevice:
		return true
	}
	return false
}

// NoGPUReason says in words why NoGPU(err) holds: no NVIDIA driver at all (the runtime calls that
// an insufficient driver), a driver older than the runtime, or no device.
func NoGPUReason(err error) string {
	var e *Error
	if errors.As(err, &e) && C.cudaError_t(e.Code) == C.cudaErrorInsufficientDriver {
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
