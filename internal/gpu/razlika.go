package gpu

/*
#include "tecaj/razlika.h"
*/
import "C"

// Razlika is c = a - b (cuda/razlika.cu).
var Razlika = register(C.tc_razlika_program())

// RazlikaPlan is a resolved razlika launch.
type RazlikaPlan struct {
	Launch
	c C.tc_razlika_plan
}

// PlanRazlika checks the request against the variant's domain and resolves threads and blocks;
// outside the domain the error wraps ErrOutsideDomain. A nil device plans for NoGPUProfile.
func (d *Device) PlanRazlika(r Request) (*RazlikaPlan, error) {
	pl := &RazlikaPlan{}
	req := C.tc_razlika_request{base: r.c()}
	desc := d.described()
	if err := planError(Razlika, r, C.tc_razlika_make_plan(&req, &desc, &pl.c)); err != nil {
		return nil, err
	}
	pl.Launch = launchOf(r.Variant, &pl.c.launch)
	return pl, nil
}

// RunRazlika launches c = a - b.
func RunRazlika(pl *RazlikaPlan, a, b, c *Buffer) error {
	return check("launching razlika "+pl.Variant.Name, C.tc_razlika_run(&pl.c, a.floats(), b.floats(), c.floats(), nil))
}
