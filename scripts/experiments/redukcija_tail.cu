// Scratch experiment (not part of the product): where a float32 sum of 10^6 elements (4 MB, in L2
// after the first run) spends its time past the loads. The product's design is one launch whose
// blocks store partials and take a ticket; the last block sums the partials (best: 6.0-6.1 us on
// the H100, the target 5). Here the same lean kernel at two shapes against thread-block clusters:
// a cluster's blocks meet at the cluster barrier and its first block sums their totals through
// distributed shared memory, so one cluster needs no atomic at all and several clusters need one
// ticket each instead of one a block. Every variant combines in a fixed order (the same bits every
// run). Events behind a device-side delay, median of 50. The floors first: an empty launch, the
// loads with no tail, the tail with no loads. Then (fourth session) a tail with no atomic at all
// (poll_sum: partials tagged with the run's epoch, one block waits for them). Build and run on the GPU host:
//   nvcc -O3 -std=c++17 -arch=sm_90 scripts/experiments/redukcija_tail.cu -o /tmp/tail && /tmp/tail
#include <algorithm>
#include <cooperative_groups.h>
#include <cstdint>
#include <cstdio>
#include <cuda/atomic>
#include <vector>

#include "timing.cuh"

namespace cg = cooperative_groups;


__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(~0u, v, o);
    return v;
}

template <int T>
__device__ __forceinline__ float block_sum(float v) {  // lane 0 of warp 0 holds the total
    __shared__ float warps[T / 32];
    v = warp_sum(v);
    if ((threadIdx.x & 31) == 0) warps[threadIdx.x / 32] = v;
    __syncthreads();
    v = threadIdx.x < T / 32 ? warps[threadIdx.x] : 0.0f;
    return threadIdx.x < 32 ? warp_sum(v) : 0.0f;
}

// V 16-byte loads in flight a thread (predicated), consecutive threads on consecutive vectors
template <int V>
__device__ __forceinline__ float thread_sum(const float *a, int64_t n) {
    const float4 *a4 = reinterpret_cast<const float4 *>(a);
    const int64_t tid = int64_t(blockIdx.x) * blockDim.x + threadIdx.x, threads = int64_t(gridDim.x) * blockDim.x, n4 = n / 4;
    float acc[V] = {};
    for (int64_t v = tid; v < n4; v += V * threads) {
        float4 x[V];
#pragma unroll
        for (int k = 0; k < V; ++k)
            if (v + k * threads < n4) x[k] = a4[v + k * threads];
#pragma unroll
        for (int k = 0; k < V; ++k)
            if (v + k * threads < n4) acc[k] += (x[k].x + x[k].y) + (x[k].z + x[k].w);
    }
    for (int64_t i = n4 * 4 + tid; i < n; i += threads) acc[0] += a[i];
    float s = acc[0];
#pragma unroll
    for (int k = 1; k < V; ++k) s += acc[k];
    return s;
}

// the product's design, lean: partials and a ticket, the last block sums the partials
template <int T, int V>
__global__ void __launch_bounds__(T) ticket_sum(const float *a, float *result, float *partials, unsigned *ticket, int64_t n) {
    __shared__ bool last;
    const float total = block_sum<T>(thread_sum<V>(a, n));
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = total;
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> count(*ticket);
        last = count.fetch_add(1u, cuda::memory_order_acq_rel) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    float v = 0.0f;
    for (int k = threadIdx.x; k < int(gridDim.x); k += T) v += __ldcg(partials + k);
    __syncthreads();
    v = block_sum<T>(v);
    if (threadIdx.x == 0) *result = v, *ticket = 0;
}

// No ticket (fourth session, written without a GPU): each block stores its partial tagged with
// the run's epoch, in one 64-bit word, so the value and its tag land together. The polling block's
// threads (block 0, or the last block) wait for the partials of their slots, then sum them in a
// fixed order. The ticket's atomic round trip and the last block's second round trip (reading
// the partials) become one wait that ends as the last partial lands. The polling block then
// bumps the epoch: every block has read it, since every partial is in. All blocks are resident
// (grid <= one wave), and only one block waits, for blocks that wait for nothing.
template <int T, int V, bool LAST_POLLS>
__global__ void __launch_bounds__(T) poll_sum(const float *a, float *result, unsigned long long *slots, unsigned *epoch_word, int64_t n) {
    __shared__ unsigned epoch_shared;
    if (threadIdx.x == 0) epoch_shared = cuda::atomic_ref<unsigned, cuda::thread_scope_device>(*epoch_word).load(cuda::memory_order_relaxed);
    const float total = block_sum<T>(thread_sum<V>(a, n));  // (its barrier makes epoch_shared visible)
    const unsigned epoch = epoch_shared;
    if (threadIdx.x == 0)
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(slots[blockIdx.x])
            .store(uint64_t(epoch) << 32 | __float_as_uint(total), cuda::memory_order_relaxed);
    if (blockIdx.x != (LAST_POLLS ? gridDim.x - 1 : 0)) return;
    float v = 0.0f;
    for (int k = threadIdx.x; k < int(gridDim.x); k += T) {
        cuda::atomic_ref<unsigned long long, cuda::thread_scope_device> slot(slots[k]);
        unsigned long long w;
        while (uint32_t((w = slot.load(cuda::memory_order_relaxed)) >> 32) != epoch) {}
        v += __uint_as_float(uint32_t(w));
    }
    __syncthreads();  // (block_sum's shared words are reused)
    v = block_sum<T>(v);
    if (threadIdx.x == 0) {
        *result = v;
        cuda::atomic_ref<unsigned, cuda::thread_scope_device>(*epoch_word).store(epoch + 1, cuda::memory_order_relaxed);
    }
}

