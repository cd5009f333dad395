package gpu

/*
#include <stdlib.h>
#include "tecaj.h"
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Program is one of the library's programs.
type Program int

// The programs, as tecaj.h numbers them.
const (
	Razlika  Program = C.TC_RAZLIKA
	Razdalja Program = C.TC_RAZDALJA
)

// Output says what a variant writes to its output buffer.
type Output int

// The outputs, as tecaj.h numbers them.
const (
	OutElements Output = C.TC_OUT_ELEMENTS // n floats
	OutPartials Output = C.TC_OUT_PARTIALS // one float per block, summed by the host
	OutScalar   Output = C.TC_OUT_SCALAR   // one float, the finished sum
)

// Variant is a row of a program's variant table (the library's, shared with the C++ tests).
type Variant struct {
	Index       int
	Name        string
	Summary     string
	Domain      string
	Bytes       string // the bytes it must move, as a formula of n
	Output      Output
	Managed     bool // its lesson is unified memory: inputs and outputs are cudaMallocManaged
	KernelCount int
}

// Variants lists a program's device variants in lecture order.
func Variants(p Program) []Variant {
	n := int(C.tc_variant_count(C.tc_program(p)))
	vs := make([]Variant, n)
	for i := range vs {
		v := C.tc_variant_at(C.tc_program(p), C.int(i))
		vs[i] = Variant{
			Index: i, Name: C.GoString(v.name), Summary: C.GoString(v.summary), Domain: C.GoString(v.domain),
			Bytes: C.GoString(v.bytes), Output: Output(v.output), Managed: v.flags&C.TC_MANAGED != 0,
			KernelCount: int(v.kernel_count),
		}
	}
	return vs
}

// Plan is a resolved launch (tc_plan).
type Plan struct {
	Variant           Variant
	N                 int64
	Threads, Blocks   int
	OutCount          int64   // floats the variant writes
	ScratchBytes      int64   // device scratch it needs, zero-filled when allocated
	BytesMoved        float64 // for GB/s
	AccumulationDepth int64
	Batch, Padded     int64 // urejanje: arrays, and each array's length in the network
	Launches          int   // urejanje: kernel launches one sort makes
	c                 C.tc_plan
}

// AllocScratch allocates the plan's scratch zero-filled, as the C ABI asks.
func (p *Plan) AllocScratch() (*Buffer, error) {
	b, err := Alloc(p.ScratchBytes, false)
	if err != nil {
		return nil, err
	}
	if err := b.Fill(0); err != nil {
		b.Free()
		return nil, err
	}
	return b, nil
}

// PlanLaunch checks the request against the variant's domain and resolves threads and blocks
// (0 = the variant's default). Outside the domain the error wraps ErrOutsideDomain.
func (d *Device) PlanLaunch(p Program, v Variant, n int64, threads, blocks int) (*Plan, error) {
	return planFor(p, v, n, threads, blocks, d.desc)
}

// planFor plans for a described device (tests without a GPU use a made-up one).
func planFor(p Program, v Variant, n int64, threads, blocks int, desc C.tc_device) (*Plan, error) {
	pl := &Plan{Variant: v}
	s := C.tc_plan_launch(C.tc_program(p), C.int(v.Index), C.int64_t(n), C.int(threads), C.int(blocks), &desc, &pl.c)
	if err := check(fmt.Sprintf("planning variant %s for n=%d", v.Name, n), s); err != nil {
		return nil, err
	}
	pl.fill()
	return pl, nil
}

func (pl *Plan) fill() {
	pl.N, pl.Threads, pl.Blocks = int64(pl.c.n), int(pl.c.threads), int(pl.c.blocks)
	pl.OutCount, pl.ScratchBytes = int64(pl.c.out_count), int64(pl.c.scratch_bytes)
	pl.BytesMoved, pl.AccumulationDepth = float64(pl.c.bytes_moved), int64(pl.c.accumulation_depth)
	pl.Batch, pl.Padded, pl.Launches = int64(pl.c.batch), int64(pl.c.padded), int(pl.c.launches)
}

// h100Like describes a device for plans made without one (tests).
func h100Like() C.tc_device {
	return C.tc_device{multiprocessors: 132, max_threads_per_multiprocessor: 2048, max_grid_x: 2147483647}
}

// RunRazlika launches c = a - b.
func RunRazlika(pl *Plan, a, b, c *Buffer) error {
	return check("launching razlika "+pl.Variant.Name, C.tc_razlika_run(&pl.c, a.floats(), b.floats(), c.floats(), nil))
}

// RunRazdalja launches the device part of the distance; out receives pl.OutCount floats.
func RunRazdalja(pl *Plan, a, b, out, scratch *Buffer) error {
	var s unsafe.Pointer
	if scratch != nil {
		s = scratch.ptr
	}
	return check("launching razdalja "+pl.Variant.Name, C.tc_razdalja_run(&pl.c, a.floats(), b.floats(), out.floats(), s, nil))
}

// FinishRazdalja is the host's part: the sum of squares from the floats copied back.
func FinishRazdalja(pl *Plan, out []float32) float64 {
	if int64(len(out)) < pl.OutCount {
		panic("gpu: FinishRazdalja needs OutCount floats")
	}
	return float64(C.tc_razdalja_finish(&pl.c, (*C.float)(unsafe.Pointer(&out[0]))))
}

// RazdaljaTolerance is the derived relative error bound of the distance (see razdalja.cu).
func RazdaljaTolerance(pl *Plan) float64 { return float64(C.tc_razdalja_tolerance(&pl.c)) }

// KernelInfo is cudaFuncGetAttributes of one kernel, as the lecture's kernel_meminfo prints it.
type KernelInfo struct {
	Kernel             string
	Registers          int
	StaticSharedBytes  int64
	LocalBytes         int64
	ConstBytes         int64
	MaxThreadsPerBlock int
}

// Kernels returns the attributes of a variant's kernels (none for a library baseline).
func Kernels(p Program, v Variant) ([]KernelInfo, error) {
	var out []KernelInfo
	for k := 0; k < v.KernelCount; k++ {
		var a C.tc_kernel_info
		if err := check("reading kernel attributes of "+v.Name, C.tc_kernel_attributes(C.tc_program(p), C.int(v.Index), C.int(k), &a)); err != nil {
			return nil, err
		}
		out = append(out, KernelInfo{
			Kernel: C.GoString(a.kernel), Registers: int(a.registers), StaticSharedBytes: int64(a.static_shared_bytes),
			LocalBytes: int64(a.local_bytes), ConstBytes: int64(a.const_bytes), MaxThreadsPerBlock: int(a.max_threads_per_block),
		})
	}
	return out, nil
}

// Urejanje is the bitonic sort program.
const Urejanje Program = C.TC_UREJANJE

// KeyType is the type of the sort's 32-bit keys.
type KeyType int

// The key types, as tecaj.h numbers them.
const (
	Float32 KeyType = C.TC_KEY_FLOAT32
	Int32   KeyType = C.TC_KEY_INT32
	Uint32  KeyType = C.TC_KEY_UINT32
)

// PlanSort plans a sort of batch arrays of n keys (threads a power of two from 32 to 1024).
func (d *Device) PlanSort(v Variant, n, batch int64, pairs bool, threads int) (*Plan, error) {
	return planSortFor(v, n, batch, pairs, threads, d.desc)
}

func planSortFor(v Variant, n, batch int64, pairs bool, threads int, desc C.tc_device) (*Plan, error) {
	pl := &Plan{Variant: v}
	p := C.int(0)
	if pairs {
		p = 1
	}
	s := C.tc_urejanje_plan(C.int(v.Index), C.int64_t(n), C.int64_t(batch), p, C.int(threads), &desc, &pl.c)
	if err := check(fmt.Sprintf("planning sort variant %s for n=%d batch=%d", v.Name, n, batch), s); err != nil {
		return nil, err
	}
	pl.fill()
	return pl, nil
}

// RunUrejanje sorts keysIn into keysOut (and the indices into valuesOut with pairs; else nil).
func RunUrejanje(pl *Plan, t KeyType, descending bool, keysIn, keysOut, valuesOut, scratch *Buffer) error {
	desc := C.int(0)
	if descending {
		desc = 1
	}
	var values *C.uint32_t
	if valuesOut != nil {
		values = (*C.uint32_t)(valuesOut.ptr)
	}
	return check("launching urejanje "+pl.Variant.Name, C.tc_urejanje_run(&pl.c, C.tc_key_type(t), desc, keysIn.ptr, nil,
		keysOut.ptr, values, scratch.ptr, nil))
}
