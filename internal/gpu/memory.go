package gpu

/*
#include <stdlib.h>
#include "tecaj.h"
#include <cuda_runtime_api.h>
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Buffer is device (or managed) memory.
type Buffer struct {
	ptr     unsafe.Pointer
	bytes   int64
	managed bool
}

// Alloc allocates device memory; managed asks for unified memory (cudaMallocManaged).
func Alloc(bytes int64, managed bool) (*Buffer, error) {
	b := &Buffer{bytes: bytes, managed: managed}
	size := C.size_t(bytes)
	if size == 0 {
		size = 16
	}
	var err error
	if managed {
		err = cuda(fmt.Sprintf("allocating %d bytes of managed memory", bytes), C.cudaMallocManaged(&b.ptr, size, C.cudaMemAttachGlobal))
	} else {
		err = cuda(fmt.Sprintf("allocating %d bytes of device memory", bytes), C.cudaMalloc(&b.ptr, size))
	}
	if err != nil {
		return nil, err
	}
	return b, nil
}

// Free releases the memory; a nil buffer is ignored.
func (b *Buffer) Free() {
	if b != nil && b.ptr != nil {
		C.cudaFree(b.ptr)
		b.ptr = nil
	}
}

// Bytes is the buffer's size.
func (b *Buffer) Bytes() int64 { return b.bytes }

// Fill sets every byte (cudaMemset): 0 to zero scratch, 0xFF to poison floats with a NaN
// (0xFFFFFFFF) that no kernel produces (the GPU's NaN is 0x7FFFFFFF).
func (b *Buffer) Fill(value byte) error {
	return cuda("filling a device buffer", C.cudaMemset(b.ptr, C.int(value), C.size_t(b.bytes)))
}

// Floats is a host view of managed memory (valid only for managed buffers, and only while no
// kernel is using it).
func (b *Buffer) Floats() []float32 {
	if !b.managed {
		panic("gpu: Floats on device memory")
	}
	return unsafe.Slice((*float32)(b.ptr), b.bytes/4)
}

// copy is every host-device copy (host: []float32, []uint32 or []byte), to or from the start of
// the buffer: its size checked against the buffer, an empty one a no-op.
func (b *Buffer) copy(host interface{}, toDevice bool) error {
	var p unsafe.Pointer
	var bytes int64
	switch h := host.(type) {
	case []float32:
		bytes = 4 * int64(len(h))
		if len(h) > 0 {
			p = unsafe.Pointer(&h[0])
		}
	case []uint32:
		bytes = 4 * int64(len(h))
		if len(h) > 0 {
			p = unsafe.Pointer(&h[0])
		}
	case []byte:
		bytes = int64(len(h))
		if len(h) > 0 {
			p = unsafe.Pointer(&h[0])
		}
	}
	way, dir := "to", C.enum_cudaMemcpyKind(C.cudaMemcpyHostToDevice)
	if !toDevice {
		way, dir = "from", C.cudaMemcpyDeviceToHost
	}
	if bytes > b.bytes {
		return fmt.Errorf("copying %d bytes %s the device: buffer holds %d bytes", bytes, way, b.bytes)
	}
	if bytes == 0 {
		return nil
	}
	if toDevice {
		return cuda("copying host to device", C.cudaMemcpy(b.ptr, p, C.size_t(bytes), dir))
	}
	return cuda("copying device to host", C.cudaMemcpy(p, b.ptr, C.size_t(bytes), dir))
}

// Upload copies src to the start of the buffer.
func (b *Buffer) Upload(src []float32) error { return b.copy(src, true) }

// UploadBytes copies raw bytes to the start of the buffer.
func (b *Buffer) UploadBytes(src []byte) error { return b.copy(src, true) }

// UploadWords copies 32-bit words (keys of any type) to the start of the buffer.
func (b *Buffer) UploadWords(src []uint32) error { return b.copy(src, true) }

// Download copies the start of the buffer to dst.
func (b *Buffer) Download(dst []float32) error { return b.copy(dst, false) }

// DownloadBytes copies the start of the buffer to dst.
func (b *Buffer) DownloadBytes(dst []byte) error { return b.copy(dst, false) }

// DownloadWords copies the start of the buffer to dst as 32-bit words.
func (b *Buffer) DownloadWords(dst []uint32) error { return b.copy(dst, false) }

// CopyFrom copies bytes from src on the device (the copy-bandwidth ceiling).
func (b *Buffer) CopyFrom(src *Buffer, bytes int64) error {
	if bytes > b.bytes || bytes > src.bytes {
		return fmt.Errorf("device copy of %d bytes exceeds a buffer", bytes)
	}
	return cuda("copying device to device", C.cudaMemcpyAsync(b.ptr, src.ptr, C.size_t(bytes), C.cudaMemcpyDeviceToDevice, nil))
}

func (b *Buffer) floats() *C.float { return (*C.float)(b.ptr) }

// Host is float32 host memory: page-locked (pinned) when it is copied to or from the device,
// so copies run at full speed, or an ordinary Go slice where no GPU is used.
type Host struct {
	ptr    unsafe.Pointer
	Floats []float32
}

// AllocHost allocates n floats, pinned (cudaMallocHost) or not.
func AllocHost(n int64, pinned bool) (*Host, error) {
	if !pinned {
		return &Host{Floats: make([]float32, n)}, nil
	}
	h := &Host{}
	size := n * 4
	if size == 0 {
		size = 16
	}
	if err := cuda(fmt.Sprintf("allocating %d bytes of pinned host memory", n*4), C.cudaMallocHost(&h.ptr, C.size_t(size))); err != nil {
		return nil, err
	}
	h.Floats = unsafe.Slice((*float32)(h.ptr), n)
	return h, nil
}

// Words is the same memory as 32-bit words.
func (h *Host) Words() []uint32 {
	if len(h.Floats) == 0 {
		return nil
	}
	return unsafe.Slice((*uint32)(unsafe.Pointer(&h.Floats[0])), len(h.Floats))
}

// Bytes is the same memory as bytes.
func (h *Host) Bytes() []byte {
	if len(h.Floats) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&h.Floats[0])), 4*len(h.Floats))
}

// Free releases pinned memory; a nil value is ignored.
func (h *Host) Free() {
	if h != nil && h.ptr != nil {
		C.cudaFreeHost(h.ptr)
		h.ptr = nil
	}
	if h != nil {
		h.Floats = nil
	}
}

// AllocEach allocates a device buffer of bytes[i] into *into[i], in turn; on an error it frees the
// ones it made and returns it.
func AllocEach(into []**Buffer, bytes ...int64) error {
	if len(into) != len(bytes) {
		return fmt.Errorf("AllocEach: %d buffers, %d sizes", len(into), len(bytes))
	}
	for i := range into {
		b, err := Alloc(bytes[i], false)
		if err != nil {
			for _, made := range into[:i] {
				(*made).Free()
			}
			return err
		}
		*into[i] = b
	}
	return nil
}

// FreeEach frees every buffer (nil ones are ignored).
func FreeEach(bufs ...*Buffer) {
	for _, b := range bufs {
		b.Free()
	}
}
