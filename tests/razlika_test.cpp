// razlika on the GPU: every variant, every size and block size its domain allows, against the
// float64 reference. IEEE subtraction is correctly rounded, and rounding the float64 difference
// to float32 is innocuous (53 >= 2*24 + 2), so the tolerance is exact: 0 ulp.
#include "util.h"
#include "tecaj/razlika.h"

using namespace tctest;

namespace {

const tc_program *const kProgram = tc_razlika_program();
const bool registered = register_program(kProgram);

tc_status plan(int v, int64_t n, int threads, int blocks, const tc_device *d, tc_razlika_plan *p) {
    const tc_razlika_request r{{v, n, threads, blocks}};
    return tc_razlika_make_plan(&r, d, p);
}
int find(const char *name) { return tc_variant_find(kProgram, name); }

float reference(float a, float b) { return float(double(a) - double(b)); }

// Runs variant v and checks every element; returns false (with a message) where the plan refuses.
void check(int v, int64_t n, int threads, uint64_t seed, std::vector<float> a, std::vector<float> b,
           size_t misalign = 0) {
    const tc_variant *var = tc_variant_at(kProgram, v);
    const tc_device d = device();
    tc_razlika_plan p;
    const tc_status st = plan(v, n, threads, 0, &d, &p);
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
    for (int v = 0; v < tc_variant_count(kProgram); ++v)
        for (int64_t n : sizes())
            for (int threads : kThreads) {
                ++seed;
                check(v, n, threads, seed, random_floats(n, seed), random_floats(n, seed + 1000));
            }
}

TEST(Razlika, VariantOneFillsExactlyNThreads) {
    REQUIRE_GPU();
    const int v1 = find("1");
    for (int64_t n : {1, 31, 33, 1000, 1024}) check(v1, n, 0, 7, random_floats(n, 7), random_floats(n, 8));
}

TEST(Razlika, NanAndInfPropagate) {
    REQUIRE_GPU();
    const float inf = INFINITY, nan = NAN;
    std::vector<float> a = {nan, 1.0f, inf, inf, -inf, 2.0f, 0.5f, -0.0f, 3.0f};
    std::vector<float> b = {1.0f, nan, inf, 1.0f, inf, -inf, 0.5f, 0.0f, 1e-30f};
    for (int v = 0; v < tc_variant_count(kProgram); ++v) check(v, int64_t(a.size()), 32, 0, a, b);
}

TEST(Razlika, BestHandlesUnalignedViews) {
    REQUIRE_GPU();
    const int best = find("best");
    for (int64_t n : {5, 1025, 65537}) check(best, n, 256, 3, random_floats(n, 3), random_floats(n, 4), 1);
}

TEST(Razlika, UserGridStillCoversN) {
    REQUIRE_GPU();
    // 4 and best with a tiny grid: the grid-stride loop must still write every element.
    const tc_device d = device();
    for (const char *name : {"4", "best"}) {
        const int v = find(name);
        const int64_t n = 100003;
        tc_razlika_plan p;
        ASSERT_EQ(TC_OK, plan(v, n, 64, 3, &d, &p));
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

TEST(Razlika, Domains) {
    const tc_device d = fake_device();
    tc_razlika_plan p;
    ASSERT_EQ(TC_OK, plan(find("1"), 1024, 0, 0, &d, &p));
    EXPECT_EQ(p.launch.threads, 1024);
    EXPECT_EQ(p.launch.blocks, 1);
    EXPECT_EQ(TC_OUTSIDE_DOMAIN, plan(find("1"), 1025, 0, 0, &d, &p));
    EXPECT_EQ(TC_OK, plan(find("2"), 256, 256, 0, &d, &p));
    EXPECT_EQ(TC_OUTSIDE_DOMAIN, plan(find("2"), 257, 256, 0, &d, &p));
    ASSERT_EQ(TC_OK, plan(find("3"), 1025, 256, 0, &d, &p));
    EXPECT_EQ(p.launch.blocks, 5);
    EXPECT_EQ(TC_OUTSIDE_DOMAIN, plan(find("3"), 1025, 256, 4, &d, &p));  // grid too small
    tc_device old = fake_device();
    old.multiprocessors = 16, old.max_grid_x = 65535;  // a device whose grid holds at most 65535 blocks
    EXPECT_EQ(TC_OUTSIDE_DOMAIN, plan(find("3"), 65536, 256, 65536, &old, &p));
    EXPECT_EQ(TC_OUTSIDE_DOMAIN, plan(find("3"), 65535LL * 256 + 1, 256, 0, &old, &p));
    ASSERT_EQ(TC_OK, plan(find("4"), int64_t(1) << 30, 256, 0, &d, &p));
    EXPECT_EQ(p.launch.blocks, 132 * 8);  // one resident wave
    EXPECT_DOUBLE_EQ(p.launch.bytes_moved, 12.0 * double(int64_t(1) << 30));
    EXPECT_EQ(p.launch.out_count, int64_t(1) << 30);
    ASSERT_EQ(TC_OK, plan(find("4"), 33, 32, 0, &d, &p));
    EXPECT_EQ(p.launch.blocks, 2);  // no more blocks than n needs
    EXPECT_EQ(TC_BAD_ARGUMENT, plan(find("4"), 0, 32, 0, &d, &p));
    EXPECT_EQ(TC_BAD_ARGUMENT, tc_razlika_make_plan(nullptr, &d, &p));
}

TEST(Razlika, LaunchesAsPlanned) {
    REQUIRE_GPU();
    const tc_device d = device();
    const int64_t n = 1000;
    DeviceBuffer<float> a(n), b(n), c(n);
    for (int v = 0; v < tc_variant_count(kProgram); ++v) {
        tc_razlika_plan p;
        ASSERT_EQ(TC_OK, plan(v, n, 1024, 0, &d, &p));
        expect_launches_as_planned(kProgram, p.launch, [&](cudaStream_t s) {
            return tc_razlika_run(&p, a.ptr, b.ptr, c.ptr, s);
        }, tc_variant_at(kProgram, v)->name);
    }
}
