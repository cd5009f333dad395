// razdalja on the GPU: every variant against the float64 reference with its derived tolerance
// (tc_razdalja_tolerance), and exactly on small-integer inputs, where every partial sum is an
// integer below 2^24 and so every float32 addition, in any order, is exact.
#include "util.h"
#include "tecaj/razdalja.h"

using namespace tctest;

namespace {

const tc_program *const kProgram = tc_razdalja_program();
const bool registered = register_program(kProgram);

tc_status plan(int v, int64_t n, int threads, int blocks, const tc_device *d, tc_razdalja_plan *p) {
    const tc_razdalja_request r{{v, n, threads, blocks}};
    return tc_razdalja_make_plan(&r, d, p);
}
int find(const char *name) { return tc_variant_find(kProgram, name); }

// Compensated (Neumaier) in long double: its own error stays far below best's float64 bound.
double reference_sum(const std::vector<float> &a, const std::vector<float> &b) {
    long double s = 0, c = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        const long double d = (long double)a[i] - (long double)b[i], x = d * d, t = s + x;
        c += std::fabs(s) >= std::fabs(x) ? (s - t) + x : (x - t) + s;
        s = t;
    }
    return std::isfinite(double(s)) ? double(s + c) : double(s);
}

struct Result {
    double sum = NAN;
    tc_razdalja_plan plan{};
    bool refused = false;
};

Result run(int v, const std::vector<float> &a, const std::vector<float> &b, int threads, int blocks = 0) {
    Result r;
    const int64_t n = int64_t(a.size());
    const tc_device d = device();
    const tc_status st = plan(v, n, threads, blocks, &d, &r.plan);
    if (st == TC_OUTSIDE_DOMAIN) {
        r.refused = true;
        return r;
    }
    EXPECT_EQ(TC_OK, st) << tc_status_name(st);
    if (st != TC_OK) return r;
    DeviceBuffer<float> da(n), db(n), out(r.plan.launch.out_count);
    DeviceBuffer<unsigned char> scratch(r.plan.launch.scratch_bytes);
    da.upload(a);
    db.upload(b);
    out.upload(std::vector<float>(r.plan.launch.out_count, poison()));
    const tc_status rs = tc_razdalja_run(&r.plan, da.ptr, db.ptr, out.ptr, scratch.ptr, nullptr);
    EXPECT_EQ(TC_OK, rs) << tc_status_name(rs);
    EXPECT_EQ(cudaSuccess, cudaDeviceSynchronize());
    const std::vector<float> h = out.download(r.plan.launch.out_count);
    // a float64 result is unwritten where both its words still hold the poison (either word
    // alone may be any bit pattern)
    const bool wide = r.plan.output == TC_RAZDALJA_SCALAR64;
    for (int64_t i = 0; i < r.plan.launch.out_count; ++i)
        if (is_poison(h[i]) && (!wide || is_poison(h[i ^ 1]))) {
            ADD_FAILURE() << "output " << i << " of " << r.plan.launch.out_count << " was not written";
            return r;
        }
    r.sum = tc_razdalja_finish(&r.plan, h.data());
    return r;
}

}  // namespace

TEST(Razdalja, EveryVariantWithinItsDerivedTolerance) {
    REQUIRE_GPU();
    uint64_t seed = 100;
    for (int v = 0; v < tc_variant_count(kProgram); ++v)
        for (int64_t n : sizes())
            for (int threads : {0, 32, 96, 256, 512, 1024}) {  // 0: the variant's own choice (best: 256 or 512)
                ++seed;
                const auto a = random_floats(n, seed), b = random_floats(n, seed + 7777);
                const Result r = run(v, a, b, threads);
                if (r.refused) continue;
                const double want = std::sqrt(reference_sum(a, b)), got = std::sqrt(r.sum);
                const double tol = tc_razdalja_tolerance(&r.plan);
                EXPECT_LE(std::fabs(got - want), tol * want)
                    << tc_variant_at(kProgram, v)->name << " n=" << n << " threads=" << threads << " seed=" << seed
                    << " got " << got << " want " << want << " tolerance " << tol;
            }
}

