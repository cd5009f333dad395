// Scratch experiment (not part of the product): how fast can a grid read 4 or 8 MB that sit in
// L2 (the reduce engine's inputs at 10^6), with no tail: the floor of redukcija's and razdalja's
// best at 10^6 under the launch floor (an empty kernel). Each thread sums its 16-byte vectors
// (grid-stride over the input, all of a thread's loads issued before any is used) and writes
// nothing unless the sum is a value it never takes (the loads stay live). Shapes: threads x blocks;
// inputs: one array of n floats, or two (razdalja's a and b).
//   bash scripts/experiments/run.sh l2read
#include <cstdio>

#include "reads.cuh"
#include "timing.cuh"

__global__ void empty_kernel() {}

template <int K, bool TWO>
void row(const float4 *a, const float4 *b, float *out, int64_t n, int blocks, int threads) {
    const float us = time_us([&] { read_sum<K, TWO><<<blocks, threads>>>(a, b, out, n / 4); }, 200);
    const double bytes = (TWO ? 8.0 : 4.0) * double(n);
    printf("%s n=%lld  %4d x %4d  K=%d  %6.2f us  (%.2f MB)\n", TWO ? "two" : "one", (long long)n, blocks, threads, K, us,
           bytes / 1e6);
}

int main() {
    const int64_t n = 1000000;
    float4 *a, *b;
    float *out;
    CK(cudaMalloc(&a, 2 * n * 4));  // (the last row reads 2n)
    CK(cudaMalloc(&b, 2 * n * 4));
    CK(cudaMalloc(&out, 64));
    CK(cudaMemset(a, 0, 2 * n * 4));
    CK(cudaMemset(b, 0, 2 * n * 4));
    printf("empty kernel 1 x 32: %.2f us; 132 x 512: %.2f us\n", time_us([] { empty_kernel<<<1, 32>>>(); }, 200),
           time_us([] { empty_kernel<<<132, 512>>>(); }, 200));
    for (auto [blocks, threads] : {std::pair{123, 512}, std::pair{132, 512}, std::pair{264, 512}, std::pair{264, 256},
                                   std::pair{528, 256}, std::pair{1056, 256}, std::pair{132, 1024}}) {
        row<4, false>(a, b, out, n, blocks, threads);
        row<4, true>(a, b, out, n, blocks, threads);
        row<2, true>(a, b, out, n, blocks, threads);
        row<8, true>(a, b, out, n, blocks, threads);
    }
    row<4, true>(a, b, out, n / 2, 132, 512);
    row<4, true>(a, b, out, 2 * n, 132, 512);
    CK(cudaGetLastError());
    return 0;
}
