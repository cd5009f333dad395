package gpu

// NCCL, loaded at run time (dlopen): the commands build and run where it is missing, and only
// -gpus needs it. Its header is the toolkit's (/usr/local/cuda/include/nccl.h).

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <nccl.h>

static void *nccl_lib;
static ncclResult_t (*p_GetVersion)(int *);
static ncclResult_t (*p_GetUniqueId)(ncclUniqueId *);
static ncclResult_t (*p_CommInitRank)(ncclComm_t *, int, ncclUniqueId, int);
static ncclResult_t (*p_CommInitAll)(ncclComm_t *, int, const int *);
static ncclResult_t (*p_CommDestroy)(ncclComm_t);
static ncclResult_t (*p_CommAbort)(ncclComm_t);
static ncclResult_t (*p_AllGather)(const void *, void *, size_t, ncclDataType_t, ncclComm_t, cudaStream_t);
static ncclResult_t (*p_GroupStart)(void);
static ncclResult_t (*p_GroupEnd)(void);
static const char *(*p_GetErrorString)(ncclResult_t);

// Opens path and finds every symbol; NULL on success, else what failed.
static const char *tc_nccl_open(const char *path) {
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) return dlerror();
#define TC_SYM(name) if (!(*(void **)&p_##name = dlsym(h, "nccl" #name))) { dlclose(h); return "nccl" #name " is missing"; }
	TC_SYM(GetVersion) TC_SYM(GetUniqueId) TC_SYM(CommInitRank) TC_SYM(CommInitAll) TC_SYM(CommDestroy) TC_SYM(CommAbort)
	TC_SYM(AllGather) TC_SYM(GroupStart) TC_SYM(GroupEnd) TC_SYM(GetErrorString)
#undef TC_SYM
	nccl_lib = h;
	return NULL;
}
static int tc_nccl_version(void) { int v = 0; p_GetVersion(&v); return v; }
static ncclResult_t tc_nccl_unique_id(void *id) { return p_GetUniqueId((ncclUniqueId *)id); }
static ncclResult_t tc_nccl_init_rank(ncclComm_t *c, int nranks, const void *id, int rank) {
	ncclUniqueId u;
	memcpy(&u, id, sizeof u);
	return p_CommInitRank(c, nranks, u, rank);
}
static ncclResult_t tc_nccl_init_all(ncclComm_t *c, int n, const int *devs) { return p_CommInitAll(c, n, devs); }
static ncclResult_t tc_nccl_destroy(ncclComm_t c) { return p_CommDestroy(c); }
static ncclResult_t tc_nccl_abort(ncclComm_t c) { return p_CommAbort(c); }
static ncclResult_t tc_nccl_all_gather(const void *s, void *r, size_t bytes, ncclComm_t c, cudaStream_t stream) {
	return p_AllGather(s, r, bytes, ncclUint8, c, stream);
}
static ncclResult_t tc_nccl_group_start(void) { return p_GroupStart(); }
static ncclResult_t tc_nccl_group_end(void) { return p_GroupEnd(); }
static const char *tc_nccl_error(ncclResult_t r) { return p_GetErrorString(r); }
*/
import "C"

import (
	"fmt"
	"os"
	"strings"
	"sync"
	"unsafe"
)

// UniqueIDBytes is the size of the id that rank 0 makes and every rank needs (ncclUniqueId).
const UniqueIDBytes = C.NCCL_UNIQUE_ID_BYTES

var ncclOnce struct {
	sync.Once
	err     error
	version int
}

// ncclCandidates: TECAJ_NCCL if set (a wheel's libnccl.so.2: run.sh finds PyTorch's), then the
// dynamic linker's search and the toolkit's lib64.
func ncclCandidates() []string {
	var out []string
	if p := os.Getenv("TECAJ_NCCL"); p != "" {
		out = append(out, p)
	}
	return append(out, "libnccl.so.2", "libnccl.so", "/usr/local/cuda/lib64/libnccl.so.2")
}

// NCCL loads the library once; the error says where it was looked for.
func NCCL() (version string, err error) {
	ncclOnce.Do(func() {
		// NVLink SHARP (multicast) stays off: on shared hosts it can take GPUs out of service
		os.Setenv("NCCL_NVLS_ENABLE", "0")
		var tried []string
		for _, path := range ncclCandidates() {
			cpath := C.CString(path)
			msg := C.tc_nccl_open(cpath)
			C.free(unsafe.Pointer(cpath))
			if msg == nil {
				ncclOnce.version = int(C.tc_nccl_version())
				return
			}
			tried = append(tried, path)
		}
		ncclOnce.err = fmt.Errorf("NCCL not found (tried %s; set TECAJ_NCCL to libnccl.so.2)", strings.Join(tried, ", "))
	})
	v := ncclOnce.version
	return fmt.Sprintf("%d.%d.%d", v/10000, v/100%100, v%100), ncclOnce.err
}