// the floors: a launch that does nothing, and the loads and block sums with no tail (each block
// stores its partial; no ticket, no last block: not a sum, a time)
__global__ void empty_kernel() {}

template <int T, int V>
__global__ void __launch_bounds__(T) loads_only(const float *a, float *partials, int64_t n) {
    const float total = block_sum<T>(thread_sum<V>(a, n));
    if (threadIdx.x == 0) partials[blockIdx.x] = total;
}

// clusters: the cluster's first block sums its blocks' totals through distributed shared memory;
// one cluster writes the result, several take a ticket (one a cluster)
template <int T, int V>
__global__ void __launch_bounds__(T) cluster_sum(const float *a, float *result, float *partials, unsigned *ticket, int64_t n) {
    __shared__ float block_total;
    __shared__ bool last;
    cg::cluster_group cluster = cg::this_cluster();
    const float total = block_sum<T>(thread_sum<V>(a, n));
    if (threadIdx.x == 0) block_total = total;
    cluster.sync();
    const unsigned rank = cluster.block_rank(), size = cluster.num_blocks(), clusters = gridDim.x / size;
    float c = 0.0f;
    if (rank == 0 && threadIdx.x < 32) {
        c = threadIdx.x < size ? *cluster.map_shared_rank(&block_total, threadIdx.x) : 0.0f;
        c = warp_sum(c);
    }
    cluster.sync();  // every block's total read before any block leaves
    if (rank != 0) return;
    if (clusters == 1) {
        if (threadIdx.x == 0) *result = c;
        return;
    }
    const unsigned id = blockIdx.x / size;
    if (threadIdx.x == 0) {
        partials[id] = c;
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> count(*ticket);
        last = count.fetch_add(1u, cuda::memory_order_acq_rel) == clusters - 1;
    }
    __syncthreads();
    if (!last || threadIdx.x >= 32) return;
    float v = 0.0f;
    for (unsigned k = threadIdx.x; k < clusters; k += 32) v += __ldcg(partials + k);
    v = warp_sum(v);
    if (threadIdx.x == 0) *result = v, *ticket = 0;
}


