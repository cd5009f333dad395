// The floor under redukcija's and razdalja's best at 10^6: how fast a grid reads 4 or 8 MB that
// sit in L2, with no tail, beside an empty kernel (the launch floor). Each thread sums its 16-byte
// vectors (grid-stride, all of a thread's loads issued before any is used) and writes nothing
// unless the sum is a value it never takes (the loads stay live). Grids in multiples of the
// device's SMs; one array of n floats, or two (razdalja's a and b). Built by CMake; on a GPU host:
//   bash gpu-bundle/run.sh bench
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
    CK(cudaMemset(a, 0x3c, 2 * n * 4));  // (not zeros: the reads move real data)
    CK(cudaMemset(b, 0x3d, 2 * n * 4));
    int sms = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    printf("empty kernel 1 x 32: %.2f us; %d x 512: %.2f us\n", time_us([] { empty_kernel<<<1, 32>>>(); }, 200), sms,
           time_us([sms] { empty_kernel<<<sms, 512>>>(); }, 200));
    for (auto [blocks, threads] : {std::pair{sms, 512}, std::pair{2 * sms, 512}, std::pair{2 * sms, 256},
                                   std::pair{4 * sms, 256}, std::pair{8 * sms, 256}, std::pair{sms, 1024}}) {
        row<4, false>(a, b, out, n, blocks, threads);
        row<4, true>(a, b, out, n, blocks, threads);
        row<2, true>(a, b, out, n, blocks, threads);
        row<8, true>(a, b, out, n, blocks, threads);
    }
    row<4, true>(a, b, out, n / 2, sms, 512);
    row<4, true>(a, b, out, 2 * n, sms, 512);
    CK(cudaGetLastError());
    return 0;
}
