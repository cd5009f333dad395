// What a radix pass's scatter costs at a digit width. A pass reads every key (and value) once and
// writes each to its digit's place, so a tile of 8192 keys scatters one run a digit to 2^W places
// (8 bits: runs of about 32 keys; 11 bits: about 4). Here every tile arrives already grouped by
// digit and each run's place is known: a block loads its tile and stores each key at its run's
// place (radix_pass's scatter, with no ranking and no look-back). Beside it: the same kernel
// storing each key at its own index (no scatter), cudaMemcpy of the same bytes, and the sort each
// scatter rate implies: one read of the keys (the histogram), then ceil(32 / W) passes. It is not a
// floor under the sorts' passes: on the H100 CUB's, which the look-back keeps close to tile order,
// ran faster than it at 2 blocks an SM and at 4 (BENCHMARKS, the radix section); it shows what the
// digit width does to the writes. Its second line a row asks what the writes' concurrency does:
// the scatter at one block an SM, and at two with each tile waiting between its loads and its
// stores (a pass's ranking and look-back, modelled as time), so that fewer tiles write at once.
//   bash gpu-bundle/run.sh bench
#include <algorithm>

#include "timing.cuh"

constexpr int kThreads = 512, kItems = 16, kTile = kThreads * kItems;
constexpr uint32_t kWait_ns[] = {2000, 4000, 8000};  // (the second line's waits between a tile's loads and stores)
constexpr int kWaits = sizeof(kWait_ns) / sizeof(kWait_ns[0]);

__device__ __forceinline__ uint32_t mix(uint64_t x) {  // (splitmix64's finaliser)
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return uint32_t(x ^ (x >> 31));
}

// Setup: random keys, each tile grouped by its low W-bit digit (a counting sort in shared memory),
// and the tile's count of each digit.
template <int W>
__global__ void __launch_bounds__(kThreads) group_tiles(uint32_t *keys, uint32_t *counts, uint64_t seed) {
    constexpr int R = 1 << W;
    __shared__ uint32_t tile[kTile], c[R];
    const int64_t t = blockIdx.x;
    for (int d = threadIdx.x; d < R; d += kThreads) c[d] = 0;
    __syncthreads();
    uint32_t k[kItems];
    for (int i = 0; i < kItems; ++i) {
        k[i] = mix(seed + uint64_t(t * kTile + threadIdx.x + i * kThreads));
        atomicAdd(&c[k[i] & (R - 1)], 1u);
    }
    __syncthreads();
    if (threadIdx.x == 0)
        for (int d = 0, at = 0; d < R; ++d) {
            const uint32_t here = c[d];
            counts[t * R + d] = here;
            c[d] = at;
            at += here;
        }
    __syncthreads();
    for (int i = 0; i < kItems; ++i) tile[atomicAdd(&c[k[i] & (R - 1)], 1u)] = k[i];
    __syncthreads();
    for (int j = threadIdx.x; j < kTile; j += kThreads) keys[t * kTile + j] = tile[j];
}

// Setup: each digit's keys in the tiles before (one thread a digit, tile by tile), and its total.
template <int W>
__global__ void digit_prefix(uint32_t *counts, uint32_t *totals, int64_t tiles) {
    constexpr int R = 1 << W;
    const int d = blockIdx.x * blockDim.x + threadIdx.x;
    if (d >= R) return;
    uint32_t run = 0;
    for (int64_t t = 0; t < tiles; ++t) {
        const uint32_t c = counts[t * R + d];
        counts[t * R + d] = run;
        run += c;
    }
    totals[d] = run;
}

// Setup: a tile's base of each digit, its run's place less the run's first slot in the tile.
template <int W>
__global__ void tile_bases(const uint32_t *prefix, const uint32_t *starts, uint32_t *base, const uint32_t *keys, int64_t tiles) {
    constexpr int R = 1 << W;
    const int64_t t = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= tiles) return;
    // the tile's first slot of each digit: its keys are grouped, so a digit's slot is where it first appears
    uint32_t slot = 0;
    for (int d = 0; d < R; ++d) {
        while (slot < kTile && (keys[t * kTile + slot] & (R - 1)) < uint32_t(d)) ++slot;
        base[t * R + d] = starts[d] + prefix[t * R + d] - slot;
    }
}

