// Scratch experiment (not part of the product): best's grid below one round of loads a thread
// (n <= multiprocessors x 512 x 16 floats): the library's (just enough 512-thread blocks to give
// each thread its four 16-byte loads: 123 at 10^6) against one block on every multiprocessor (132,
// fewer elements a thread, more of the chip reading). One process, one set of random buffers
// (input in L2), rounds interleaved, events behind a delay, median of 200 runs a round.
//   bash scripts/experiments/run.sh wave
#include <cstdio>
#include <random>
#include <vector>

#include "reduce_best.cuh"
#include "timing.cuh"

int main() {
    setvbuf(stdout, nullptr, _IOLBF, 0);
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    const int sms = prop.multiProcessorCount;
    const int64_t nmax = 1000000;
    std::vector<float> hf(nmax), hg(nmax);
    std::vector<int> hi(nmax);
    std::mt19937 rng(3);
    for (auto &x : hf) x = std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng);
    for (auto &x : hg) x = std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng);
    for (auto &x : hi) x = int(rng() % 2001) - 1000;
    float *a, *b;
    int *ai;
    unsigned char *scratch;
    double *out;
    CK(cudaMalloc(&a, nmax * 4));
    CK(cudaMalloc(&b, nmax * 4));
    CK(cudaMalloc(&ai, nmax * 4));
    CK(cudaMalloc(&out, 64));
    CK(cudaMalloc(&scratch, tc::best_scratch(1024)));
    CK(cudaMemset(scratch, 0, tc::best_scratch(1024)));
    CK(cudaMemcpy(a, hf.data(), nmax * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(b, hg.data(), nmax * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(ai, hi.data(), nmax * 4, cudaMemcpyHostToDevice));
    const int64_t sizes[] = {65537, 300000, 1000000};
    for (int round = 0; round < 6; ++round) {
        for (int64_t n : sizes) {
            const int lib = int((n + 8191) / 8192);  // 512 threads x 4 loads x 4 floats
            float t[2][6];
            int grid[2] = {lib, sms};
            for (int s = 0; s < 2; ++s) {
                const int g = grid[s];
                t[s][0] = time_us([&] { tc::reduce_best<float, float, tc::Sum, tc::IDENTITY><<<g, 512>>>(a, a, (float *)out, scratch, n); }, 200);
                t[s][1] = time_us([&] { tc::reduce_best<float, float, tc::Max, tc::IDENTITY><<<g, 512>>>(a, a, (float *)out, scratch, n); }, 200);
                t[s][2] = time_us([&] { tc::reduce_best<float, tc::KeyValue<float>, tc::ArgMin, tc::IDENTITY, true><<<g, 512>>>(a, a, (tc::KeyValue<float> *)out, scratch, n); }, 200);
                t[s][3] = time_us([&] { tc::reduce_best<int, int64_t, tc::Sum, tc::IDENTITY><<<g, 512>>>(ai, ai, (int64_t *)out, scratch, n); }, 200);
                t[s][4] = time_us([&] { tc::reduce_best<float, double, tc::Sum, tc::DIFF_SQUARE><<<g, 512>>>(a, b, out, scratch, n); }, 200);
                t[s][5] = time_us([&] { tc::reduce_best<float, double, tc::Sum, tc::PRODUCT><<<g, 512>>>(a, b, out, scratch, n); }, 200);
            }
            printf("round %d n=%7lld blocks %3d / %3d: sum f32 %5.2f / %5.2f | max f32 %5.2f / %5.2f | argmin f32 %5.2f / %5.2f | "
                   "sum i32 %5.2f / %5.2f | distance %5.2f / %5.2f | dot %5.2f / %5.2f\n",
                   round, (long long)n, grid[0], grid[1], t[0][0], t[1][0], t[0][1], t[1][1], t[0][2], t[1][2], t[0][3], t[1][3],
                   t[0][4], t[1][4], t[0][5], t[1][5]);
        }
    }
    CK(cudaGetLastError());
    return 0;
}