TEST(Razdalja, EveryVariantExactOnSmallIntegers) {
    REQUIRE_GPU();
    uint64_t seed = 500;
    for (int v = 0; v < tc_variant_count(kProgram); ++v)
        for (int64_t n : sizes())
            for (int threads : {0, 32, 96, 1024}) {
                ++seed;
                const auto a = random_small_integers(n, seed), b = random_small_integers(n, seed + 1);
                const Result r = run(v, a, b, threads);
                if (r.refused) continue;
                EXPECT_EQ(r.sum, reference_sum(a, b))
                    << tc_variant_at(kProgram, v)->name << " n=" << n << " threads=" << threads << " seed=" << seed;
            }
}

TEST(Razdalja, UserGridsOfAnySize) {
    REQUIRE_GPU();
    const int64_t n = 100003;
    const auto a = random_small_integers(n, 9), b = random_small_integers(n, 10);
    const double want = reference_sum(a, b);
    for (int v = 0; v < tc_variant_count(kProgram); ++v)
        for (int blocks : {1, 3, 1000, 5000}) {
            const Result r = run(v, a, b, 128, blocks);
            if (!r.refused) EXPECT_EQ(r.sum, want) << tc_variant_at(kProgram, v)->name << " blocks=" << blocks;
        }
}

TEST(Razdalja, NanAndInfPropagate) {
    REQUIRE_GPU();
    for (int v = 0; v < tc_variant_count(kProgram); ++v) {
        const char *name = tc_variant_at(kProgram, v)->name;
        auto a = random_floats(1025, 1), b = random_floats(1025, 2);
        a[700] = INFINITY;
        EXPECT_EQ(run(v, a, b, 256).sum, INFINITY) << name;
        b[700] = INFINITY;  // inf - inf = NaN
        EXPECT_TRUE(std::isnan(run(v, a, b, 256).sum)) << name;
        a = random_floats(1025, 3);
        a[3] = NAN;
        EXPECT_TRUE(std::isnan(run(v, a, b, 256).sum)) << name;
    }
}

// best's header counts runs in steps of tile_state.cuh's kEpochStep (the epoch above a status's two bits)
constexpr uint32_t kEpochStep = 4;
// best's scratch: each run moves the epoch on by one step (its tail ran whole), and the next run's
// partials are told from the last's by it
TEST(Razdalja, BestIsDeterministicAndMovesTheEpochOnEachRun) {
    REQUIRE_GPU();
    const int best = find("best");
    const int64_t n = (1 << 22) + 5;
    const auto a = random_floats(n, 21), b = random_floats(n, 22);
    const tc_device d = device();
    tc_razdalja_plan p;
    ASSERT_EQ(TC_OK, plan(best, n, 256, 0, &d, &p));
    DeviceBuffer<float> da(n), db(n), out(2);
    DeviceBuffer<unsigned char> scratch(p.launch.scratch_bytes);
    da.upload(a);
    db.upload(b);
    std::vector<float> first;
    for (int rep = 0; rep < 20; ++rep) {
        ASSERT_EQ(TC_OK, tc_razdalja_run(&p, da.ptr, db.ptr, out.ptr, scratch.ptr, nullptr));
        const std::vector<float> got = out.download(2);
        if (rep == 0) first = got;
        ASSERT_EQ(std::memcmp(got.data(), first.data(), 8), 0) << "rep " << rep;  // bitwise the same every run
    }
    const std::vector<unsigned char> header = scratch.download(4);
    EXPECT_EQ(uint32_t(header[0]) | uint32_t(header[1]) << 8 | uint32_t(header[2]) << 16 | uint32_t(header[3]) << 24, 20u * kEpochStep)
        << "the epoch after 20 runs";
}

TEST(Razdalja, BestHandlesUnalignedViews) {
    REQUIRE_GPU();
    const int best = find("best");
    const tc_device d = device();
    for (int64_t n : {1, 7, 65537}) {
        const auto a = random_small_integers(n, 31), b = random_small_integers(n, 32);
        tc_razdalja_plan p;
        ASSERT_EQ(TC_OK, plan(best, n, 256, 0, &d, &p));
        DeviceBuffer<float> da(n + 1), db(n + 1), out(2);
        DeviceBuffer<unsigned char> scratch(p.launch.scratch_bytes);
        da.upload(a, 1);
        db.upload(b, 1);
        ASSERT_EQ(TC_OK, tc_razdalja_run(&p, da.ptr + 1, db.ptr + 1, out.ptr, scratch.ptr, nullptr));
        EXPECT_EQ(tc_razdalja_finish(&p, out.download(2).data()), reference_sum(a, b)) << "n=" << n;
        EXPECT_EQ(TC_BAD_ARGUMENT, tc_razdalja_run(&p, da.ptr, db.ptr, out.ptr + 1, scratch.ptr, nullptr));  // one double
    }
}