int main() {
    for (int64_t n : {int64_t(1000000), int64_t(1) << 24}) {
        std::vector<float> h(n);
        uint64_t st = 7;
        double want = 0;
        for (auto &x : h) x = float(int((st = st * 6364136223846793005ull + 1442695040888963407ull) >> 40) % 1000) / 1000.0f, want += x;
        float *a, *res, *part;
        unsigned *ticket, *epoch;
        unsigned long long *slots;
        CK(cudaMalloc(&epoch, sizeof(unsigned)));
        CK(cudaMalloc(&slots, 4096 * sizeof(unsigned long long)));
        CK(cudaMemset(slots, 0, 4096 * sizeof(unsigned long long)));
        const unsigned first_epoch = 1;  // (the zeroed slots carry tag 0)
        CK(cudaMemcpy(epoch, &first_epoch, sizeof first_epoch, cudaMemcpyHostToDevice));
        CK(cudaMalloc(&a, n * sizeof(float)));
        CK(cudaMalloc(&res, sizeof(float)));
        CK(cudaMalloc(&part, 4096 * sizeof(float)));
        CK(cudaMalloc(&ticket, sizeof(unsigned)));
        CK(cudaMemset(ticket, 0, sizeof(unsigned)));
        CK(cudaMemcpy(a, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));
        const auto report = [&](const char *name, float us) {
            float got;
            CK(cudaMemcpy(&got, res, sizeof got, cudaMemcpyDeviceToHost));
            printf("n=%-9lld %-40s %7.2f us  sum %.6e (rel. error %.1e)\n", (long long)n, name, us, got, (got - want) / want);
        };
        const auto ticket_run = [&](const char *name, auto kernel, int blocks, int threads) {
            report(name, time_us([&] { kernel<<<blocks, threads>>>(a, res, part, ticket, n); }, 50, 10));
        };
        printf("n=%-9lld %-40s %7.2f us\n", (long long)n, "floor: an empty kernel",
               time_us([&] { empty_kernel<<<245, 256>>>(); }, 50, 10));
        printf("n=%-9lld %-40s %7.2f us\n", (long long)n, "floor: loads only, 245 x 256, 4 vectors",
               time_us([&] { loads_only<256, 4><<<245, 256>>>(a, part, n); }, 50, 10));
        printf("n=%-9lld %-40s %7.2f us\n", (long long)n, "floor: loads only, 1056 x 256, 1 vector",
               time_us([&] { loads_only<256, 1><<<1056, 256>>>(a, part, n); }, 50, 10));
        printf("n=%-9lld %-40s %7.2f us\n", (long long)n, "floor: the ticket tail alone (n = 0), 245",
               time_us([&] { ticket_sum<256, 4><<<245, 256>>>(a, res, part, ticket, 0); }, 50, 10));
        ticket_run("ticket 245 x 256, 4 vectors", ticket_sum<256, 4>, 245, 256);
        ticket_run("ticket 132 x 256, 8 vectors", ticket_sum<256, 8>, 132, 256);
        ticket_run("ticket 132 x 512, 4 vectors", ticket_sum<512, 4>, 132, 512);
        const auto poll_run = [&](const char *name, auto kernel, int blocks, int threads, int64_t count) {
            const float us = time_us([&] { kernel<<<blocks, threads>>>(a, res, slots, epoch, count); }, 50, 10);
            CK(cudaGetLastError());
            if (count == 0) printf("n=%-9lld %-40s %7.2f us\n", (long long)n, name, us);
            else report(name, us);
        };
        poll_run("floor: the poll tail alone (n = 0), 245", poll_sum<256, 4, false>, 245, 256, 0);
        poll_run("poll (block 0) 245 x 256, 4 vectors", poll_sum<256, 4, false>, 245, 256, n);
        poll_run("poll (last block) 245 x 256, 4 vectors", poll_sum<256, 4, true>, 245, 256, n);
        poll_run("poll (block 0) 132 x 512, 4 vectors", poll_sum<512, 4, false>, 132, 512, n);
        poll_run("poll (last block) 132 x 256, 8 vectors", poll_sum<256, 8, true>, 132, 256, n);
        const auto cluster_run = [&](const char *name, auto kernel, int blocks, int threads, int size) {
            if (size > 8) CK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
            cudaLaunchConfig_t cfg = {};
            cfg.gridDim = dim3(blocks);
            cfg.blockDim = dim3(threads);
            cudaLaunchAttribute attr[1];
            attr[0].id = cudaLaunchAttributeClusterDimension;
            attr[0].val.clusterDim.x = size, attr[0].val.clusterDim.y = 1, attr[0].val.clusterDim.z = 1;
            cfg.attrs = attr;
            cfg.numAttrs = 1;
            const cudaError_t trial = cudaLaunchKernelEx(&cfg, kernel, (const float *)a, res, part, ticket, n);
            if (trial != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) {  // a shape the device cannot place
                printf("n=%-9lld %-40s launch failed: %s\n", (long long)n, name, cudaGetErrorString(trial));
                cudaGetLastError();
                return;
            }
            report(name, time_us([&] { CK(cudaLaunchKernelEx(&cfg, kernel, (const float *)a, res, part, ticket, n)); }, 50, 10));
        };
        cluster_run("one cluster of 16 x 1024, 4 vectors", cluster_sum<1024, 4>, 16, 1024, 16);
        cluster_run("one cluster of 16 x 1024, 8 vectors", cluster_sum<1024, 8>, 16, 1024, 16);
        cluster_run("one cluster of 8 x 1024, 8 vectors", cluster_sum<1024, 8>, 8, 1024, 8);
        cluster_run("8 clusters of 16 x 256, 8 vectors", cluster_sum<256, 8>, 128, 256, 16);
        cluster_run("16 clusters of 8 x 256, 8 vectors", cluster_sum<256, 8>, 128, 256, 8);
        cluster_run("30 clusters of 8 x 256, 4 vectors", cluster_sum<256, 4>, 240, 256, 8);
        cluster_run("16 clusters of 8 x 512, 4 vectors", cluster_sum<512, 4>, 128, 512, 8);
        CK(cudaFree(a));
        CK(cudaFree(res));
        CK(cudaFree(part));
        CK(cudaFree(ticket));
        CK(cudaFree(epoch));
        CK(cudaFree(slots));
    }
    return 0;
}
