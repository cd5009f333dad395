// razlika on the GPU: every variant, every size and block size its domain allows, against the
// float64 reference. IEEE subtraction is correctly rounded, and rounding the float64 difference
// to float32 is innocuous (53 >= 2*24 + 2), so the tolerance is exact: 0 ulp.
#include "util.h"

using namespace tctest;

namespace {

float reference(float a, float b) { return float(double(a) - double(b)); }

// Runs variant v and checks every element; returns false (with a message) where the plan refuses.
void check(int v, int64_t n, int threads, uint64_t seed, std::vector<float> a, std::vector<float> b,
           size_t misalign = 0) {
    const tc_variant *var = tc_variant_at(TC_RAZLIKA, v);
    const tc_device d = device();
    tc_plan p;
    const tc_status st = tc_plan_launch(TC_RAZLIKA, v, n, threads, 0, &d, &p);
    if (st == TC_OUTSIDE_DOMAIN) return;
    ASSERT_EQ(TC_OK, st);
    const bool managed = var->flags & TC_MANAGED;
    DeviceBuffer<float> da(n + misalign, managed), db(n + misalign, managed), dc(n + misalign, managed);
    ASSERT_TRUE(da.ptr && db.ptr && dc.ptr);
    da.upload(a, misalign);
    db.upload(b, misalign);
    dc.upload(std::vector<float>(n, poison()), misalign);
    ASSERT_EQ(TC_OK, tc_razlika_run(&p, da.ptr + misalign, db.ptr + misalign, dc.ptr + misalign, nullptr));
    CUDA_OK(cudaDeviceSynchronize());
    const std::vector<float> c = dc.download(n, misalign);
    int64_t bad = 0;
    for (int64_t i = 0; i < n; ++i) {
        const float want = reference(a[i], b[i]);
        const bool ok = !is_poison(c[i]) && (std::isnan(want) ? std::isnan(c[i]) : c[i] == want);
        if (!ok && bad++ < 3)
            ADD_FAILURE() << var->name << " n=" << n << " threads=" << threads << " seed=" << seed << " i=" << i
                          << ": got " << c[i] << (is_poison(c[i]) ? " (unwritten)" : "") << ", want " << want;
    }
    EXPECT_EQ(bad, 0) << var->name << " n=" << n << " threads=" << threads;
}

}  // namespace

TEST(Razlika, EveryVariantSizeAndBlockSize) {
    REQUIRE_GPU();
    uint64_t seed = 1;
    for (int v = 0; v < tc_variant_count(TC_RAZLIKA); ++v)
        for (int64_t n : sizes())
            for (int threads : kThreads) {
                ++seed;
                check(v, n, threads, seed, random_floats(n, seed), random_floats(n, seed + 1000));
            }
}

TEST(Razlika, VariantOneFillsExactlyNThreads) {
    REQUIRE_GPU();
    const int v1 = tc_variant_find(TC_RAZLIKA, "1");
    for (int64_t n : {1, 31, 33, 1000, 1024}) check(v1, n, 0, 7, random_floats(n, 7), random_floats(n, 8));
}

TEST(Razlika, NanAndInfPropagate) {
    REQUIRE_GPU();
    const float inf = INFINITY, nan = NAN;
    std::vector<float> a = {nan, 1.0f, inf, inf, -inf, 2.0f, 0.5f, -0.0f, 3.0f};
    std::vector<float> b = {1.0f, nan, inf, 1.0f, inf, -inf, 0.5f, 0.0f, 1e-30f};
    for (int v = 0; v < tc_variant_count(TC_RAZLIKA); ++v) check(v, int64_t(a.size()), 32, 0, a, b);
}

TEST(Razlika, BestHandlesUnalignedViews) {
    REQUIRE_GPU();
    const int best = tc_variant_find(TC_RAZLIKA, "best");
    for (int64_t n : {5, 1025, 65537}) check(best, n, 256, 3, random_floats(n, 3), random_floats(n, 4), 1);
}

TEST(Razlika, UserGridStillCoversN) {
    REQUIRE_GPU();
    // 4 and best with a tiny grid: the grid-stride loop must still write every element.
    const tc_device d = device();
    for (const char *name : {"4", "best"}) {
        const int v = tc_variant_find(TC_RAZLIKA, name);
        const int64_t n = 100003;
        tc_plan p;
        ASSERT_EQ(TC_OK, tc_plan_launch(TC_RAZLIKA, v, n, 64, 3, &d, &p));
        auto a = random_floats(n, 11), b = random_floats(n, 12);
        DeviceBuffer<float> da(n), db(n), dc(n);
        da.upload(a);
        db.upload(b);
        dc.upload(std::vector<float>(n, poison()));
        ASSERT_EQ(TC_OK, tc_razlika_run(&p, da.ptr, db.ptr, dc.ptr, nullptr));
        CUDA_OK(cudaDeviceSynchronize());
        auto c = dc.download(n);
        for (int64_t i = 0; i < n; ++i) ASSERT_EQ(c[i], reference(a[i], b[i])) << name << " i=" << i;
    }
}

TEST(KernelAttributes, EveryKernelOfEveryProgram) {
    REQUIRE_GPU();
    for (int p = 0; p < TC_PROGRAM_COUNT; ++p)
        for (int v = 0; v < tc_variant_count(tc_program(p)); ++v)
            for (int k = 0; k < tc_variant_at(tc_program(p), v)->kernel_count; ++k) {
                tc_kernel_info a{};
                ASSERT_EQ(TC_OK, tc_kernel_attributes(tc_program(p), v, k, &a));
                EXPECT_NE(a.kernel, nullptr);
                EXPECT_GT(a.registers, 0);
                EXPECT_GE(a.max_threads_per_block, 32);
            }
}
