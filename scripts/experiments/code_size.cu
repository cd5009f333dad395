// Scratch experiment (not part of the product): does a small kernel's time grow with its code's
// size? At n <= 10^6 the reduce engine's variants line up with their instruction counts, not their
// work: sum (496 SASS instructions) 5.02-5.09 us at 10^6, norm (632) 5.15-5.28, argmin (752)
// 5.76-5.98, max (888) 6.14-6.21, max before its operator became selects (1104) 6.94-6.98; and
// argmin is 0.45-0.55 us above sum even at n = 1, where the element loop does not run. About 3 ns
// an instruction, as if each launch fetched the code it runs from L2, line by line.
// Here N FFMAs a thread in 8 independent chains (no data, no loads), written out (N instructions
// of code) or in a loop of 8 (the same instructions issued, 8 of code), at one warp a block (issue
// ~N cycles) on 1 and 132 blocks, and at 512 threads a block on 132. If the written-out kernel
// grows by ~3 ns an instruction and the loop does not, the code's size is the cost: shrink the
// paths a launch runs once (unrolled loops, inlined operators, the scalar rest).
//   bash scripts/experiments/run.sh codesize   (or: nvcc -O3 -std=c++17 -arch=sm_90 ... && /tmp/codesize)
#include <cstdio>

#include "timing.cuh"

// 8 independent chains of FFMAs, `rounds` rounds: written out (UNROLL) or in a loop
template <bool UNROLL>
__device__ __forceinline__ void chains(float *out, float m, float c, int rounds) {
    float r[8];
#pragma unroll
    for (int k = 0; k < 8; ++k) r[k] = float(threadIdx.x + k);
    if constexpr (UNROLL) {
#pragma unroll
        for (int i = 0; i < rounds; ++i)
#pragma unroll
            for (int k = 0; k < 8; ++k) r[k] = fmaf(r[k], m, c);
    } else {
#pragma unroll 1
        for (int i = 0; i < rounds; ++i)
#pragma unroll
            for (int k = 0; k < 8; ++k) r[k] = fmaf(r[k], m, c);
    }
    float s = 0.0f;
#pragma unroll
    for (int k = 0; k < 8; ++k) s += r[k];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

template <int N>
__global__ void written_out(float *out, float m, float c) { chains<true>(out, m, c, N / 8); }

__global__ void looped(float *out, float m, float c, int n) { chains<false>(out, m, c, n / 8); }

template <int N>
void row(float *out, int blocks, int threads) {
    const float a = time_us([&] { written_out<N><<<blocks, threads>>>(out, 1.0001f, 0.5f); }, 100);
    const float b = time_us([&] { looped<<<blocks, threads>>>(out, 1.0001f, 0.5f, N); }, 100);
    printf("%5d x %4d  N = %5d   written out %6.2f us   looped %6.2f us\n", blocks, threads, N, a, b);
}

int main() {
    float *out;
    CK(cudaMalloc(&out, 132 * 512 * sizeof(float)));
    for (auto [blocks, threads] : {std::pair{1, 32}, std::pair{132, 32}, std::pair{132, 512}}) {
        row<8>(out, blocks, threads);
        row<256>(out, blocks, threads);
        row<512>(out, blocks, threads);
        row<1024>(out, blocks, threads);
        row<2048>(out, blocks, threads);
        row<4096>(out, blocks, threads);
    }
    CK(cudaGetLastError());
    CK(cudaFree(out));
    return 0;
}
