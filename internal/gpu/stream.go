package gpu

/*
#include <cuda_runtime_api.h>
*/
import "C"

// Stream is a non-blocking CUDA stream of the device current when it was made: its work neither
// waits for the legacy default stream's nor holds it up. A nil *Stream is the legacy default
// stream (one GPU's runs).
type Stream struct{ s C.cudaStream_t }

// NewStream makes a non-blocking stream on the calling thread's device.
func NewStream() (*Stream, error) {
	s := &Stream{}
	if err := cuda("creating a stream", C.cudaStreamCreateWithFlags(&s.s, C.cudaStreamNonBlocking)); err != nil {
		return nil, err
	}
	return s, nil
}

// Free destroys the stream; nil is ignored.
func (s *Stream) Free() {
	if s != nil && s.s != nil {
		C.cudaStreamDestroy(s.s)
		s.s = nil
	}
}

// c is the stream for the library's calls (nil: the legacy default stream).
func (s *Stream) c() C.cudaStream_t {
	if s == nil {
		return nil
	}
	return s.s
}
