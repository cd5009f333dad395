// Scratch experiment (not part of the product): what razdalja's best pays for at 10^6 beyond the
// sum's, piece by piece, in one process on one set of buffers (input in L2, as in the timed runs),
// rounds interleaved: the float32 sum of a (4 MB); the distance of a and b (8 MB) accumulated in
// float32 (one-word partials); in float64 as the library's map has it (two-word partials, float64
// block reductions; on the branch dist-f32-fast, from float32 rounds); the dot in float64 (two
// conversions an element); the bare read of a and b (no reduction across blocks), with 16-byte
// loads grid-stride or by contiguous chunks, and by bulk copies into shared memory.
//   bash scripts/experiments/run.sh parts
#include <cstdio>
#include <cuda/ptx>
#include <random>
#include <vector>

#include "reads.cuh"
#include "reduce_best.cuh"
#include "timing.cuh"

namespace ptx = cuda::ptx;

// The same bytes brought into shared memory by the copy engine (cp.async.bulk): each block's
// contiguous chunk of a and of b, in PIECES copies an array (one lane each), one mbarrier; then
// the threads read shared memory. n a multiple of 4.
template <int PIECES>
__global__ void bulk_two(const float *a, const float *b, float *out, int64_t n) {
    extern __shared__ __align__(128) float4 smem[];
    __shared__ uint64_t bar;
    const int64_t chunk = ((n + gridDim.x - 1) / gridDim.x + 3) / 4 * 4, lo = blockIdx.x * chunk;
    const int64_t count = lo < n ? min(chunk, n - lo) : 0;
    float *sa = reinterpret_cast<float *>(smem), *sb = sa + chunk;
    if (threadIdx.x == 0) {
        ptx::mbarrier_init(&bar, 1);
        ptx::fence_proxy_async(ptx::space_shared);
    }
    __syncthreads();
    const int64_t piece = ((count + PIECES - 1) / PIECES + 3) / 4 * 4;  // the pieces cover the chunk
    if (threadIdx.x == 0)
        ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &bar, uint32_t(8 * count));
    __syncwarp();
    if (threadIdx.x < 2 * PIECES) {
        const int p = threadIdx.x % PIECES;
        const float *src = threadIdx.x < PIECES ? a : b;
        float *dst = threadIdx.x < PIECES ? sa : sb;
        const int64_t from = p * piece, len = min(piece, count - from);
        if (len > 0) ptx::cp_async_bulk(ptx::space_cluster, ptx::space_global, dst + from, src + lo + from, uint32_t(4 * len), &bar);
    }
    for (long spins = 0; !ptx::mbarrier_try_wait_parity(&bar, 0);)
        if (++spins > 100000000) __trap();  // a copy that never lands: fail, do not hang
    float s = 0.0f;
    const float4 *va = reinterpret_cast<const float4 *>(sa), *vb = reinterpret_cast<const float4 *>(sb);
    for (int64_t v = threadIdx.x; v < count / 4; v += blockDim.x) {
        const float4 x = va[v], y = vb[v];
        s += (x.x - y.x) + (x.y - y.y) + (x.z - y.z) + (x.w - y.w);
    }
    if (s == 1.2345e-30f) out[0] = s;
}

// The bare read with each block on its own contiguous chunk (the bulk copy's layout), 16-byte loads,
// all of a thread's loads out before any is used (K a thread an array).
template <int K>
__global__ void chunk_two(const float4 *a, const float4 *b, float *out, int64_t vectors) {
    const int64_t chunk = (vectors + gridDim.x - 1) / gridDim.x, lo = blockIdx.x * chunk;
    const int64_t hi = min(vectors, lo + chunk);
    float s = 0.0f;
    for (int64_t v = lo + threadIdx.x; v < hi; v += K * blockDim.x) {
        float4 x[K], y[K];
#pragma unroll
        for (int k = 0; k < K; ++k)
            if (v + k * blockDim.x < hi) x[k] = a[v + k * blockDim.x], y[k] = b[v + k * blockDim.x];
            else x[k] = y[k] = make_float4(0, 0, 0, 0);
#pragma unroll
        for (int k = 0; k < K; ++k) s += (x[k].x - y[k].x) + (x[k].y - y[k].y) + (x[k].z - y[k].z) + (x[k].w - y[k].w);
    }
    if (s == 1.2345e-30f) out[0] = s;
}