// The pass's traffic: a block's tile in (keys, and values with PAIRS), each key out at its run's
// place (SCATTER) or its own index, delay_ns after the tile's loads were issued.
template <int W, bool PAIRS, bool SCATTER>
__global__ void __launch_bounds__(kThreads) pass(const uint32_t *keys, const uint32_t *values, const uint32_t *base,
                                                 uint32_t *keys_out, uint32_t *values_out, uint32_t delay_ns) {
    constexpr int R = 1 << W;
    __shared__ uint32_t b[SCATTER ? R : 1];
    const int64_t t = blockIdx.x, first = t * kTile;
    if (SCATTER)
        for (int d = threadIdx.x; d < R; d += kThreads) b[d] = base[t * R + d];
    uint32_t k[kItems], v[PAIRS ? kItems : 1];
#pragma unroll
    for (int i = 0; i < kItems; ++i) k[i] = __ldg(keys + first + threadIdx.x + i * kThreads);
    if (PAIRS)
#pragma unroll
        for (int i = 0; i < kItems; ++i) v[i] = __ldg(values + first + threadIdx.x + i * kThreads);
    __syncthreads();
    if (delay_ns) {  // (the loads stay in flight: their values are first used by the stores)
        const unsigned long long t0 = globaltimer_ns();
        do __nanosleep(256);
        while (globaltimer_ns() - t0 < delay_ns);
    }
#pragma unroll
    for (int i = 0; i < kItems; ++i) {
        const uint32_t j = threadIdx.x + i * kThreads, place = SCATTER ? b[k[i] & (R - 1)] + j : uint32_t(first) + j;
        keys_out[place] = k[i];
        if (PAIRS) values_out[place] = v[i];
    }
}

// The histogram's traffic: every key read once.
__global__ void __launch_bounds__(kThreads) read_all(const uint32_t *keys, uint32_t *out) {
    uint32_t x = 0;
#pragma unroll
    for (int i = 0; i < kItems; ++i) x ^= __ldg(keys + int64_t(blockIdx.x) * kTile + threadIdx.x + i * kThreads);
    if (x == 0x12345678u) out[0] = x;  // (never: the loads stay live)
}

