package gpu

/*
#include <cuda_profiler_api.h>
*/
import "C"

// ProfilerStart and ProfilerStop bound what a profiler started with --profile-from-start off
// (ncu) measures: -counters measures the kernels of one run between them.
func ProfilerStart() error { return cuda("starting the profiler", C.cudaProfilerStart()) }

// ProfilerStop: see ProfilerStart.
func ProfilerStop() error { return cuda("stopping the profiler", C.cudaProfilerStop()) }
