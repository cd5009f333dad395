package gpu

/*
#include "tecaj/redukcija.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"

	"tecaj/internal/vocab"
)

// Redukcija is the reductions (cuda/redukcija/).
var Redukcija = register(C.tc_redukcija_program())

// ReduceOps and ReduceTypes are the operators and element types the reductions take.
var (
	ReduceOps   = []vocab.Op{vocab.Sum, vocab.Min, vocab.Max, vocab.Mean, vocab.Norm, vocab.Dot, vocab.ArgMin, vocab.ArgMax}
	ReduceTypes = []vocab.Dtype{vocab.Float32, vocab.Float64, vocab.Int32}
)

// RedukcijaRequest asks for one reduction of N elements.
type RedukcijaRequest struct {
	Request
	Op   vocab.Op
	Type vocab.Dtype
}

// RedukcijaPlan is a resolved reduction.
type RedukcijaPlan struct {
	Launch
	Op          vocab.Op
	Type        vocab.Dtype
	Accumulator vocab.Dtype // what the device accumulates in (float32, float64, int64 or int32)
	Depth       int64       // the most additions one element goes through
	c           C.tc_redukcija_plan
}

// ResultBytes are the ranges of the ReductionOutBytes that a run writes: the accumulator's value
// (4 or 8 bytes at 0) and, for argmin/argmax, the index (8 bytes at 8); the rest is padding.
func (pl *RedukcijaPlan) ResultBytes() [][2]int {
	value := pl.Accumulator.Bytes()
	if pl.Op.Arg() {
		return [][2]int{{0, value}, {8, 16}}
	}
	return [][2]int{{0, value}}
}

// ReductionOutBytes is the device memory a run writes its result to.
const ReductionOutBytes = C.TC_REDUKCIJA_OUT_BYTES

// PlanRedukcija checks the request against the variant's domain and plans the reduction; outside
// the domain the error wraps ErrOutsideDomain (and names the most blocks, where there were too
// many: cg's co-resident grid). A nil device plans for NoGPUProfile.
func (d *Device) PlanRedukcija(r RedukcijaRequest) (*RedukcijaPlan, error) {
	pl := &RedukcijaPlan{Op: r.Op, Type: r.Type}
	req := C.tc_redukcija_request{base: r.c(), op: C.tc_op(r.Op), _type: C.tc_dtype(r.Type)}
	desc := d.described()
	if err := planError(Redukcija, r.Request, C.tc_redukcija_make_plan(&req, &desc, &pl.c)); err != nil {
		if most := int(pl.c.launch.blocks); errors.Is(err, ErrOutsideDomain) && most > 0 && most < r.Blocks {
			return nil, &DomainDetail{Err: fmt.Errorf("%w (-op %s -type %s)", err, r.Op, r.Type),
				Detail: fmt.Sprintf("at most %d blocks of %d threads on %s", most, pl.c.launch.threads, d.where())}
		}
		return nil, fmt.Errorf("%w (-op %s -type %s)", err, r.Op, r.Type)
	}
	pl.Launch = launchOf(r.Variant, &pl.c.launch)
	pl.Depth, pl.Accumulator = int64(pl.c.depth), vocab.Dtype(pl.c.accumulator)
	return pl, nil
}

// RunRedukcija reduces a (and b, for dot) into out (ReductionOutBytes), queued on s (nil: the
// legacy default stream).
func RunRedukcija(pl *RedukcijaPlan, a, b, out, scratch *Buffer, s *Stream) error {
	return check("launching redukcija "+pl.Variant.Name, C.tc_redukcija_run(&pl.c, a.pointer(), b.pointer(), out.pointer(),
		scratch.pointer(), s.c()))
}

// ReductionResult is a run's result, decoded on the host.
type ReductionResult struct {
	Value float64 // mean: sum/n; norm: the root
	Exact int64   // int32 sum, norm^2 and dot (exact int64); int32 min and max
	Index int64   // argmin/argmax; -1 otherwise
}

// FinishRedukcija decodes the ReductionOutBytes copied back from out.
func FinishRedukcija(pl *RedukcijaPlan, host []byte) ReductionResult {
	if len(host) < ReductionOutBytes {
		panic("gpu: FinishRedukcija needs ReductionOutBytes")
	}
	var r C.tc_redukcija_result
	C.tc_redukcija_finish(&pl.c, unsafe.Pointer(&host[0]), &r)
	return ReductionResult{Value: float64(r.value), Exact: int64(r.exact), Index: int64(r.index)}
}

// RedukcijaTolerance is the derived bound on |sum - exact| given sumAbs (see cuda/redukcija/).
func RedukcijaTolerance(pl *RedukcijaPlan, sumAbs float64) float64 {
	return float64(C.tc_redukcija_tolerance(&pl.c, C.double(sumAbs)))
}

// CombineRedukcijaOn folds several GPUs' results on the device, queued on s: count results in
// parts (ReductionOutBytes each, in GPU order), left to right with the plan's operator in its
// accumulator's format; first holds each slice's first index (int64s in device memory, added to an
// arg index; nil for other operators). out (ReductionOutBytes) decodes with FinishRedukcija and a
// plan of the whole n; its bytes are the library's host fold's (tc_redukcija_combine).
func CombineRedukcijaOn(pl *RedukcijaPlan, parts, first *Buffer, count int, out *Buffer, s *Stream) error {
	if count < 1 || parts.bytes < int64(count)*ReductionOutBytes || out.bytes < ReductionOutBytes ||
		(pl.Op.Arg() && (first == nil || first.bytes < 8*int64(count))) {
		return fmt.Errorf("combining %d results on the device: buffers too small", count)
	}
	return check("combining the GPUs' results on the device", C.tc_redukcija_combine_device(&pl.c, parts.pointer(),
		(*C.int64_t)(first.pointer()), C.int(count), out.pointer(), s.c()))
}

// WithDepth is the plan with another accumulation depth (several GPUs: the deepest slice's, plus
// the combine's additions), for RedukcijaTolerance.
func (pl *RedukcijaPlan) WithDepth(depth int64) *RedukcijaPlan {
	c := *pl
	c.Depth, c.c.depth = depth, C.int64_t(depth)
	return &c
}
