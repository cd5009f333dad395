package gpu

/*
#include "tecaj/razdalja.h"
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Razdalja is dist = sqrt(sum (a-b)^2) (cuda/razdalja/).
var Razdalja = register(C.tc_razdalja_program())

// RazdaljaPlan is a resolved razdalja launch.
type RazdaljaPlan struct {
	Launch
	AccumulationDepth int64 // the most additions one term goes through
	Output            RazdaljaOutput
	c                 C.tc_razdalja_plan
}

// RazdaljaOutput is what a variant writes: squares, partials, the sum, or the sum as a float64.
type RazdaljaOutput int

// The outputs (tc_razdalja_output).
const (
	RazdaljaSquares  RazdaljaOutput = C.TC_RAZDALJA_SQUARES
	RazdaljaPartials RazdaljaOutput = C.TC_RAZDALJA_PARTIALS
	RazdaljaScalar   RazdaljaOutput = C.TC_RAZDALJA_SCALAR
	RazdaljaScalar64 RazdaljaOutput = C.TC_RAZDALJA_SCALAR64
)

// PlanRazdalja checks the request against the variant's domain and plans a distance; outside
// the domain the error wraps ErrOutsideDomain. A nil device plans for NoGPUProfile.
func (d *Device) PlanRazdalja(r Request) (*RazdaljaPlan, error) {
	pl := &RazdaljaPlan{}
	req := C.tc_razdalja_request{base: r.c()}
	desc := d.described()
	if err := planError(Razdalja, r, C.tc_razdalja_make_plan(&req, &desc, &pl.c)); err != nil {
		return nil, err
	}
	pl.Launch = launchOf(r.Variant, &pl.c.launch)
	pl.AccumulationDepth = int64(pl.c.accumulation_depth)
	pl.Output = RazdaljaOutput(pl.c.output)
	return pl, nil
}

// RunRazdalja launches the device part of the distance on s (nil: the legacy default stream); out
// receives pl.OutCount floats.
func RunRazdalja(pl *RazdaljaPlan, a, b, out, scratch *Buffer, s *Stream) error {
	return check("launching razdalja "+pl.Variant.Name,
		C.tc_razdalja_run(&pl.c, a.floats(), b.floats(), out.floats(), scratch.pointer(), s.c()))
}

// CombineRazdaljaOn queues, on s, the float64 sum in GPU order of count results (a Scalar64 plan's,
// 8 bytes each in parts, in GPU order) into out, itself a Scalar64 result for FinishRazdalja.
func CombineRazdaljaOn(pl *RazdaljaPlan, parts *Buffer, count int, out *Buffer, s *Stream) error {
	if count < 1 || parts.bytes < 8*int64(count) || out.bytes < 8 {
		return fmt.Errorf("combining %d distances' sums on the device: buffers too small", count)
	}
	return check("combining the GPUs' sums on the device", C.tc_razdalja_combine_device(&pl.c, parts.pointer(), C.int(count),
		out.floats(), s.c()))
}

// FinishRazdalja is the host's part: the sum of squares from the floats copied back.
func FinishRazdalja(pl *RazdaljaPlan, out []float32) float64 {
	if int64(len(out)) < pl.OutCount {
		panic("gpu: FinishRazdalja needs OutCount floats")
	}
	return float64(C.tc_razdalja_finish(&pl.c, (*C.float)(unsafe.Pointer(&out[0]))))
}

// RazdaljaTolerance is the derived relative error bound of the distance (see cuda/razdalja/).
func RazdaljaTolerance(pl *RazdaljaPlan) float64 { return float64(C.tc_razdalja_tolerance(&pl.c)) }