int main() {
    setvbuf(stdout, nullptr, _IOLBF, 0);
    const int64_t n = 1000000;
    std::vector<float> ha(n), hb(n);
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    for (auto &x : ha) x = u(rng);
    for (auto &x : hb) x = u(rng);
    float *a, *b;
    double *out;
    CK(cudaMalloc(&a, n * 4));
    CK(cudaMalloc(&b, n * 4));
    CK(cudaMalloc(&out, 64));
    CK(cudaMemcpy(a, ha.data(), n * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(b, hb.data(), n * 4, cudaMemcpyHostToDevice));
    const int shapes[3][2] = {{123, 512}, {245, 256}, {132, 512}};
    unsigned char *scratch[12];
    for (auto &s : scratch) {
        CK(cudaMalloc(&s, tc::best_scratch(256)));
        CK(cudaMemset(s, 0, tc::best_scratch(256)));
    }
    double ref = 0, dot = 0;
    for (int64_t i = 0; i < n; ++i) ref += (double(ha[i]) - hb[i]) * (double(ha[i]) - hb[i]), dot += double(ha[i]) * hb[i];
    for (int round = 0; round < 4; ++round) {
        printf("round %d\n", round);
        for (int s = 0; s < 3; ++s) {
            const int g = shapes[s][0], t = shapes[s][1];
            unsigned char **sc = scratch + 4 * s;
            const float sum = time_us([&] { tc::reduce_best<float, float, tc::Sum, tc::IDENTITY><<<g, t>>>(a, a, (float *)out, sc[0], n); }, 200);
            const float d32 = time_us([&] { tc::reduce_best<float, float, tc::Sum, tc::DIFF_SQUARE><<<g, t>>>(a, b, (float *)out, sc[1], n); }, 200);
            float f32v;
            CK(cudaMemcpy(&f32v, out, 4, cudaMemcpyDeviceToHost));
            const float d64 = time_us([&] { tc::reduce_best<float, double, tc::Sum, tc::DIFF_SQUARE><<<g, t>>>(a, b, out, sc[2], n); }, 200);
            double d64v;
            CK(cudaMemcpy(&d64v, out, 8, cudaMemcpyDeviceToHost));
            const float p64 = time_us([&] { tc::reduce_best<float, double, tc::Sum, tc::PRODUCT><<<g, t>>>(a, b, out, sc[3], n); }, 200);
            double p64v;
            CK(cudaMemcpy(&p64v, out, 8, cudaMemcpyDeviceToHost));
            const float bare = time_us([&] { read_sum<4, true><<<g, t>>>((const float4 *)a, (const float4 *)b, (float *)out, n / 4); }, 200);
            const size_t smem = 8 * size_t(((n + g - 1) / g + 3) / 4 * 4);
            CK(cudaFuncSetAttribute(bulk_two<1>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
            CK(cudaFuncSetAttribute(bulk_two<8>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
            const float bulk1 = time_us([&] { bulk_two<1><<<g, t, smem>>>(a, b, (float *)out, n); }, 200);
            const float bulk8 = time_us([&] { bulk_two<8><<<g, t, smem>>>(a, b, (float *)out, n); }, 200);
            const float chunk = time_us([&] { chunk_two<4><<<g, t>>>((const float4 *)a, (const float4 *)b, (float *)out, n / 4); }, 200);
            printf("  %3d x %3d: bulk copies of a, b into shared memory, 1 a array %5.2f, 8 a array %5.2f | "
                   "16-byte loads of each block's chunk %5.2f us\n", g, t, bulk1, bulk8, chunk);
            printf("  %3d x %3d: sum f32 %5.2f | dist in f32 %5.2f (rel err %.1e) | dist in f64 %5.2f (%.1e) | "
                   "dot f64 %5.2f (%.1e) | bare read of a, b %5.2f us\n",
                   g, t, sum, d32, std::fabs(f32v - ref) / ref, d64, std::fabs(d64v - ref) / ref, p64,
                   std::fabs(p64v - dot) / std::fabs(dot), bare);
        }
    }
    CK(cudaGetLastError());
    return 0;
}
