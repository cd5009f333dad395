package gpu

/*
#include "tecaj.h"
*/
import "C"

import (
	"fmt"
	"os"
	"sort"
	"unsafe"
)

// Program is one of the library's programs: its name, the unit of its items and its variant
// table. Each program's own file (P.go) registers it; nothing else names a program.
type Program struct {
	Name string
	Unit string // what its items are called: elements, keys, pixels
	c    *C.tc_program
}

var registry = map[string]*Program{}

func register(c *C.tc_program) *Program {
	p := &Program{Name: C.GoString(C.tc_program_name(c)), Unit: C.GoString(C.tc_program_unit(c)), c: c}
	registry[p.Name] = p
	return p
}

// Programs lists every program of the library, by name.
func Programs() []*Program {
	ps := make([]*Program, 0, len(registry))
	for _, p := range registry {
		ps = append(ps, p)
	}
	sort.Slice(ps, func(i, j int) bool { return ps[i].Name < ps[j].Name })
	return ps
}

// Variant is a row of a program's variant table (the library's, shared with the C++ tests).
type Variant struct {
	Index          int
	Name           string
	Summary        string
	Domain         string
	Bytes          string   // the bytes it must move, as a formula of n
	Kernels        []string // every kernel (and instantiation) a run can launch
	Managed        bool     // its lesson is unified memory: inputs and outputs are cudaMallocManaged
	Pow2Threads    bool     // threads must be a power of two
	OwnGrid        bool     // it sizes its own grid: -blocks must be 0
	Library        bool     // a library baseline (CUB, NPP): its kernels are the library's
	CounterExample bool     // the lecture's counter-example: expected to be wrong
}

// Variant is the variant of that name (ok false: none).
func (p *Program) Variant(name string) (v Variant, ok bool) {
	for _, v := range p.Variants() {
		if v.Name == name {
			return v, true
		}
	}
	return Variant{}, false
}

// Variants lists the program's device variants in lecture order.
func (p *Program) Variants() []Variant {
	n := int(C.tc_variant_count(p.c))
	vs := make([]Variant, n)
	for i := range vs {
		v := C.tc_variant_at(p.c, C.int(i))
		f := int(v.flags)
		vs[i] = Variant{
			Index: i, Name: C.GoString(v.name), Summary: C.GoString(v.summary), Domain: C.GoString(v.domain),
			Bytes: C.GoString(v.bytes), Managed: f&C.TC_MANAGED != 0, Pow2Threads: f&C.TC_POW2_THREADS != 0,
			OwnGrid: f&C.TC_OWN_GRID != 0, Library: f&C.TC_LIBRARY != 0, CounterExample: f&C.TC_COUNTER_EXAMPLE != 0,
		}
		kernels := unsafe.Slice(v.kernels, int(v.kernel_count))
		for _, k := range kernels {
			vs[i].Kernels = append(vs[i].Kernels, C.GoString(k.name))
		}
	}
	return vs
}

// KernelInfo is cudaFuncGetAttributes of one kernel, as the lecture's kernel_meminfo prints it.
type KernelInfo struct {
	Kernel             string
	Registers          int
	StaticSharedBytes  int64
	LocalBytes         int64
	ConstBytes         int64
	MaxThreadsPerBlock int
}

// KernelInfos returns the attributes of every kernel a variant lists (none for a library baseline).
func (p *Program) KernelInfos(v Variant) ([]KernelInfo, error) {
	var out []KernelInfo
	for k := range v.Kernels {
		var a C.tc_kernel_info
		if err := check(fmt.Sprintf("reading the attributes of %s %s's kernel %s", p.Name, v.Name, v.Kernels[k]),
			C.tc_kernel_attributes(p.c, C.int(v.Index), C.int(k), &a)); err != nil {
			return nil, err
		}
		out = append(out, KernelInfo{
			Kernel: C.GoString(a.kernel), Registers: int(a.registers), StaticSharedBytes: int64(a.static_shared_bytes),
			LocalBytes: int64(a.local_bytes), ConstBytes: int64(a.const_bytes), MaxThreadsPerBlock: int(a.max_threads_per_block),
		})
	}
	return out, nil
}

// Request is what every program's request begins with. Threads and Blocks 0 ask for the
// variant's choice.
type Request struct {
	Variant         Variant
	N               int64
	Threads, Blocks int
}

func (r Request) c() C.tc_request {
	return C.tc_request{variant: C.int(r.Variant.Index), n: C.int64_t(r.N), threads: C.int(r.Threads), blocks: C.int(r.Blocks)}
}

// Launch is the header every plan begins with (tc_launch); the shared run loop reads only this.
type Launch struct {
	Variant         Variant
	N               int64
	Threads, Blocks int   // per block; of the first kernel (0: the library's own)
	Launches        int   // kernel launches one run makes (0: a library's, not counted)
	OutCount        int64 // output elements the run writes
	Items           int64 // items one run processes (elements, keys), for the rate column
	ScratchBytes    int64 // device scratch, zero-filled when allocated
	BytesMoved      float64
	SharedBytes     int64 // the most dynamic shared memory one of its launches asks for
}

// Plan is any program's plan: its launch header and its own fields.
type Plan interface{ Header() *Launch }

// Header returns the launch header.
func (l *Launch) Header() *Launch { return l }

func launchOf(v Variant, c *C.tc_launch) Launch {
	return Launch{
		Variant: v, N: int64(c.n), Threads: int(c.threads), Blocks: int(c.blocks), Launches: int(c.launches),
		OutCount: int64(c.out_count), Items: int64(c.items), ScratchBytes: int64(c.scratch_bytes),
		BytesMoved: float64(c.bytes_moved), SharedBytes: int64(c.shared_bytes),
	}
}

// cbool is a C flag: 1 or 0.
func cbool(b bool) C.int {
	if b {
		return 1
	}
	return 0
}

func planError(p *Program, r Request, s C.tc_status) error {
	return check(fmt.Sprintf("planning %s -variant %s for n=%d threads=%d blocks=%d", p.Name, r.Variant.Name, r.N,
		r.Threads, r.Blocks), s)
}

// AllocScratch allocates the plan's scratch zero-filled, as the C ABI asks.
func (l *Launch) AllocScratch() (*Buffer, error) {
	b, err := Alloc(l.ScratchBytes, false)
	if err != nil {
		return nil, err
	}
	if err := b.Fill(0); err != nil {
		b.Free()
		return nil, err
	}
	return b, nil
}

// NoGPUProfile is the profile whose figures plans are made for where there is no GPU (usage
// errors and domains are checked before any GPU is opened; tests).
const NoGPUProfile = "a100"

// Described is the device figures a plan needs: the open device's, or (for plans made without a
// GPU) those of NoGPUProfile.
func (d *Device) described() C.tc_device {
	if d == nil {
		if p := os.Getenv("TECAJ_EMULATE"); p != "" { // (the commands refuse an unknown name first)
			if desc, err := Profile(p); err == nil {
				return desc.desc
			}
		}
		desc, err := Profile(NoGPUProfile)
		if err != nil {
			panic(err) // a profile of the library's own table
		}
		return desc.desc
	}
	return d.desc
}

// where names the figures a plan of d was made for: "this GPU", or a profile's.
func (d *Device) where() string {
	desc := d.described()
	if name := C.GoString(&desc.profile[0]); name != "" {
		return "the " + name + " profile" + map[bool]string{true: " (no GPU here)", false: ""}[d == nil]
	}
	return "this GPU"
}

func (b *Buffer) pointer() unsafe.Pointer {
	if b == nil {
		return nil
	}
	return b.ptr
}
