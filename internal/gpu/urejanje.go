package gpu

/*
#include "tecaj/urejanje.h"
*/
import "C"

import "tecaj/internal/vocab"

// Urejanje is the bitonic sort (cuda/urejanje/).
var Urejanje = register(C.tc_urejanje_program())

// UrejanjeBlockTile is radix's block sort's tile: an array of at most this many keys is sorted by
// one block, and best decides such arrays by its own rule (UrejanjePlan's RadixAbove).
const UrejanjeBlockTile = int64(C.TC_UREJANJE_BLOCK_TILE)

// SortTypes are the key types the sort takes.
var SortTypes = []vocab.Dtype{vocab.Float32, vocab.Int32, vocab.Uint32}

// UrejanjeRequest asks for a sort of Batch arrays of N keys (Threads a power of two, Blocks 0).
type UrejanjeRequest struct {
	Request
	Batch      int64
	Pairs      bool
	Type       vocab.Dtype // float32 (the zero value), int32 or uint32
	Descending bool
}

// UrejanjePlan is a resolved sort.
type UrejanjePlan struct {
	Launch
	Batch, Padded int64 // arrays, and each array's length in the network
	// Radix: the run is radix's sort (radix; best where it chose it). RadixAbove: best's rule past
	// RankMost or in a batch, from the device: arrays longer than this and than UrejanjeBlockTile take radix's sort,
	// shorter ones the network; arrays of 2049 to 4096 keys radix's block sort with pairs, or with
	// keys in a batch of at least the SMs.
	Radix      bool
	RadixAbove int64
	// Rank: best chose its rank sort (every pair of keys compared), which it takes for one array of
	// at most RankMost keys (from the device: its SMs and shared memory); stable, as radix is.
	Rank     bool
	RankMost int64
	c        C.tc_urejanje_plan
}

// PlanUrejanje checks the request against the variant's domain and plans a sort; outside the
// domain the error wraps ErrOutsideDomain. A nil device plans for NoGPUProfile.
func (d *Device) PlanUrejanje(r UrejanjeRequest) (*UrejanjePlan, error) {
	pl := &UrejanjePlan{}
	req := C.tc_urejanje_request{base: r.c(), batch: C.int64_t(r.Batch), pairs: cbool(r.Pairs), _type: C.tc_dtype(r.Type),
		descending: cbool(r.Descending)}
	desc := d.described()
	if err := planError(Urejanje, r.Request, C.tc_urejanje_make_plan(&req, &desc, &pl.c)); err != nil {
		return nil, err
	}
	pl.Launch = launchOf(r.Variant, &pl.c.launch)
	pl.Batch, pl.Padded = int64(pl.c.batch), int64(pl.c.padded)
	pl.Radix, pl.RadixAbove = pl.c.radix != 0, int64(pl.c.radix_above)
	pl.Rank, pl.RankMost = pl.c.rank != 0, int64(pl.c.rank_most)
	return pl, nil
}

// RunUrejanje sorts keysIn into keysOut (the plan's key type and direction); with pairs, valuesOut
// receives the values: valuesIn's, or each key's index in its array where valuesIn is nil (an argsort).
func RunUrejanje(pl *UrejanjePlan, keysIn, valuesIn, keysOut, valuesOut, scratch *Buffer) error {
	return check("launching urejanje "+pl.Variant.Name, C.tc_urejanje_run(&pl.c, keysIn.pointer(),
		(*C.uint32_t)(valuesIn.pointer()), keysOut.pointer(), (*C.uint32_t)(valuesOut.pointer()), scratch.pointer(), nil))
}
