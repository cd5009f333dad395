package gpu

/*
#include <stdlib.h>
#include "tecaj/konvolucija.h"
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Konvolucija is the convolutions (cuda/konvolucija/).
var Konvolucija = register(C.tc_konvolucija_program())

// KonvolucijaRequest asks for one convolution of a Width x Height image (1-D: Height 1) with a mask of
// MaskW x MaskH (odd) weights, Mask (row-major; the plan keeps a copy, the one its runs use);
// Replicate picks the border (else zero); Magnitude asks for sqrt(gx^2 + gy^2) of the mask and its
// transpose (square masks, best).
// Uint8: 8-bit pixels in and out (best; 2-D; square masks of 3, 5, 7).
type KonvolucijaRequest struct {
	Request
	Dim, Width, Height, MaskW, MaskH int
	Mask                             []float32
	Replicate, Magnitude, Uint8      bool
}

// KonvolucijaPlan is a resolved convolution.
type KonvolucijaPlan struct {
	Launch
	c C.tc_konvolucija_plan
}

// PlanKonvolucija checks the request against the variant's domain and plans the convolution;
// outside the domain the error wraps ErrOutsideDomain. A nil device plans for NoGPUProfile.
func (d *Device) PlanKonvolucija(r KonvolucijaRequest) (*KonvolucijaPlan, error) {
	pl := &KonvolucijaPlan{}
	if len(r.Mask) != r.MaskW*r.MaskH || len(r.Mask) == 0 {
		return nil, fmt.Errorf("planning konvolucija: a %d x %d mask needs %d weights, not %d", r.MaskW, r.MaskH, r.MaskW*r.MaskH, len(r.Mask))
	}
	// (in C memory: the request that points at it crosses into C)
	mask := C.malloc(C.size_t(4 * len(r.Mask)))
	defer C.free(mask)
	copy(unsafe.Slice((*float32)(mask), len(r.Mask)), r.Mask)
	border := C.tc_border(C.TC_BORDER_ZERO)
	if r.Replicate {
		border = C.TC_BORDER_REPLICATE
	}
	req := C.tc_konvolucija_request{base: r.c(), dim: C.int(r.Dim), width: C.int(r.Width), height: C.int(r.Height),
		mask_w: C.int(r.MaskW), mask_h: C.int(r.MaskH), border: border, magnitude: cbool(r.Magnitude),
		mask: (*C.float)(mask)}
	if r.Uint8 {
		req.pixel = C.TC_UINT8
	}
	desc := d.described()
	if err := planError(Konvolucija, r.Request, C.tc_konvolucija_make_plan(&req, &desc, &pl.c)); err != nil {
		return nil, err
	}
	pl.Launch = launchOf(r.Variant, &pl.c.launch)
	return pl, nil
}

// RunKonvolucija convolves in into out, each width x height pixels of the plan's type (float32
// or 8-bit), with the plan's mask (the only one: best launches with it, and the lecture's
// variants and npp have it written to device memory at the start of the run).
func RunKonvolucija(pl *KonvolucijaPlan, in, out *Buffer) error {
	return check("launching konvolucija "+pl.Variant.Name, C.tc_konvolucija_run(&pl.c, in.pointer(), out.pointer(), nil))
}
