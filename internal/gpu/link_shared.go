//go:build shared

package gpu

// The shared library (cmake --build build --target tecaj_shared), found at run time through
// LD_LIBRARY_PATH: the GPU bundle's binaries carry no device code of their own. The CUDA runtime
// stays static in each (the library keeps its copy private); both reach the same device context.

/*
#cgo LDFLAGS: -L${SRCDIR}/../../build/shared -ltecaj -L/usr/local/cuda/lib64 -lcudart_static -lstdc++ -lm -ldl -lrt -lpthread
*/
import "C"