// best: float64 differences and squares, so inputs whose squares overflow float32 (1e20) or
// vanish in it (1e-41, subnormal) still give the distance within the derived bound.
TEST(Razdalja, BestOfExtremeMagnitudes) {
    REQUIRE_GPU();
    const int best = find("best");
    const tc_device d = device();
    for (float scale : {1e20f, 1e-41f, 3e38f})
        for (int64_t n : {int64_t(1), int64_t(1000), int64_t(1 << 20) + 3}) {
            auto a = random_floats(n, 41), b = random_floats(n, 42);
            for (auto &x : a) x *= scale;
            for (auto &x : b) x *= scale;
            const double want = std::sqrt(reference_sum(a, b));
            const Result r = run(best, a, b, 256);
            ASSERT_FALSE(r.refused);
            const double got = std::sqrt(r.sum), tol = tc_razdalja_tolerance(&r.plan);
            EXPECT_TRUE(std::isfinite(want) && want > 0) << "scale " << scale;
            EXPECT_LE(std::fabs(got - want), tol * want) << "scale " << scale << " n=" << n << ": got " << got
                                                         << " want " << want << " (relative tolerance " << tol << ")";
        }
}

TEST(Razdalja, DomainsAndOutputs) {
    const tc_device d = fake_device();
    tc_razdalja_plan p;
    EXPECT_EQ(TC_OK, plan(find("la2"), int64_t(1) << 22, 256, 0, &d, &p));
    EXPECT_EQ(TC_OUTSIDE_DOMAIN, plan(find("la2"), (int64_t(1) << 22) + 1, 256, 0, &d, &p));
    ASSERT_EQ(TC_OK, plan(find("g"), 1000, 256, 0, &d, &p));
    EXPECT_EQ(p.launch.out_count, 1000);
    EXPECT_EQ(p.output, TC_RAZDALJA_SQUARES);
    ASSERT_EQ(TC_OK, plan(find("ls3"), 100000, 128, 7, &d, &p));
    EXPECT_EQ(p.launch.out_count, 7);
    EXPECT_EQ(p.launch.blocks, 7);
    EXPECT_EQ(p.output, TC_RAZDALJA_PARTIALS);
    ASSERT_EQ(TC_OK, plan(find("best"), 1000, 256, 0, &d, &p));
    EXPECT_EQ(p.launch.out_count, 2);
    EXPECT_EQ(p.output, TC_RAZDALJA_SCALAR64);
    EXPECT_GE(p.launch.scratch_bytes, sizeof(double) * p.launch.blocks);
    EXPECT_LT(tc_razdalja_tolerance(&p), 1e-12);  // float64 sums
    EXPECT_EQ(TC_BAD_ARGUMENT, plan(find("best"), 1000, 100, 0, &d, &p));
    EXPECT_EQ(TC_OUTSIDE_DOMAIN, plan(find("best"), 1000, 128, 0, &d, &p));  // its blocks are 256 or 512 threads
    ASSERT_EQ(TC_OK, plan(find("best"), 1000000, 0, 0, &d, &p));  // one block an SM covers 10^6 in one round of loads
    EXPECT_EQ(p.launch.threads, 512);
    ASSERT_EQ(TC_OK, plan(find("best"), int64_t(1) << 28, 0, 0, &d, &p));
    EXPECT_EQ(p.launch.threads, 256);
}

TEST(Razdalja, ToleranceGrowsWithDepthAndCoversSmallCases) {
    const tc_device d = fake_device();
    tc_razdalja_plan small, large;
    ASSERT_EQ(TC_OK, plan(find("ls"), 1000, 256, 0, &d, &small));
    ASSERT_EQ(TC_OK, plan(find("ls"), int64_t(1) << 28, 256, 0, &d, &large));
    const double ts = tc_razdalja_tolerance(&small), tl = tc_razdalja_tolerance(&large);
    // ls: depth = terms a thread adds + threads; each level adds at most 2^-24 relative, halved by the root.
    EXPECT_NEAR(ts, 0.5 * (small.accumulation_depth + 2) * 0x1p-24, 1e-9);
    EXPECT_GT(tl, ts);
    EXPECT_LT(tl, 1e-3);
    // la2 at its domain's edge: n*2^-24 = 1/4, so the bound is about 1/6 of dist.
    tc_razdalja_plan la2;
    ASSERT_EQ(TC_OK, plan(find("la2"), int64_t(1) << 22, 256, 0, &d, &la2));
    EXPECT_NEAR(tc_razdalja_tolerance(&la2), 0.5 * (1.0 / 3.0), 1e-3);
}