func ncclCheck(op string, r C.ncclResult_t) error {
	if r == C.ncclSuccess {
		return nil
	}
	return fmt.Errorf("%s: %s (NCCL error %d)", op, C.GoString(C.tc_nccl_error(r)), int(r))
}

// Comm is one rank's NCCL communicator.
type Comm struct {
	c           C.ncclComm_t
	Rank, Ranks int
}

// UniqueID makes the id rank 0 hands to every rank (-coordinator passes it over TCP).
func UniqueID() ([]byte, error) {
	if _, err := NCCL(); err != nil {
		return nil, err
	}
	id := make([]byte, UniqueIDBytes)
	return id, ncclCheck("making NCCL's unique id", C.tc_nccl_unique_id(unsafe.Pointer(&id[0])))
}

// InitRank joins rank of ranks with id, on the calling thread's device (one process a GPU).
func InitRank(id []byte, rank, ranks int) (*Comm, error) {
	if _, err := NCCL(); err != nil {
		return nil, err
	}
	if len(id) != UniqueIDBytes {
		return nil, fmt.Errorf("an NCCL id of %d bytes, not %d", len(id), UniqueIDBytes)
	}
	c := &Comm{Rank: rank, Ranks: ranks}
	return c, ncclCheck(fmt.Sprintf("joining NCCL as rank %d of %d", rank, ranks),
		C.tc_nccl_init_rank(&c.c, C.int(ranks), unsafe.Pointer(&id[0]), C.int(rank)))
}

// InitAll makes one communicator a device, devices 0..n-1, in this process (ncclCommInitAll).
func InitAll(n int) ([]*Comm, error) {
	if _, err := NCCL(); err != nil {
		return nil, err
	}
	cs := make([]C.ncclComm_t, n)
	devs := make([]C.int, n)
	for i := range devs {
		devs[i] = C.int(i)
	}
	if err := ncclCheck(fmt.Sprintf("making NCCL communicators for %d GPUs", n), C.tc_nccl_init_all(&cs[0], C.int(n), &devs[0])); err != nil {
		return nil, err
	}
	out := make([]*Comm, n)
	for i := range cs {
		out[i] = &Comm{c: cs[i], Rank: i, Ranks: n}
	}
	return out, nil
}

// Destroy frees the communicator; nil is ignored.
func (c *Comm) Destroy() {
	if c != nil && c.c != nil {
		C.tc_nccl_destroy(c.c)
		c.c = nil
	}
}

// Abort ends the communicator and every collective of it still queued or running (ncclCommAbort):
// after an error that left a collective some peer will never answer, which would otherwise hold its
// device, and every free that waits for it, for ever. nil is ignored; Destroy then does nothing.
func (c *Comm) Abort() {
	if c != nil && c.c != nil {
		C.tc_nccl_abort(c.c)
		c.c = nil
	}
}

// AllGather gathers bytes from every rank's send into recv (Ranks x bytes, in rank order), queued
// on s (a stream of the communicator's device; nil: its legacy default stream).
func (c *Comm) AllGather(send, recv *Buffer, bytes int64, s *Stream) error {
	if send.bytes < bytes || recv.bytes < bytes*int64(c.Ranks) {
		return fmt.Errorf("all-gather of %d bytes from %d ranks: buffers of %d and %d bytes", bytes, c.Ranks, send.bytes, recv.bytes)
	}
	return ncclCheck("NCCL all-gather", C.tc_nccl_all_gather(send.ptr, recv.ptr, C.size_t(bytes), c.c, s.c()))
}

// Group issues the collectives f queues as one NCCL group (ncclGroupStart ... ncclGroupEnd): one
// launch over every communicator of this process, from the calling thread, whatever each
// communicator's device. The group ends on an error of f too; f's error comes first.
func Group(f func() error) error {
	if err := ncclCheck("starting an NCCL group", C.tc_nccl_group_start()); err != nil {
		return err
	}
	err := f()
	if end := ncclCheck("ending an NCCL group", C.tc_nccl_group_end()); err == nil {
		err = end
	}
	return err
}
