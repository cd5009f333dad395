// Scratch experiment (not part of the product): where the reduce engine's time goes at 10^6, phase
// by phase, for sum, max, argmin float32 and argmin int32, razdalja's distance and the dot (argmin f32 takes 0.3 us more than
// int32 and 0.6 more than sum, and the tenth and eleventh sessions could not say where).
// reduce_best's TC_BEST_PHASE hooks (0 start, 1 the thread's elements done, 2 the block's
// reduction done, 3 the partial stored or, in the last block, every partial read, 4 the result
// written) record thread 0's %globaltimer (ns, one clock for every SM) and clock64 (its SM's
// cycles) in each block. The grid and block are the library's at 10^6 (123 x 512); the input sits
// in L2 (warm runs first); each run is queued behind a device-side delay, as the timed runs are.
// Printed: medians over the runs, in ns from the first block's start, and the last block's
// phases in cycles.
//   bash scripts/experiments/run.sh phases
#include <algorithm>
#include <cstdio>
#include <random>
#include <vector>

__device__ unsigned long long *g_stamps;  // [block][10]: globaltimer of phases 0..4, then clock64 of 0..4
__device__ __forceinline__ void phase_stamp(int k) {
    if (threadIdx.x != 0) return;
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    g_stamps[blockIdx.x * 10 + k] = t;
    g_stamps[blockIdx.x * 10 + 5 + k] = clock64();
}
#define TC_BEST_PHASE(k) phase_stamp(k)
#include "reduce_best.cuh"
#include "timing.cuh"

__global__ void timer_step(unsigned long long *out) {
    unsigned long long prev, t, step = ~0ull, changes = 0;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(prev));
    for (int i = 0; i < 100000; ++i) {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
        if (t != prev) step = t - prev < step ? t - prev : step, ++changes, prev = t;
    }
    out[0] = step;
    out[1] = changes;
}

constexpr int kBlocks = 123, kThreads = 512;
constexpr int64_t kN = 1000000;

template <typename T, typename A, typename Op, tc::Map M = tc::IDENTITY>
void run_case(const char *name, const T *a, unsigned long long *stamps, const T *b = nullptr) {
    unsigned char *scratch;
    A *result;
    CK(cudaMalloc(&scratch, tc::best_scratch(kBlocks)));
    CK(cudaMemset(scratch, 0, tc::best_scratch(kBlocks)));
    CK(cudaMalloc(&result, sizeof(A)));
    // the instantiation the library runs at kN (argmin: the packed words, since the twelfth session)
    const auto launch = [&] {
        tc::with_narrow<T, Op>(kN, [&](auto narrow) {
            tc::reduce_best<T, A, Op, M, decltype(narrow)::value><<<kBlocks, kThreads>>>(a, b ? b : a, result, scratch, kN);
            return 0;
        });
    };
    const float us = time_us(launch, 200, 20);
    std::vector<double> start_skew, last_start, last_elems, last_block, last_poll, last_end, others_stored, elems_max;
    std::vector<double> c_elems, c_block, c_poll, c_end;
    std::vector<unsigned long long> h(kBlocks * 10);
    for (int r = 0; r < 100; ++r) {
        experiment_spin<<<1, 1>>>(100000);
        launch();
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(h.data(), stamps, h.size() * 8, cudaMemcpyDeviceToHost));
        unsigned long long t0 = ~0ull, first_last = 0, stored = 0, elems = 0;
        for (int b = 0; b < kBlocks; ++b) {
            t0 = std::min(t0, h[b * 10]);
            first_last = std::max(first_last, h[b * 10]);
            elems = std::max(elems, h[b * 10 + 1]);
            if (b != kBlocks - 1) stored = std::max(stored, h[b * 10 + 3]);
        }
        const unsigned long long *L = &h[(kBlocks - 1) * 10];
        start_skew.push_back(double(first_last - t0));
        last_start.push_back(double(L[0] - t0));
        last_elems.push_back(double(L[1] - t0));
        last_block.push_back(double(L[2] - t0));
        last_poll.push_back(double(L[3] - t0));
        last_end.push_back(double(L[4] - t0));
        others_stored.push_back(double(stored - t0));
        elems_max.push_back(double(elems - t0));
        c_elems.push_back(double(L[6] - L[5]));
        c_block.push_back(double(L[7] - L[6]));
        c_poll.push_back(double(L[8] - L[7]));
        c_end.push_back(double(L[9] - L[8]));
    }
    const auto med = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    printf("%-12s kernel %5.2f us (events, with the stamps) | ns from the first block's start: latest block start %4.0f,"
           " latest elements done %4.0f, latest other partial stored %4.0f | the last block: start %4.0f, elements %4.0f,"
           " block reduced %4.0f, partials read %4.0f, result %4.0f | its cycles: elements %5.0f, reduction %4.0f,"
           " poll %4.0f, final %4.0f\n",
           name, us, med(start_skew), med(elems_max), med(others_stored), med(last_start), med(last_elems), med(last_block),
           med(last_poll), med(last_end), med(c_elems), med(c_block), med(c_poll), med(c_end));
    CK(cudaFree(scratch));
    CK(cudaFree(result));
}

int main() {
    unsigned long long *stamps;
    CK(cudaMalloc(&stamps, kBlocks * 10 * 8));
    CK(cudaMemcpyToSymbol(g_stamps, &stamps, sizeof(stamps)));
    std::mt19937 rng(1);
    std::vector<float> f(kN);
    std::vector<int> i(kN);
    for (auto &x : f) x = std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng);
    for (auto &x : i) x = int(rng() % 2001) - 1000;
    float *df, *dg;
    int *di;
    CK(cudaMalloc(&df, kN * 4));
    CK(cudaMalloc(&dg, kN * 4));
    CK(cudaMemcpy(dg, f.data() + 1, (kN - 1) * 4, cudaMemcpyHostToDevice));
    CK(cudaMalloc(&di, kN * 4));
    CK(cudaMemcpy(df, f.data(), kN * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(di, i.data(), kN * 4, cudaMemcpyHostToDevice));
    for (int rep = 0; rep < 2; ++rep) {
        run_case<float, float, tc::Sum>("sum f32", df, stamps);
        run_case<float, float, tc::Max>("max f32", df, stamps);
        run_case<float, tc::KeyValue<float>, tc::ArgMin>("argmin f32", df, stamps);
        run_case<int, tc::KeyValue<int>, tc::ArgMin>("argmin i32", di, stamps);
        // razdalja's map: (a-b)^2 accumulated in float32, in float64, and the dot in float64
        run_case<float, float, tc::Sum, tc::DIFF_SQUARE>("dist f32", df, stamps, dg);
        run_case<float, double, tc::Sum, tc::DIFF_SQUARE>("dist f64", df, stamps, dg);
        run_case<float, double, tc::Sum, tc::PRODUCT>("dot f64", df, stamps, dg);
    }
    // the timer's step: the smallest change of %globaltimer seen by one thread
    unsigned long long *step, h[2];
    CK(cudaMalloc(&step, 16));
    timer_step<<<1, 1>>>(step);
    CK(cudaMemcpy(h, step, 16, cudaMemcpyDeviceToHost));
    printf("globaltimer: smallest step %llu ns, %llu changes in 100000 reads\n", h[0], h[1]);
    return 0;
}
