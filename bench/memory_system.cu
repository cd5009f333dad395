// What the memory system asks of a streaming kernel: the bytes each SM must keep in flight to reach
// the copy's rate. A grid reads (or reads and writes) 2 GiB in 16-byte vectors, every thread K loads
// in flight at once, B blocks of 256 threads an SM: in flight an SM = B x 256 x K x 16 bytes. Beside
// it, cudaMemcpy's device-to-device copy (the tables' ceiling) and the peak the device reports
// (memory clock x bus width, both edges), which tc_device_describe's bandwidth is. The latency the
// memory system shows (Little's law: bytes in flight / rate, in the rows far from the ceiling) is
// what tc_device's bytes_in_flight_per_sm assumes. Built by CMake; on a GPU host:
//   bash gpu-bundle/run.sh bench
#include <cstdio>

#include "timing.cuh"

// K 16-byte vectors a thread at once (grid-stride rounds), summed (read) or copied (copy).
template <int K, bool COPY>
__global__ void __launch_bounds__(256) stream(const float4 *a, float4 *b, float *out, int64_t vectors) {
    const int64_t tid = int64_t(blockIdx.x) * blockDim.x + threadIdx.x, threads = int64_t(gridDim.x) * blockDim.x;
    float s = 0.0f;
    for (int64_t v = tid; v < vectors; v += K * threads) {
        float4 x[K];
#pragma unroll
        for (int k = 0; k < K; ++k)
            if (v + k * threads < vectors) x[k] = __ldcs(a + v + k * threads);
#pragma unroll
        for (int k = 0; k < K; ++k)
            if (v + k * threads < vectors) {
                if (COPY) __stcs(b + v + k * threads, x[k]);
                else s += x[k].x + x[k].y + x[k].z + x[k].w;
            }
    }
    if (!COPY && s == -1.0f) out[0] = s;  // (never: the loads stay live)
}

template <int K, bool COPY>
double rate(const float4 *a, float4 *b, float *out, int64_t vectors, int blocks_per_sm, int sms) {
    const float us = time_us([&] { stream<K, COPY><<<blocks_per_sm * sms, 256>>>(a, b, out, vectors); }, 10, 2);
    return (COPY ? 2.0 : 1.0) * 16.0 * double(vectors) / us / 1e3;  // GB/s
}

int main() {
    const int64_t bytes = int64_t(1) << 31, vectors = bytes / 16;
    float4 *a, *b;
    float *out;
    CK(cudaMalloc(&a, bytes));
    CK(cudaMalloc(&b, bytes));
    CK(cudaMalloc(&out, 64));
    CK(cudaMemset(a, 0x3c, bytes));  // (not zeros: the reads move real data)
    int sms = 0, clock_khz = 0, bus_bits = 0, per_sm = 0;
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    CK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrMemoryClockRate, 0));
    CK(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, 0));
    CK(cudaDeviceGetAttribute(&per_sm, cudaDevAttrMaxThreadsPerMultiProcessor, 0));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    const double peak = 2.0 * clock_khz * 1e3 * bus_bits / 8 / 1e9;
    const float copy_us = time_us([&] { CK(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice)); }, 10, 2);
    const double copy = 2.0 * double(bytes) / copy_us / 1e3;
    printf("%s: %d SMs; memory clock %d MHz x %d bits: peak %.0f GB/s; cudaMemcpy of 2 GiB %.0f GB/s (%.1f%% of peak)\n",
           prop.name, sms, clock_khz / 1000, bus_bits, peak, copy, 100.0 * copy / peak);
    printf("%8s %6s %3s %10s %9s %9s %10s %10s\n", "blocks", "a SM", "K", "in flight", "read", "copy", "read/copy",
           "latency");
    for (int blocks : {1, 2, 4, 8}) {
        if (blocks * 256 > per_sm) continue;
        auto row = [&](int k, double read, double cp) {
            const double flight = double(blocks) * 256 * k * 16;  // bytes an SM
            // Little's law over the whole device: the time a byte is in flight at the read's rate
            printf("%8d %6d %3d %8.0f K %6.0f GB/s %6.0f GB/s %9.1f%% %7.0f ns\n", blocks * sms, blocks, k, flight / 1024,
                   read, cp, 100.0 * read / copy, flight * sms / read);
        };
        row(1, rate<1, false>(a, b, out, vectors, blocks, sms), rate<1, true>(a, b, out, vectors, blocks, sms));
        row(2, rate<2, false>(a, b, out, vectors, blocks, sms), rate<2, true>(a, b, out, vectors, blocks, sms));
        row(4, rate<4, false>(a, b, out, vectors, blocks, sms), rate<4, true>(a, b, out, vectors, blocks, sms));
        row(8, rate<8, false>(a, b, out, vectors, blocks, sms), rate<8, true>(a, b, out, vectors, blocks, sms));
    }
    CK(cudaGetLastError());
    return 0;
}