template <int W, bool PAIRS>
void row(int64_t n, uint32_t *keys, uint32_t *values, uint32_t *keys_out, uint32_t *values_out, uint32_t *scratch,
         const cudaDeviceProp &prop) {
    constexpr int R = 1 << W;
    const int64_t tiles = n / kTile;
    uint32_t *counts, *base, *totals;
    CK(cudaMalloc(&counts, sizeof(uint32_t) * tiles * R));
    CK(cudaMalloc(&base, sizeof(uint32_t) * tiles * R));
    CK(cudaMalloc(&totals, sizeof(uint32_t) * R));
    group_tiles<W><<<unsigned(tiles), kThreads>>>(keys, counts, 1);
    digit_prefix<W><<<(R + 255) / 256, 256>>>(counts, totals, tiles);
    std::vector<uint32_t> start(R);
    CK(cudaMemcpy(start.data(), totals, sizeof(uint32_t) * R, cudaMemcpyDeviceToHost));
    for (uint32_t d = 0, at = 0; d < uint32_t(R); ++d) {
        const uint32_t here = start[d];
        start[d] = at;
        at += here;
    }
    CK(cudaMemcpy(totals, start.data(), sizeof(uint32_t) * R, cudaMemcpyHostToDevice));
    tile_bases<W><<<unsigned((tiles + 255) / 256), 256>>>(counts, totals, base, keys, tiles);
    CK(cudaGetLastError());

    const unsigned grid = unsigned(tiles);
    const auto scatter = pass<W, PAIRS, true>;
    const float us = time_us([&] { scatter<<<grid, kThreads>>>(keys, values, base, keys_out, values_out, 0); }, 10, 2);
    // the same at k blocks an SM (2: radix_pass's), by a dynamic shared request that leaves room for
    // no more: an SM's shared memory / k less the block's own and the system's reserve
    cudaFuncAttributes attr;
    CK(cudaFuncGetAttributes(&attr, scatter));
    const auto dynamic = [&](int k) {
        return std::min(prop.sharedMemPerMultiprocessor / k - prop.reservedSharedMemPerBlock,
                        prop.sharedMemPerBlockOptin) - attr.sharedSizeBytes;
    };
    CK(cudaFuncSetAttribute(scatter, cudaFuncAttributeMaxDynamicSharedMemorySize, int(dynamic(1))));
    CK(cudaFuncSetAttribute(scatter, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
    const auto occupancy = [&](size_t dynamic) {
        int blocks = 0;
        CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, scatter, kThreads, dynamic));
        return blocks;
    };
    const auto at = [&](int k, uint32_t delay_ns) {
        return time_us([&] { scatter<<<grid, kThreads, dynamic(k)>>>(keys, values, base, keys_out, values_out, delay_ns); }, 10, 2);
    };
    const int blocks = occupancy(0), blocks2 = occupancy(dynamic(2)), blocks1 = occupancy(dynamic(1));
    const float us2 = at(2, 0), us1 = at(1, 0);
    float waited[kWaits];
    for (int i = 0; i < kWaits; ++i) waited[i] = at(2, kWait_ns[i]);
    const float ordered = time_us([&] { pass<W, PAIRS, false><<<grid, kThreads>>>(keys, values, base, keys_out, values_out, 0); }, 10, 2);
    const size_t bytes = sizeof(uint32_t) * size_t(n) * (PAIRS ? 2 : 1);
    const float copy = time_us([&] { CK(cudaMemcpyAsync(keys_out, keys, bytes, cudaMemcpyDeviceToDevice)); }, 10, 2);
    const float hist = time_us([&] { read_all<<<grid, kThreads>>>(keys, scratch); }, 10, 2);
    CK(cudaGetLastError());

    // the scatter's output, over poison: grouped by digit, the same keys (their sum)
    CK(cudaMemset(keys_out, 0xff, 4 * n));
    scatter<<<grid, kThreads>>>(keys, values, base, keys_out, values_out, 0);
    std::vector<uint32_t> in(n), out(n);
    CK(cudaMemcpy(in.data(), keys, 4 * n, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(out.data(), keys_out, 4 * n, cudaMemcpyDeviceToHost));
    uint64_t sum_in = 0, sum_out = 0, disorder = 0;
    for (int64_t i = 0; i < n; ++i) {
        sum_in += in[i], sum_out += out[i];
        if (i > 0 && (out[i] & (R - 1)) < (out[i - 1] & (R - 1))) ++disorder;
    }
    const bool ok = sum_in == sum_out && disorder == 0;

    const int passes = (32 + W - 1) / W;
    const double gb = 2.0 * double(bytes) / 1e9;
    printf("%-5s 2^%-2d %2d-bit digits (%4.0f keys a run): scatter %8.1f us at %d blocks an SM (%4.0f GB/s, %5.1f%% of "
           "cudaMemcpy), %8.1f at %d%s; in order %8.1f; cudaMemcpy %8.1f; reading the keys %7.1f. A sort at this scatter: "
           "%6.0f us (%d passes)  %s\n",
           PAIRS ? "pairs" : "keys", int(__builtin_ctzll(uint64_t(n))), W, double(kTile) / R, us, blocks, gb / us * 1e6,
           100.0 * copy / us, us2, blocks2, blocks2 == blocks ? " (the same occupancy, again)" : "", ordered, copy, hist,
           hist + passes * std::min(us, us2), passes,
           ok ? "ok" : "WRONG: not grouped by digit, or not the same keys");
    printf("      the same scatter at %d block an SM %8.1f us; at %d, each tile waiting between its loads and its stores "
           "(%d waves of tiles):", blocks1, us1, blocks2, int((tiles + blocks2 * prop.multiProcessorCount - 1) / (blocks2 * prop.multiProcessorCount)));
    for (int i = 0; i < kWaits; ++i) printf(" %u us %8.1f%s", kWait_ns[i] / 1000, waited[i], i + 1 < kWaits ? ";" : "\n");
    CK(cudaFree(counts));
    CK(cudaFree(base));
    CK(cudaFree(totals));
}

int main() {
    const int64_t most = int64_t(1) << 28;
    uint32_t *keys, *values, *keys_out, *values_out, *scratch;
    CK(cudaMalloc(&keys, 4 * most));
    CK(cudaMalloc(&values, 4 * most));
    CK(cudaMalloc(&keys_out, 4 * most));
    CK(cudaMalloc(&values_out, 4 * most));
    CK(cudaMalloc(&scratch, 64));
    CK(cudaMemset(values, 0x5a, 4 * most));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    printf("%s: a radix pass's memory traffic alone (tiles of %d keys, each already grouped by digit)\n", prop.name, kTile);
    row<8, false>(most, keys, values, keys_out, values_out, scratch, prop);
    row<11, false>(most, keys, values, keys_out, values_out, scratch, prop);
    row<8, false>(most / 4, keys, values, keys_out, values_out, scratch, prop);
    row<8, true>(most / 4, keys, values, keys_out, values_out, scratch, prop);
    row<11, true>(most / 4, keys, values, keys_out, values_out, scratch, prop);
    return 0;
}