TEST(Razdalja, FinishSumsPartialsInFloat64) {
    const tc_device d = fake_device();
    tc_razdalja_plan p;
    ASSERT_EQ(TC_OK, plan(find("g"), 1 << 25, 256, 0, &d, &p));
    // 2^25 ones: a float32 running sum would stall at 2^24.
    std::vector<float> ones(size_t(1) << 25, 1.0f);
    EXPECT_EQ(tc_razdalja_finish(&p, ones.data()), double(1 << 25));
    ASSERT_EQ(TC_OK, plan(find("la1"), 100, 256, 0, &d, &p));
    const float scalar[] = {42.5f, 1.0f};
    EXPECT_EQ(tc_razdalja_finish(&p, scalar), 42.5);
}

// Several GPUs' combine on the device (tc_razdalja_combine_device): the float64 sums added left to
// right from +0 in GPU order, bit for bit as the host adds them; the order shows (each 2^-53 is half
// an ulp of 1 and rounds away, where the other order keeps it). A plan that writes no float64 sum
// is refused.
TEST(Razdalja, CombineOnDeviceAddsInGPUOrder) {
    REQUIRE_GPU();
    const tc_device d = device();
    tc_razdalja_plan p;
    ASSERT_EQ(TC_OK, plan(find("best"), 1000, 0, 0, &d, &p));
    ASSERT_EQ(TC_RAZDALJA_SCALAR64, p.output);
    constexpr int kMost = 8;
    DeviceBuffer<double> parts(kMost), out(1);
    const auto combine = [&](const std::vector<double> &sums) {
        parts.upload(sums);
        EXPECT_EQ(TC_OK, tc_razdalja_combine_device(&p, parts.ptr, int(sums.size()), reinterpret_cast<float *>(out.ptr), nullptr));
        return out.download(1)[0];
    };
    const double ordered = combine({1.0, 0x1p-53, 0x1p-53, 0x1p-52});
    EXPECT_EQ(ordered, 1.0 + 0x1p-52);
    std::mt19937_64 rng(43);
    for (int count = 1; count <= kMost; ++count)
        for (int trial = 0; trial < 20; ++trial) {
            std::vector<double> sums(count);
            double want = 0.0;  // the host's order
            for (auto &x : sums) {
                x = std::ldexp(double(rng() % 1000003), int(rng() % 80) - 40);
                want += x;
            }
            const double got = combine(sums);
            EXPECT_EQ(0, std::memcmp(&want, &got, 8)) << count << " sums: host " << want << ", device " << got;
        }
    tc_razdalja_plan la1;
    ASSERT_EQ(TC_OK, plan(find("la1"), 1000, 256, 0, &d, &la1));
    EXPECT_EQ(TC_BAD_ARGUMENT, tc_razdalja_combine_device(&la1, parts.ptr, 2, reinterpret_cast<float *>(out.ptr), nullptr));
    EXPECT_EQ(TC_BAD_ARGUMENT, tc_razdalja_combine_device(&p, parts.ptr, 0, reinterpret_cast<float *>(out.ptr), nullptr));
}

TEST(Razdalja, LaunchesAsPlanned) {
    REQUIRE_GPU();
    const tc_device d = device();
    for (int64_t n : {int64_t(1000), int64_t(1) << 20}) {
        DeviceBuffer<float> a(n), b(n), out(n);
        for (int v = 0; v < tc_variant_count(kProgram); ++v) {
            tc_razdalja_plan p;
            ASSERT_EQ(TC_OK, plan(v, n, 0, 0, &d, &p));
            DeviceBuffer<unsigned char> scratch(p.launch.scratch_bytes);
            expect_launches_as_planned(kProgram, p.launch, [&](cudaStream_t s) {
                return tc_razdalja_run(&p, a.ptr, b.ptr, out.ptr, scratch.ptr, s);
            }, std::string(tc_variant_at(kProgram, v)->name) + " n=" + std::to_string(n));
        }
    }
}
