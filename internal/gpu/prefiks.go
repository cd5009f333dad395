package gpu

/*
#include "tecaj/prefiks.h"
*/
import "C"

import (
	"fmt"

	"tecaj/internal/vocab"
)

// Prefiks is the prefix sums (cuda/prefiks/).
var Prefiks = register(C.tc_prefiks_program())

// ScanOps and ScanTypes are the operators and element types the scans take.
var (
	ScanOps   = []vocab.Op{vocab.Sum, vocab.Max, vocab.Min}
	ScanTypes = []vocab.Dtype{vocab.Float32, vocab.Int32}
)

// PrefiksRequest asks for one scan of N elements.
type PrefiksRequest struct {
	Request
	Op                   vocab.Op
	Type                 vocab.Dtype
	Exclusive, Segmented bool
}

// PrefiksPlan is a resolved scan.
type PrefiksPlan struct {
	Launch
	Levels int   // levels of block totals scanned recursively
	Depth  int64 // the most operations one output goes through
	Rows   int   // best: rows of 128 elements a warp (a tile is 1024 x Rows elements)
	Ahead  int64 // best: how many tiles ahead a tile prefetches into L2 (0: none)
	c      C.tc_prefiks_plan
}

// PlanPrefiks checks the request against the variant's domain and plans the scan; outside the
// domain the error wraps ErrOutsideDomain. A nil device plans for NoGPUProfile.
func (d *Device) PlanPrefiks(r PrefiksRequest) (*PrefiksPlan, error) {
	pl := &PrefiksPlan{}
	req := C.tc_prefiks_request{base: r.c(), op: C.tc_op(r.Op), _type: C.tc_dtype(r.Type),
		exclusive: cbool(r.Exclusive), segmented: cbool(r.Segmented)}
	desc := d.described()
	if err := planError(Prefiks, r.Request, C.tc_prefiks_make_plan(&req, &desc, &pl.c)); err != nil {
		return nil, fmt.Errorf("%w (-op %s -type %s)", err, r.Op, r.Type)
	}
	pl.Launch = launchOf(r.Variant, &pl.c.launch)
	pl.Levels, pl.Depth = int(pl.c.levels), int64(pl.c.depth)
	pl.Rows, pl.Ahead = int(pl.c.rows), int64(pl.c.ahead)
	return pl, nil
}

// RunPrefiks scans in into out (flags: n bytes, segmented plans only; else nil).
func RunPrefiks(pl *PrefiksPlan, in, flags, out, scratch *Buffer) error {
	return check("launching prefiks "+pl.Variant.Name, C.tc_prefiks_run(&pl.c, in.pointer(), (*C.uint8_t)(flags.pointer()),
		out.pointer(), scratch.pointer(), nil))
}

// PrefiksTolerance is the bound on |out[i] - exact| for float sums given the magnitude of what
// out[i] combines; 0 where the result must be exact.
func PrefiksTolerance(pl *PrefiksPlan, prefixAbs float64) float64 {
	return float64(C.tc_prefiks_tolerance(&pl.c, C.double(prefixAbs)))
}

// PrefiksCarryBytes is what one GPU's slice passes on to the slices after it, and
// PrefiksCarryWorkBytes the device memory PrefiksCarryOut works in.
const (
	PrefiksCarryBytes     = C.TC_PREFIKS_CARRY_BYTES
	PrefiksCarryWorkBytes = C.TC_PREFIKS_CARRY_WORK_BYTES
)

// PrefiksCarryOut reduces the slice's input (flags: nil for a plain scan) to its carry
// (PrefiksCarryBytes): its total since its last head, before the slice is scanned; queued on s.
func PrefiksCarryOut(pl *PrefiksPlan, in, flags, work, carry *Buffer, s *Stream) error {
	return check("a slice's carry", C.tc_prefiks_carry_out(&pl.c, in.pointer(), (*C.uint8_t)(flags.pointer()), work.pointer(),
		carry.pointer(), s.c()))
}

// RunPrefiksAfter scans slice rank of count (a best plan) starting from the carries of the slices
// before it (all count of them gathered in carries, in GPU order, and folded by the scan itself):
// the slice's part of the whole scan, queued on s.
func RunPrefiksAfter(pl *PrefiksPlan, in, flags, out, scratch, carries *Buffer, count, rank int, s *Stream) error {
	return check("prefiks best after the slices before", C.tc_prefiks_run_after(&pl.c, in.pointer(), (*C.uint8_t)(flags.pointer()),
		out.pointer(), scratch.pointer(), carries.pointer(), C.int(count), C.int(rank), s.c()))
}

// PrefiksCarryDepth is the most operations a carry's value goes through (for the tolerance).
func PrefiksCarryDepth(pl *PrefiksPlan) int64 { return int64(C.tc_prefiks_carry_depth(&pl.c)) }

// WithDepth is the plan with another depth (several GPUs: the deepest slice's, plus the carries'
// operations), for PrefiksTolerance.
func (pl *PrefiksPlan) WithDepth(depth int64) *PrefiksPlan {
	c := *pl
	c.Depth, c.c.depth = depth, C.int64_t(depth)
	return &c
}
