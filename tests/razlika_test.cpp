// razlika on the GPU: every variant, every size and block size its domain allows, against the
// float64 reference. IEEE subtraction is correctly rounded, and rounding the float64 difference
// to float32 is innocuous (53 >= 2*24 + 2), so the tolerance is exact: 0 ulp. And the lessons:
// 1 and 3 past their domains, on buffers padded with guard words, fail as the lecture says.
#include "util.h"
#include "tecaj/razlika.h"
#include <algorithm>
#include <iterator>

using namespace tctest;

namespace {

const tc_program *const kProgram = tc_razlika_program();
const bool registered = register_program(kProgram);

tc_status plan(int v, int64_t n, int threads, int blocks, const tc_device *d, tc_razlika_plan *p, bool lesson = false) {
    const tc_razlika_request r{{v, n, threads, blocks}, lesson ? 1 : 0};
    return tc_razlika_make_plan(&r, d, p);
}
int find(const char *name) { return tc_variant_find(kProgram, name); }

float reference(float a, float b) { return float(double(a) - double(b)); }

// Runs variant v and checks every element; counts the case in ran unless the plan refuses it.
void check(int &ran, int v, int64_t n, int threads, uint64_t seed, std::vector<float> a, std::vector<float> b,
           size_t misalign = 0) {
    const tc_variant *var = tc_variant_at(kProgram, v);
    const tc_device d = device();
    tc_razlika_plan p;
    const tc_status st = plan(v, n, threads, 0, &d, &p);
    if (st == TC_OUTSIDE_DOMAIN) return;
    ASSERT_EQ(TC_OK, st);
    ASSERT_EQ(p.lesson, 0);
    ASSERT_EQ(p.reach, n);
    ++ran;
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
    int ran = 0;
    for (int v = 0; v < tc_variant_count(kProgram); ++v)
        for (int64_t n : sizes())
            for (int threads : kThreads) {
                ++seed;
                check(ran, v, n, threads, seed, random_floats(n, seed), random_floats(n, seed + 1000));
            }
    // 3, 4, e4 and best cover every size and block size
    EXPECT_GE(ran, 4 * int(sizes().size() * std::size(kThreads)));
}

TEST(Razlika, VariantOneFillsExactlyNThreads) {
    REQUIRE_GPU();
    const int v1 = find("1");
    int ran = 0;
    for (int64_t n : {1, 31, 33, 1000, 1024}) check(ran, v1, n, 0, 7, random_floats(n, 7), random_floats(n, 8));
    EXPECT_EQ(ran, 5);
}

TEST(Razlika, NanAndInfPropagate) {
    REQUIRE_GPU();
    const float inf = INFINITY, nan = NAN;
    std::vector<float> a = {nan, 1.0f, inf, inf, -inf, 2.0f, 0.5f, -0.0f, 3.0f};
    std::vector<float> b = {1.0f, nan, inf, 1.0f, inf, -inf, 0.5f, 0.0f, 1e-30f};
    int ran = 0;
    for (int v = 0; v < tc_variant_count(kProgram); ++v) check(ran, v, int64_t(a.size()), 32, 0, a, b);
    EXPECT_EQ(ran, tc_variant_count(kProgram));
}

TEST(Razlika, BestHandlesUnalignedViews) {
    REQUIRE_GPU();
    const int best = find("best");
    int ran = 0;
    for (int64_t n : {5, 1025, 65537}) check(ran, best, n, 256, 3, random_floats(n, 3), random_floats(n, 4), 1);
    EXPECT_EQ(ran, 3);
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

// A lesson (1 or 3 named past its domain) as a caller runs it: a, b and c of the plan's reach, c
// all guard words (the poison). What it should show comes from the lecture's launch, not the plan.
struct Lesson {
    const char *variant;
    int64_t n;
    int threads, blocks;  // as requested (0: the variant's choice)
};

TEST(Razlika, LessonsFailAsTheLectureSays) {
    REQUIRE_GPU();
    const tc_device d = device();
    const Lesson cases[] = {
        {"1", 1000, 1024, 0},        // the index exceeds: 24 threads past n
        {"1", 1, 32, 0},             // 31 past n
        {"1", 33, 64, 0},            // 31 past n
        {"1", 100, 32, 0},           // a block short of n: 68 left unwritten
        {"1", 1025, 1024, 0},        // one left unwritten
        {"1", 5000, 0, 0},           // larger than a block: the largest block, the rest unwritten
        {"1", 65537, 96, 0},
        {"3", 1025, 256, 4},         // a grid short of n by one element
        {"3", 65537, 32, 1},
        {"3", (1 << 20) + 3, 256, 7},
    };
    int ran = 0;
    uint64_t seed = 100;
    for (const Lesson &c : cases) {
        const int v = find(c.variant);
        const int64_t n = c.n;
        // the lecture's launch: variant 1 one block of the named threads (the largest block
        // where none is named), variant 3 the named grid; 3's bounds check keeps writes inside n
        const int64_t covered = v == find("1") ? (c.threads ? c.threads : d.max_threads_per_block)
                                               : int64_t(c.blocks) * c.threads;
        const int64_t want_past = v == find("1") ? std::max<int64_t>(0, covered - n) : 0;
        const int64_t want_unwritten = std::max<int64_t>(0, n - covered);
        const std::string what = std::string(c.variant) + " n=" + std::to_string(n) + " threads=" +
                                 std::to_string(c.threads) + " blocks=" + std::to_string(c.blocks);
        tc_razlika_plan p;
        // not named (under -variant all): 1 at n <= 1024 is the step itself, a block of n threads
        // whatever -threads says; past a block, and 3 short of n, outside the domain
        if (v == find("1") && n <= 1024) {
            EXPECT_EQ(TC_OK, plan(v, n, c.threads, c.blocks, &d, &p)) << what << ": not named";
            EXPECT_EQ(p.launch.threads, n) << what << ": not named";
            EXPECT_EQ(p.lesson, 0) << what << ": not named";
        } else {
            EXPECT_EQ(TC_OUTSIDE_DOMAIN, plan(v, n, c.threads, c.blocks, &d, &p)) << what << ": not named";
        }
        ASSERT_EQ(TC_OK, plan(v, n, c.threads, c.blocks, &d, &p, true)) << what;
        ASSERT_EQ(p.lesson, 1) << what;
        ASSERT_GE(p.reach, n + want_past) << what;
        const int64_t reach = p.reach;
        ++seed;
        const std::vector<float> a = random_floats(reach, seed), b = random_floats(reach, seed + 1000);
        DeviceBuffer<float> da(reach), db(reach), dc(reach);
        ASSERT_TRUE(da.ptr && db.ptr && dc.ptr);
        da.upload(a);
        db.upload(b);
        dc.upload(std::vector<float>(reach, poison()));
        ASSERT_EQ(TC_OK, tc_razlika_run(&p, da.ptr, db.ptr, dc.ptr, nullptr)) << what;
        CUDA_OK(cudaDeviceSynchronize());
        const std::vector<float> out = dc.download(reach);
        int64_t past = 0, unwritten = 0, wrong = 0;
        for (int64_t i = 0; i < reach; ++i) {
            if (is_poison(out[i])) {
                unwritten += i < n;
                continue;
            }
            past += i >= n;
            wrong += out[i] != reference(a[i], b[i]);  // what is written is a - b, past n too
        }
        EXPECT_EQ(past, want_past) << what << ": guard words overwritten";
        EXPECT_EQ(unwritten, want_unwritten) << what << ": left unwritten";
        EXPECT_EQ(wrong, 0) << what;
        EXPECT_GT(past + unwritten, 0) << what << ": a lesson that shows nothing";
        ++ran;
    }
    EXPECT_EQ(ran, int(std::size(cases)));
}

// Named inside its domain, 1 and 3 are no lesson: exact, with no padding.
TEST(Razlika, NamedInsideTheDomainStillExact) {
    REQUIRE_GPU();
    const tc_device d = device();
    const Lesson cases[] = {{"1", 1000, 0, 0}, {"1", 64, 64, 0}, {"1", 1, 0, 0}, {"3", 1025, 256, 5}, {"3", 65537, 32, 0}};
    int ran = 0;
    for (const Lesson &c : cases) {
        const int64_t n = c.n;
        tc_razlika_plan p;
        ASSERT_EQ(TC_OK, plan(find(c.variant), n, c.threads, c.blocks, &d, &p, true)) << c.variant << " n=" << n;
        EXPECT_EQ(p.lesson, 0) << c.variant << " n=" << n;
        ASSERT_EQ(p.reach, n) << c.variant << " n=" << n;
        const std::vector<float> a = random_floats(n, 50 + n), b = random_floats(n, 60 + n);
        DeviceBuffer<float> da(n), db(n), dc(n);
        da.upload(a);
        db.upload(b);
        dc.upload(std::vector<float>(n, poison()));
        ASSERT_EQ(TC_OK, tc_razlika_run(&p, da.ptr, db.ptr, dc.ptr, nullptr));
        CUDA_OK(cudaDeviceSynchronize());
        const std::vector<float> out = dc.download(n);
        int64_t bad = 0;
        for (int64_t i = 0; i < n; ++i) bad += is_poison(out[i]) || out[i] != reference(a[i], b[i]);
        EXPECT_EQ(bad, 0) << c.variant << " n=" << n;
        ++ran;
    }
    EXPECT_EQ(ran, int(std::size(cases)));
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

// Which requests run as a lesson (named past 1's or 3's domain), and with what reach.
TEST(Razlika, LessonPlans) {
    const tc_device d = fake_device();
    tc_razlika_plan p;
    ASSERT_EQ(TC_OK, plan(find("1"), 1000, 1024, 0, &d, &p, true));  // the index exceeds n
    EXPECT_EQ(p.lesson, 1);
    EXPECT_EQ(p.launch.threads, 1024);
    EXPECT_EQ(p.launch.blocks, 1);
    EXPECT_EQ(p.reach, 1024);
    EXPECT_EQ(p.launch.bytes_moved, 0.0);  // a wrong run claims no rate
    ASSERT_EQ(TC_OK, plan(find("1"), 1000, 1024, 0, &d, &p));  // not named: -threads ignored, as ever
    EXPECT_EQ(p.lesson, 0);
    EXPECT_EQ(p.launch.threads, 1000);
    EXPECT_EQ(p.reach, 1000);
    ASSERT_EQ(TC_OK, plan(find("1"), 5000, 0, 0, &d, &p, true));  // n past any block: the largest block
    EXPECT_EQ(p.lesson, 1);
    EXPECT_EQ(p.launch.threads, 1024);
    EXPECT_EQ(p.reach, 5000);
    ASSERT_EQ(TC_OK, plan(find("1"), 5000, 256, 0, &d, &p, true));
    EXPECT_EQ(p.launch.threads, 256);
    EXPECT_EQ(p.reach, 5000);
    ASSERT_EQ(TC_OK, plan(find("1"), 64, 64, 0, &d, &p, true));  // threads == n: the domain
    EXPECT_EQ(p.lesson, 0);
    ASSERT_EQ(TC_OK, plan(find("3"), 1025, 256, 4, &d, &p, true));
    EXPECT_EQ(p.lesson, 1);
    EXPECT_EQ(p.launch.blocks, 4);
    EXPECT_EQ(p.reach, 1025);  // the bounds check: nothing past n
    ASSERT_EQ(TC_OK, plan(find("3"), 1025, 256, 5, &d, &p, true));
    EXPECT_EQ(p.lesson, 0);
    tc_device old = fake_device();
    old.max_grid_x = 65535;
    ASSERT_EQ(TC_OK, plan(find("3"), 65535LL * 256 + 1, 256, 0, &old, &p, true));  // no grid covers n
    EXPECT_EQ(p.lesson, 1);
    EXPECT_EQ(p.launch.blocks, 65535);
    // the other variants have no lesson: outside their domain they are refused, named or not
    EXPECT_EQ(TC_OUTSIDE_DOMAIN, plan(find("2"), 257, 256, 0, &d, &p, true));
    for (int v = 0; v < tc_variant_count(kProgram); ++v) {
        const char *name = tc_variant_at(kProgram, v)->name;
        const tc_status st = plan(v, 1 << 20, 256, 0, &d, &p, true);
        if (v == find("2")) {
            EXPECT_EQ(TC_OUTSIDE_DOMAIN, st);
            continue;
        }
        ASSERT_EQ(TC_OK, st) << name;
        EXPECT_EQ(p.lesson, v == find("1") ? 1 : 0) << name;
    }
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
