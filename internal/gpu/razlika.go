package gpu

/*
#include "tecaj/razlika.h"
*/
import "C"

import "fmt"

// Razlika is c = a - b (cuda/razlika/).
var Razlika = register(C.tc_razlika_program())

// RazlikaPlan is a resolved razlika launch.
type RazlikaPlan struct {
	Launch
	// Lesson: the run is the lecture's failure (1 or 3 past its domain): c is wrong, written past
	// n or left unwritten
	Lesson bool
	// Reach is the elements of a, b and c the launch indexes (N, or more in a lesson): each buffer
	// holds Reach, and c's words past N are guard words
	Reach int64
	c     C.tc_razlika_plan
}

// PlanRazlika checks the request against the variant's domain and resolves threads and blocks;
// outside the domain the error wraps ErrOutsideDomain, except that with lesson (the variant
// named, not run as one of all) 1 and 3 run past theirs as the lecture's failure. A nil device
// plans for NoGPUProfile.
func (d *Device) PlanRazlika(r Request, lesson bool) (*RazlikaPlan, error) {
	pl := &RazlikaPlan{}
	req := C.tc_razlika_request{base: r.c(), lesson: cbool(lesson)}
	desc := d.described()
	if err := planError(Razlika, r, C.tc_razlika_make_plan(&req, &desc, &pl.c)); err != nil {
		return nil, err
	}
	pl.Launch = launchOf(r.Variant, &pl.c.launch)
	pl.Lesson, pl.Reach = pl.c.lesson != 0, int64(pl.c.reach)
	return pl, nil
}

// RunRazlika launches c = a - b; a, b and c hold pl.Reach elements.
func RunRazlika(pl *RazlikaPlan, a, b, c *Buffer) error {
	for _, buf := range []*Buffer{a, b, c} {
		if buf.Bytes() < 4*pl.Reach {
			return fmt.Errorf("launching razlika %s: a buffer of %d bytes, the launch reaches %d elements", pl.Variant.Name, buf.Bytes(), pl.Reach)
		}
	}
	return check("launching razlika "+pl.Variant.Name, C.tc_razlika_run(&pl.c, a.floats(), b.floats(), c.floats(), nil))
}

// LessonBuffers are a, b and c of a lesson whose launch reaches past n (pl.Reach > len(a)): a and b
// padded with tail(k, pad) for k = 0, 1 (ordinary values: the kernel reads them), c filled with the
// poison. Free them with FreeEach.
func LessonBuffers(pl *RazlikaPlan, a, b []float32, tail func(k int, pad []float32)) (da, db, dc *Buffer, err error) {
	if err = AllocEach([]**Buffer{&da, &db, &dc}, 4*pl.Reach, 4*pl.Reach, 4*pl.Reach); err != nil {
		return nil, nil, nil, err
	}
	for k, in := range []struct {
		buf  *Buffer
		host []float32
	}{{da, a}, {db, b}} {
		padded := make([]float32, pl.Reach)
		copy(padded, in.host)
		tail(k, padded[len(in.host):])
		if err = in.buf.Upload(padded); err != nil {
			FreeEach(da, db, dc)
			return nil, nil, nil, err
		}
	}
	return da, db, dc, nil
}
