//go:build !shared

package gpu

// The static library: go run ./cmd/... works right after the CMake build.

/*
#cgo LDFLAGS: -L${SRCDIR}/../../build -ltecaj -L/usr/local/cuda/lib64 -lcudart_static -lstdc++ -lm -ldl -lrt -lpthread
*/
import "C"
