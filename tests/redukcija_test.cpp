// redukcija on the GPU: every variant x operator x type at sizes that are multiples of nothing
// and every block size, against a reference in long double (Neumaier's compensated sum) within
// the derived bound (tc_redukcija_tolerance), exactly where the result must be exact (integers,
// min, max, arg, small-integer floats); NaN at the first, middle and last index; all +Inf; all
// -0.0; ties; magnitudes whose squares overflow or underflow float32; determinism.
#include "runtime/common.cuh"
#include "util.h"
#include "tecaj/redukcija.h"
#include <algorithm>
#include <limits>

using namespace tctest;

namespace {

const tc_program *const kProgram = tc_redukcija_program();
const bool registered = register_program(kProgram);

int find(const char *name) { return tc_variant_find(kProgram, name); }
const char *name_of(int v) { return tc_variant_at(kProgram, v)->name; }
const char *const kOps[] = {"sum", "min", "max", "mean", "norm", "dot", "argmin", "argmax"};
const char *const kTypes[] = {"float32", "float64", "int32"};

// Input vectors held as doubles (every float32 and int32 is exact in a double) and uploaded in
// the request's type.
struct Input {
    tc_dtype type;
    std::vector<double> a, b;
};

Input random_input(tc_dtype type, int64_t n, uint64_t seed, bool small_integers = false) {
    std::mt19937_64 rng(seed);
    Input in{type, std::vector<double>(n), std::vector<double>(n)};
    for (auto *v : {&in.a, &in.b})
        for (auto &x : *v) {
            if (type == TC_INT32) x = double(int(rng() % 2001) - 1000);
            else if (small_integers) x = double(int(rng() % 5) - 2);
            else if (type == TC_FLOAT32) x = double(std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng));
            else x = std::uniform_real_distribution<double>(-1.0, 1.0)(rng);
        }
    return in;
}

std::vector<unsigned char> bytes_of(const std::vector<double> &v, tc_dtype type) {
    const size_t size = type == TC_FLOAT64 ? 8 : 4;
    std::vector<unsigned char> out(v.size() * size + 16);
    for (size_t i = 0; i < v.size(); ++i) {
        if (type == TC_FLOAT32) { const float f = float(v[i]); std::memcpy(&out[4 * i], &f, 4); }
        else if (type == TC_FLOAT64) std::memcpy(&out[8 * i], &v[i], 8);
        else { const int32_t x = int32_t(v[i]); std::memcpy(&out[4 * i], &x, 4); }
    }
    return out;
}

struct Reference {
    long double sum = 0;   // sum of the mapped elements
    double sum_abs = 0;    // sum of their magnitudes (the bound's scale)
    int64_t exact = 0;     // integers: the wrapped int64 sum
    double extreme = 0;    // min or max (NaN propagates)
    int64_t index = -1;    // argmin/argmax
};

Reference reference(const Input &in, tc_op op) {
    Reference r;
    long double c = 0;  // Neumaier's compensation
    const bool less = op == TC_MIN || op == TC_ARGMIN;
    r.extreme = less ? INFINITY : -INFINITY;
    const int64_t n = int64_t(in.a.size());
    for (int64_t i = 0; i < n; ++i) {
        const double x = in.a[i];
        const long double m = op == TC_NORM ? (long double)x * x : op == TC_DOT ? (long double)x * in.b[i] : x;
        if (in.type == TC_INT32)
            r.exact = int64_t(uint64_t(r.exact) + uint64_t(op == TC_NORM ? int64_t(x) * int64_t(x)
                                                          : op == TC_DOT ? int64_t(x) * int64_t(in.b[i])
                                                                             : int64_t(x)));
        const long double t = r.sum + m;
        c += std::fabs(r.sum) >= std::fabs(m) ? (r.sum - t) + m : (m - t) + r.sum;
        r.sum = t;
        r.sum_abs += double(std::fabs(m));
        // min/max and their index: the first NaN wins, else the smaller (larger) value, the first on ties
        if (r.index < 0 || (!std::isnan(r.extreme) && (std::isnan(x) || (less ? x < r.extreme : x > r.extreme)))) {
            r.index = i;
            r.extreme = x;
        }
    }
    r.sum += c;
    return r;
}

struct Outcome {
    bool refused = false;
    tc_redukcija_plan plan{};
    tc_redukcija_result result{};
};

Outcome run(int v, const Input &in, tc_op op, int threads, int blocks = 0) {
    Outcome r;
    const int64_t n = int64_t(in.a.size());
    const tc_device d = device();
    const tc_redukcija_request req{{v, n, threads, blocks}, op, in.type};
    const tc_status st = tc_redukcija_make_plan(&req, &d, &r.plan);
    if (st == TC_OUTSIDE_DOMAIN) {
        r.refused = true;
        return r;
    }
    EXPECT_EQ(TC_OK, st) << tc_status_name(st);
    const auto a = bytes_of(in.a, in.type), b = bytes_of(in.b, in.type);
    DeviceBuffer<unsigned char> da(a.size()), db(b.size()), out(TC_REDUKCIJA_OUT_BYTES), scratch(r.plan.launch.scratch_bytes);
    da.upload(std::vector<unsigned char>(a));
    db.upload(std::vector<unsigned char>(b));
    out.upload(std::vector<unsigned char>(TC_REDUKCIJA_OUT_BYTES, 0xA5));  // poison: a NaN, an odd integer
    EXPECT_EQ(TC_OK, tc_redukcija_run(&r.plan, da.ptr, db.ptr, out.ptr, scratch.ptr, nullptr));
    EXPECT_EQ(cudaSuccess, cudaDeviceSynchronize());
    const auto host = out.download(TC_REDUKCIJA_OUT_BYTES);
    EXPECT_EQ(TC_OK, tc_redukcija_finish(&r.plan, host.data(), &r.result));
    return r;
}

std::string describe(int v, tc_op op, tc_dtype type, int64_t n, int threads) {
    return std::string(name_of(v)) + " " + kOps[op] + " " + kTypes[type] + " n=" + std::to_string(n) +
           " threads=" + std::to_string(threads);
}

// argmin/argmax: the reference's index, and the value there (a NaN, or the same number with the
// same zero sign).
void expect_arg(const Outcome &r, const Input &in, const Reference &ref, const std::string &what) {
    EXPECT_EQ(r.result.index, ref.index) << what;
    if (ref.index < 0 || r.result.index != ref.index) return;
    const double want = in.a[ref.index], got = r.result.value;
    if (std::isnan(want)) EXPECT_TRUE(std::isnan(got)) << what << ": the value at the index, got " << got;
    else EXPECT_TRUE(got == want && std::signbit(got) == std::signbit(want)) << what << ": the value at the index, got " << got << " want " << want;
}

// Checks one run against the reference: exact where it must be, within the bound elsewhere.
void check(int v, const Input &in, tc_op op, int threads, int blocks = 0) {
    const Outcome r = run(v, in, op, threads, blocks);
    if (r.refused || (tc_variant_at(kProgram, v)->flags & TC_COUNTER_EXAMPLE)) return;
    const int64_t n = int64_t(in.a.size());
    const Reference ref = reference(in, op);
    const std::string what = describe(v, op, in.type, n, threads);
    const double got = r.result.value;
    switch (op) {
    case TC_MIN: case TC_MAX:
        if (std::isnan(ref.extreme)) EXPECT_TRUE(std::isnan(got)) << what;
        else EXPECT_EQ(got, ref.extreme) << what;
        return;
    case TC_ARGMIN: case TC_ARGMAX:
        expect_arg(r, in, ref, what);
        return;
    default: break;
    }
    if (in.type == TC_INT32) {
        EXPECT_EQ(r.result.exact, ref.exact) << what;
        return;
    }
    const double tol = tc_redukcija_tolerance(&r.plan, ref.sum_abs) + 0x1p-60 * ref.sum_abs;
    const double sum = double(ref.sum);
    if (op == TC_MEAN) EXPECT_LE(std::fabs(got * double(n) - sum), tol + 0x1p-50 * std::fabs(sum)) << what;
    else if (op == TC_NORM) EXPECT_LE(std::fabs(got * got - sum), tol + 0x1p-50 * sum) << what;
    else EXPECT_LE(std::fabs(got - sum), tol) << what << " got " << got << " want " << sum << " tolerance " << tol;
}

std::vector<int64_t> reduction_sizes() { return up_to_max_n({1, 2, 31, 33, 1023, 1025, 65537, (1 << 20) + 3}); }

}  // namespace

TEST(Redukcija, EveryVariantOperatorTypeAndSize) {
    REQUIRE_GPU();
    uint64_t seed = 1;
    for (int v = 0; v < tc_variant_count(kProgram); ++v)
        for (int type = 0; type < 3; ++type)
            for (int op = 0; op < 8; ++op)
                for (int64_t n : reduction_sizes())
                    for (int threads : {0, 32, 256, 512, 1024}) {
                        // every block size at the small sizes; 0 (the variant's own choice) and
                        // 512 only where the variant chooses its block (best: 256 or 512)
                        const bool own = tc_variant_at(kProgram, v)->flags & TC_OWN_GRID;
                        if ((threads == 0 || threads == 512) && !own) continue;
                        if (threads != 256 && threads != 0 && n > 70000) continue;
                        check(v, random_input(tc_dtype(type), n, ++seed), tc_op(op), threads);
                    }
}

TEST(Redukcija, EveryVariantExactOnSmallIntegers) {
    REQUIRE_GPU();
    // floats in {-2..2}: every partial sum of fewer than 2^21 of them is an integer below 2^24,
    // exact in any order, so a dropped or doubled element cannot hide in the bound
    uint64_t seed = 900;
    for (int v = 0; v < tc_variant_count(kProgram); ++v)
        for (int type : {TC_FLOAT32, TC_FLOAT64})
            for (tc_op op : {TC_SUM, TC_DOT, TC_NORM})
                for (int64_t n : up_to_max_n({1, 33, 1025, 65537, 1 << 20})) {
                    const Input in = random_input(tc_dtype(type), n, ++seed, true);
                    // (128 threads; the variants that choose their own block: their choice)
                    const int threads = (tc_variant_at(kProgram, v)->flags & TC_OWN_GRID) ? 0 : 128;
                    const Outcome r = run(v, in, op, threads);
                    if (r.refused || (tc_variant_at(kProgram, v)->flags & TC_COUNTER_EXAMPLE)) continue;
                    const double want = double(reference(in, op).sum);
                    // (norm: the root of an integer, squared back and rounded to the integer)
                    EXPECT_EQ(op == TC_NORM ? std::nearbyint(r.result.value * r.result.value) : r.result.value, want)
                        << describe(v, op, tc_dtype(type), n, threads);
                }
}

TEST(Redukcija, NanInfAndSignedZeros) {
    REQUIRE_GPU();
    const int64_t n = 5000;
    for (int v = 0; v < tc_variant_count(kProgram); ++v) {
        if (tc_variant_at(kProgram, v)->flags & TC_COUNTER_EXAMPLE) continue;
        for (int type : {TC_FLOAT32, TC_FLOAT64})
            for (int64_t at : {int64_t(0), n / 2, n - 1}) {
                Input in = random_input(tc_dtype(type), n, uint64_t(at + 7));
                in.a[at] = NAN;
                if (at != 0) in.a[at / 2] = NAN;  // two NaNs: argmin/argmax take the first
                for (tc_op op : {TC_SUM, TC_MIN, TC_MAX, TC_ARGMIN, TC_ARGMAX}) {
                    const Outcome r = run(v, in, op, 256);
                    if (r.refused) continue;
                    const std::string what = describe(v, op, tc_dtype(type), n, 256) + " NaN at " + std::to_string(at);
                    if (op == TC_ARGMIN || op == TC_ARGMAX) EXPECT_EQ(r.result.index, at == 0 ? 0 : at / 2) << what;
                    EXPECT_TRUE(std::isnan(r.result.value)) << what << ": the value";
                }
            }
        for (int type : {TC_FLOAT32, TC_FLOAT64}) {
            const std::string what = std::string(name_of(v)) + " " + kTypes[type];
            Input inf{tc_dtype(type), std::vector<double>(1025, INFINITY), std::vector<double>(1025, 1.0)};
            Outcome r = run(v, inf, TC_MIN, 256);
            if (!r.refused) EXPECT_EQ(r.result.value, INFINITY) << what << ": min of all +Inf";
            Input zeros{tc_dtype(type), std::vector<double>(1025, -0.0), std::vector<double>(1025, 1.0)};
            r = run(v, zeros, TC_SUM, 256);
            if (!r.refused) EXPECT_TRUE(r.result.value == 0 && std::signbit(r.result.value)) << what << ": sum of -0.0";
            // ties: the lowest index; -0.0 equals +0.0
            Input ties{tc_dtype(type), std::vector<double>(3000, 5.0), {}};
            ties.a[700] = ties.a[2000] = -3.0;
            ties.a[100] = ties.a[2500] = 9.0;
            for (tc_op op : {TC_ARGMIN, TC_ARGMAX}) {
                r = run(v, ties, op, 256);
                if (!r.refused) EXPECT_EQ(r.result.index, op == TC_ARGMIN ? 700 : 100) << what << " ties";
            }
            ties.a.assign(3000, 0.0);
            ties.a[10] = -0.0;
            r = run(v, ties, TC_ARGMIN, 256);
            if (!r.refused) expect_arg(r, ties, reference(ties, TC_ARGMIN), what + " -0.0 equals +0.0");
            ties.a[0] = -0.0;
            ties.a[10] = 0.0;
            r = run(v, ties, TC_ARGMAX, 256);
            if (!r.refused) expect_arg(r, ties, reference(ties, TC_ARGMAX), what + " -0.0 at index 0");
        }
    }
}

// Many ties: values in {-2..2}, each float zero of either sign. argmin/argmax take the first of the
// best values wherever the ties fall (inside one 16-byte vector, across a thread's vectors and
// rounds, across blocks); min and max are exact, and of zeros -0.0 is the smaller one.
TEST(Redukcija, ManyTiesAndSignedZeros) {
    REQUIRE_GPU();
    uint64_t seed = 4000;
    for (int v = 0; v < tc_variant_count(kProgram); ++v) {
        if (tc_variant_at(kProgram, v)->flags & TC_COUNTER_EXAMPLE) continue;
        const int threads = (tc_variant_at(kProgram, v)->flags & TC_OWN_GRID) ? 0 : 256;
        for (int type = 0; type < 3; ++type)
            for (int64_t n : up_to_max_n({1, 2, 31, 33, 1025, 65537, (1 << 20) + 3})) {
                std::mt19937_64 rng(++seed);
                Input in{tc_dtype(type), std::vector<double>(n), {}};
                bool negative_zero = false, positive_zero = false;
                for (auto &x : in.a) {
                    x = double(int(rng() % 5) - 2);
                    if (x == 0 && type != TC_INT32 && (rng() & 1)) x = -0.0;
                    (std::signbit(x) ? negative_zero : positive_zero) |= x == 0;
                }
                in.b = in.a;
                for (tc_op op : {TC_MIN, TC_MAX, TC_ARGMIN, TC_ARGMAX}) {
                    const Outcome r = run(v, in, op, threads);
                    if (r.refused) continue;
                    const Reference ref = reference(in, op);
                    const std::string what = describe(v, op, tc_dtype(type), n, threads);
                    if (op == TC_ARGMIN || op == TC_ARGMAX) {
                        expect_arg(r, in, ref, what);
                        continue;
                    }
                    EXPECT_EQ(r.result.value, ref.extreme) << what;
                    if (r.result.value == 0 && type != TC_INT32)
                        EXPECT_EQ(std::signbit(r.result.value), op == TC_MIN ? negative_zero : !positive_zero) << what << ": the zero's sign";
                }
            }
    }
}

// Magnitudes whose squares overflow (1e20) or underflow (1e-41, a denormal) float32: best and
// cub accumulate float32 norms and dots in float64 and must get them right.
TEST(Redukcija, NormAndDotOfExtremeMagnitudes) {
    REQUIRE_GPU();
    for (int v : {find("best"), find("cub")})
        for (double scale : {1e20, 1e-41})
            for (tc_op op : {TC_NORM, TC_DOT})
                for (int64_t n : {int64_t(1), int64_t(1000), int64_t(1) << 20}) {
                    Input in = random_input(TC_FLOAT32, n, uint64_t(n + op));
                    for (auto *vec : {&in.a, &in.b})
                        for (auto &x : *vec) x = double(float(x * scale));
                    const Outcome r = run(v, in, op, 256);
                    const Reference ref = reference(in, op);
                    const double want = op == TC_NORM ? std::sqrt(double(ref.sum)) : double(ref.sum);
                    const double tol = tc_redukcija_tolerance(&r.plan, ref.sum_abs) + 0x1p-50 * ref.sum_abs;
                    const std::string what = describe(v, op, TC_FLOAT32, n, 256) + " scale " + std::to_string(scale);
                    EXPECT_TRUE(std::isfinite(r.result.value) && r.result.value != 0) << what << ": " << r.result.value;
                    if (op == TC_NORM) EXPECT_LE(std::fabs(r.result.value * r.result.value - double(ref.sum)), tol) << what;
                    else EXPECT_LE(std::fabs(r.result.value - want), tol) << what;
                }
}

// best's last block waits for the other blocks' partials, one a thread: grids of 2 to 129 blocks
// (512 threads and 16 elements a thread where one round of loads covers n, as on the H100), with
// partials of one word (float32 sum, min, max; int32 min, max) and two (int32 sums in int64, the
// packed arg words).
TEST(Redukcija, BestAtGridsOfTwoTo129Blocks) {
    REQUIRE_GPU();
    const int best = find("best");
    for (int64_t blocks : {2, 32, 33, 100, 128, 129})
        for (int type : {TC_FLOAT32, TC_INT32}) {
            const int64_t n = (blocks - 1) * 512 * 16 + 5;
            const Input in = random_input(tc_dtype(type), n, uint64_t(blocks + 31 * type));
            for (tc_op op : {TC_SUM, TC_MIN, TC_MAX, TC_ARGMIN, TC_ARGMAX}) check(best, in, op, 0);
        }
}

// Subnormal float32 inputs: every variant's sum within its bound but atomic's. The hardware's
// float32 atomic add flushes subnormal operands to zero (PTX atom.add.f32), so 65,537 x 1e-41
// (6.6e-37) comes out 0; its bound is rounding's alone (nothing is allowed for flushing), far
// below the sum, so the 0 fails its check, as the row does.
TEST(Redukcija, SubnormalSums) {
    REQUIRE_GPU();
    const int64_t n = 4099;
    Input in{TC_FLOAT32, std::vector<double>(n), std::vector<double>(n, 1.0)};
    std::mt19937_64 rng(77);
    for (double &x : in.a) x = double(float(std::ldexp(double(rng() % 1000 + 1), -140)));  // 2^-140 .. 1000 x 2^-140
    const int atomic = find("atomic");
    for (int v = 0; v < tc_variant_count(kProgram); ++v)
        for (tc_op op : {TC_SUM, TC_MEAN})
            if (v != atomic) check(v, in, op, 256);
    const Input tiny{TC_FLOAT32, std::vector<double>(65537, double(1e-41f)), std::vector<double>(65537, 1.0)};
    const Reference ref = reference(tiny, TC_SUM);
    const Outcome r = run(atomic, tiny, TC_SUM, 256);
    ASSERT_FALSE(r.refused);
    const double tol = tc_redukcija_tolerance(&r.plan, ref.sum_abs);
    EXPECT_EQ(r.result.value, 0.0) << "atomic's float32 sum of 65537 x 1e-41: the hardware no longer flushes? "
                                      "Then atomic's domain and docs/redukcija.md must say otherwise";
    EXPECT_LT(tol, double(ref.sum) / 100) << "atomic's bound must refuse a flushed sum";
    EXPECT_GT(std::fabs(r.result.value - double(ref.sum)), tol) << "atomic's 0 within its bound";
    tc_redukcija_plan plan{};
    const tc_device d = fake_device();
    const tc_redukcija_request req{{atomic, n, 256, 0}, TC_SUM, TC_FLOAT32};
    ASSERT_EQ(TC_OK, tc_redukcija_make_plan(&req, &d, &plan));
    EXPECT_EQ(tc_redukcija_tolerance(&plan, 0), 0) << "no allowance for flushed subnormals";
}

// cg at the sizes of its done-when, every operator and type it covers, on the grid -blocks 0 takes
// (a resident wave, fewer where n needs fewer), on one block, on 7 and on the most it takes: all
// resident at once (the occupancy query). One block more is refused, the most left in the plan.
TEST(Redukcija, CgEveryOperatorAndTypeInOneCooperativeLaunch) {
    REQUIRE_GPU();
    const int cg = find("cg");
    const tc_device d = device();
    const std::vector<int64_t> sizes = up_to_max_n({1, 33, (1 << 20) + 3, (1 << 24) + 1});
    int checked = 0;
    uint64_t seed = 4242;
    for (int type = 0; type < 3; ++type)
        for (tc_op op : {TC_SUM, TC_MIN, TC_MAX, TC_MEAN, TC_NORM, TC_DOT}) {
            tc_redukcija_plan p;
            const tc_redukcija_request large{{cg, int64_t(1) << 30, 256, 0}, op, tc_dtype(type)};
            ASSERT_EQ(TC_OK, tc_redukcija_make_plan(&large, &d, &p));
            const int most = p.launch.blocks;  // a resident wave
            const tc_redukcija_request over{{cg, int64_t(1) << 30, 256, most + 1}, op, tc_dtype(type)};
            EXPECT_EQ(TC_OUTSIDE_DOMAIN, tc_redukcija_make_plan(&over, &d, &p)) << most + 1 << " blocks";
            EXPECT_EQ(p.launch.blocks, most) << "the most blocks, left in the refused plan";
            for (int64_t n : sizes) {
                const Input in = random_input(tc_dtype(type), n, ++seed);
                for (int blocks : {0, 1, 7, most}) {
                    const tc_redukcija_request req{{cg, n, 256, blocks}, op, tc_dtype(type)};
                    ASSERT_EQ(TC_OK, tc_redukcija_make_plan(&req, &d, &p)) << describe(cg, op, tc_dtype(type), n, 256) << " blocks " << blocks;
                    check(cg, in, op, 256, blocks);
                    ++checked;
                }
            }
        }
    EXPECT_EQ(checked, 18 * 4 * int(sizes.size()));
    for (tc_op op : {TC_ARGMIN, TC_ARGMAX}) {
        tc_redukcija_plan p;
        const tc_redukcija_request req{{cg, 1000, 256, 0}, op, TC_FLOAT32};
        EXPECT_EQ(TC_OUTSIDE_DOMAIN, tc_redukcija_make_plan(&req, &d, &p)) << kOps[op];
    }
}

TEST(Redukcija, Int32SumsPastTwoToThe31) {
    REQUIRE_GPU();
    const int64_t n = 4099;
    Input in{TC_INT32, std::vector<double>(n, 2147483000.0), std::vector<double>(n, -2147483000.0)};
    in.a[7] = -2147483648.0;
    for (int v = 0; v < tc_variant_count(kProgram); ++v)
        for (tc_op op : {TC_SUM, TC_DOT, TC_MIN, TC_MAX, TC_MEAN}) check(v, in, op, 256);
}

// best's scratch is reused run after run: the last block must take this run's partials only. Two
// inputs whose int32 sums differ (all 1, all 3), alternated over one scratch: every result is its
// own input's exactly (a partial of the run before would show as a mix of the two).
TEST(Redukcija, BestTakesOnlyThisRunsPartials) {
    REQUIRE_GPU();
    const int best = find("best");
    const tc_device d = device();
    for (int64_t n : up_to_max_n({(int64_t(1) << 22) + 5, 100003})) {
        tc_redukcija_plan p;
        const tc_redukcija_request req{{best, n, 0, 0}, TC_SUM, TC_INT32};
        ASSERT_EQ(TC_OK, tc_redukcija_make_plan(&req, &d, &p));
        ASSERT_GT(p.launch.blocks, 1);
        DeviceBuffer<int32_t> ones(n), threes(n);
        ones.upload(std::vector<int32_t>(size_t(n), 1));
        threes.upload(std::vector<int32_t>(size_t(n), 3));
        DeviceBuffer<unsigned char> out(TC_REDUKCIJA_OUT_BYTES), scratch(p.launch.scratch_bytes);
        for (int rep = 0; rep < 40; ++rep) {
            const bool three = rep % 2 == 1;
            ASSERT_EQ(TC_OK, tc_redukcija_run(&p, three ? threes.ptr : ones.ptr, nullptr, out.ptr, scratch.ptr, nullptr));
            const auto bytes = out.download(TC_REDUKCIJA_OUT_BYTES);
            tc_redukcija_result r;
            ASSERT_EQ(TC_OK, tc_redukcija_finish(&p, bytes.data(), &r));
            ASSERT_EQ(r.exact, three ? 3 * n : n) << "n " << n << " run " << rep;
        }
    }
}

// best's header counts runs in steps of tile_state.cuh's kEpochStep (the epoch above a status's two bits)
constexpr uint32_t kEpochStep = 4;
TEST(Redukcija, BestIsBitIdenticalAndMovesTheEpochOnEachRun) {
    REQUIRE_GPU();
    const int best = find("best");
    for (int64_t n : up_to_max_n({int64_t(1) << 26, 100003})) {
        const Input in = random_input(TC_FLOAT32, n, 77);
        const auto a = bytes_of(in.a, TC_FLOAT32);
        const tc_device d = device();
        for (tc_op op : {TC_SUM, TC_NORM, TC_ARGMAX}) {
            tc_redukcija_plan p;
            const tc_redukcija_request req{{best, n, 0, 0}, op, TC_FLOAT32};
            ASSERT_EQ(TC_OK, tc_redukcija_make_plan(&req, &d, &p));
            DeviceBuffer<unsigned char> da(a.size()), out(16), scratch(p.launch.scratch_bytes);
            da.upload(a);
            std::vector<unsigned char> first;
            for (int rep = 0; rep < 20; ++rep) {
                ASSERT_EQ(TC_OK, tc_redukcija_run(&p, da.ptr, da.ptr, out.ptr, scratch.ptr, nullptr));
                const auto got = out.download(16);
                if (rep == 0) first = got;
                ASSERT_EQ(std::memcmp(got.data(), first.data(), op == TC_ARGMAX ? 16 : 8), 0) << kOps[op] << " rep " << rep;
            }
            const std::vector<unsigned char> header = scratch.download(4);  // each run moves the epoch on by one step
            EXPECT_EQ(uint32_t(header[0]) | uint32_t(header[1]) << 8 | uint32_t(header[2]) << 16 | uint32_t(header[3]) << 24, 20u * kEpochStep)
                << kOps[op] << ": the epoch after 20 runs";
        }
    }
}

TEST(Redukcija, DomainsWithoutGPU) {
    const tc_device d = fake_device();
    tc_redukcija_plan p;
    const auto plan = [&](const char *v, int64_t n, tc_op op, int threads = 256, int blocks = 0) {
        const tc_redukcija_request r{{find(v), n, threads, blocks}, op, TC_FLOAT32};
        return tc_redukcija_make_plan(&r, &d, &p);
    };
    EXPECT_EQ(TC_OK, plan("b1", 256, TC_SUM));
    EXPECT_EQ(TC_OUTSIDE_DOMAIN, plan("b1", 257, TC_SUM));
    EXPECT_EQ(TC_BAD_ARGUMENT, plan("r0", 1000, TC_SUM, 96));  // a power of two
    EXPECT_EQ(TC_OK, plan("r7", 1000, TC_SUM, 96));
    EXPECT_EQ(TC_OUTSIDE_DOMAIN, plan("r3", 1000, TC_ARGMIN));
    EXPECT_EQ(TC_OUTSIDE_DOMAIN, plan("atomic", (int64_t(1) << 24) + 1, TC_SUM));
    EXPECT_EQ(TC_OUTSIDE_DOMAIN, plan("r2", 100000, TC_SUM, 256, 5));  // its grid must cover n
    EXPECT_EQ(TC_OK, plan("cg", 100000, TC_SUM));
    {  // a GPU without cooperative launch: cg is outside its domain there, from the device's figures
        tc_device old = d;
        old.no_cooperative_launch = 1;
        const tc_redukcija_request r{{find("cg"), 100000, 256, 0}, TC_SUM, TC_FLOAT32};
        EXPECT_EQ(TC_OUTSIDE_DOMAIN, tc_redukcija_make_plan(&r, &old, &p));
    }
    ASSERT_EQ(TC_OK, plan("r2", 1 << 20, TC_SUM, 256));
    EXPECT_EQ(p.launch.blocks, 4096);
    EXPECT_EQ(p.launch.launches, 3);  // 2^20 -> 4096 -> 16 -> 1
    ASSERT_EQ(TC_OK, plan("bm", 1 << 20, TC_MAX, 256));
    EXPECT_EQ(p.launch.launches, 2);  // the lecture's two kernels
    EXPECT_EQ(tc_redukcija_tolerance(&p, 1.0), 0.0);  // max is exact
    EXPECT_EQ(TC_OUTSIDE_DOMAIN, plan("best", 1 << 20, TC_SUM, 128));  // its blocks are 256 or 512 threads
    ASSERT_EQ(TC_OK, plan("best", 1 << 20, TC_SUM, 512));
    EXPECT_EQ(p.launch.threads, 512);
    ASSERT_EQ(TC_OK, plan("best", 1 << 20, TC_SUM, 0));  // one block an SM covers 2^20 in one round of loads
    EXPECT_EQ(p.launch.threads, 512);
    ASSERT_EQ(TC_OK, plan("best", 1 << 28, TC_SUM, 0));  // bandwidth sizes: 256
    EXPECT_EQ(p.launch.threads, 256);
    ASSERT_EQ(TC_OK, plan("best", 4096, TC_SUM, 0));  // one block of 256 covers 4096 floats in one round
    EXPECT_EQ(p.launch.threads, 256);
    ASSERT_EQ(TC_OK, plan("best", 4097, TC_SUM, 0));
    EXPECT_EQ(p.launch.threads, 512);
    ASSERT_EQ(TC_OK, plan("best", 1 << 20, TC_SUM));
    EXPECT_GT(tc_redukcija_tolerance(&p, 1.0), 0.0);
    EXPECT_LT(tc_redukcija_tolerance(&p, 1.0), 1e-4);
    // the race is checked against a correct tree's bound (log2 n + 1 levels), not the loose
    // sequential one in which lost updates could hide; atomic against the sequential one
    ASSERT_EQ(TC_OK, plan("race", 1 << 20, TC_SUM));
    EXPECT_EQ(p.depth, 21);
    ASSERT_EQ(TC_OK, plan("atomic", 1 << 20, TC_SUM));
    EXPECT_EQ(p.depth, 1 << 20);
    // cg: one cooperative launch of at most the blocks resident at once (here the fake H100's 132
    // SMs times what an SM holds of 256 threads: 8, fewer where the device's occupancy query says so)
    ASSERT_EQ(TC_OK, plan("cg", (int64_t(1) << 24) + 1, TC_SUM));
    const int most = p.launch.blocks;
    EXPECT_TRUE(most >= 132 && most <= 132 * 8 && most % 132 == 0) << most;
    EXPECT_EQ(p.launch.launches, 1);
    EXPECT_GE(p.launch.scratch_bytes, size_t(most) * 4);
    EXPECT_EQ(p.depth, tc::ceil_div((int64_t(1) << 24) + 1, int64_t(most) * 256) + 8 + tc::ceil_div(most, 256) + 8);
    EXPECT_EQ(TC_OK, plan("cg", (int64_t(1) << 24) + 1, TC_SUM, 256, most));
    EXPECT_EQ(TC_OUTSIDE_DOMAIN, plan("cg", (int64_t(1) << 24) + 1, TC_SUM, 256, most + 1));
    EXPECT_EQ(p.launch.blocks, most);  // the most it takes, for the message
    ASSERT_EQ(TC_OK, plan("cg", 1000, TC_MAX, 96));  // threads a multiple of 32, as r7
    EXPECT_EQ(p.launch.blocks, 11);
    EXPECT_EQ(TC_OUTSIDE_DOMAIN, plan("cg", 1000, TC_ARGMAX));
    EXPECT_EQ(TC_BAD_ARGUMENT, tc_redukcija_make_plan(nullptr, &d, &p));
}

// Several GPUs' combine, on the host: a left fold in GPU order with best's operator in its
// accumulator's format; argmin/argmax indices made global from each slice's first element, ties
// to the lower index (the earlier GPU), NaN first; a float32 sum rounds as the fold's order says.
TEST(Redukcija, CombineWithoutGPU) {
    const tc_device d = fake_device();
    const auto plan = [&](tc_op op, tc_dtype type) {
        tc_redukcija_plan p;
        const tc_redukcija_request r{{find("best"), 1000, 0, 0}, op, type};
        EXPECT_EQ(TC_OK, tc_redukcija_make_plan(&r, &d, &p));
        return p;
    };
    unsigned char parts[4][TC_REDUKCIJA_OUT_BYTES], out[TC_REDUKCIJA_OUT_BYTES];
    const int64_t first[4] = {0, 250, 500, 750};
    const auto put_float = [&](int i, float v, int64_t index) {
        std::memset(parts[i], 0x5a, TC_REDUKCIJA_OUT_BYTES);  // padding: never read
        std::memcpy(parts[i], &v, 4);
        std::memcpy(parts[i] + 8, &index, 8);
    };
    tc_redukcija_result r;
    // a float32 sum in the fold's order: ((1 + 2^-24) + 2^-24) + 2^-23 = 1 + 2^-23 (each 2^-24 is
    // half an ulp of 1, and rounds away), where the other order gives 1 + 2^-22
    tc_redukcija_plan p = plan(TC_SUM, TC_FLOAT32);
    put_float(0, 1.0f, 0), put_float(1, 0x1p-24f, 0), put_float(2, 0x1p-24f, 0), put_float(3, 0x1p-23f, 0);
    ASSERT_EQ(TC_OK, tc_redukcija_combine(&p, parts, first, 4, out));
    ASSERT_EQ(TC_OK, tc_redukcija_finish(&p, out, &r));
    EXPECT_EQ(r.value, 1.0 + 0x1p-23);
    // argmin: the smallest value, the earlier GPU on a tie, its index made global
    p = plan(TC_ARGMIN, TC_FLOAT32);
    put_float(0, 3.0f, 7), put_float(1, -2.0f, 5), put_float(2, -2.0f, 1), put_float(3, 4.0f, 0);
    ASSERT_EQ(TC_OK, tc_redukcija_combine(&p, parts, first, 4, out));
    ASSERT_EQ(TC_OK, tc_redukcija_finish(&p, out, &r));
    EXPECT_EQ(r.value, -2.0);
    EXPECT_EQ(r.index, 255);
    put_float(3, NAN, 9);  // NaN wins argmin and argmax
    ASSERT_EQ(TC_OK, tc_redukcija_combine(&p, parts, first, 4, out));
    ASSERT_EQ(TC_OK, tc_redukcija_finish(&p, out, &r));
    EXPECT_TRUE(std::isnan(r.value));
    EXPECT_EQ(r.index, 759);
    // int32 sums in int64, wrapping past 2^63
    p = plan(TC_SUM, TC_INT32);
    const int64_t big = INT64_MAX, one = 1;
    std::memcpy(parts[0], &big, 8), std::memcpy(parts[1], &one, 8);
    ASSERT_EQ(TC_OK, tc_redukcija_combine(&p, parts, first, 2, out));
    ASSERT_EQ(TC_OK, tc_redukcija_finish(&p, out, &r));
    EXPECT_EQ(r.exact, INT64_MIN);
    // max of -0 and +0: +0, as one GPU's best
    p = plan(TC_MAX, TC_FLOAT32);
    put_float(0, -0.0f, 0), put_float(1, 0.0f, 0);
    ASSERT_EQ(TC_OK, tc_redukcija_combine(&p, parts, first, 2, out));
    ASSERT_EQ(TC_OK, tc_redukcija_finish(&p, out, &r));
    EXPECT_FALSE(std::signbit(r.value));
    EXPECT_EQ(TC_BAD_ARGUMENT, tc_redukcija_combine(&p, parts, first, 0, out));
    EXPECT_EQ(TC_BAD_ARGUMENT, tc_redukcija_combine(&p, nullptr, first, 2, out));
}

// Several GPUs' combine on the device (tc_redukcija_combine_device): the host's fold bit for bit,
// every operator and type best takes, 1 to 8 parts, from values where the fold's order shows (half
// an ulp each way), signed zeros, infinities, NaN, ties between GPUs and int64 wrap-around. A NaN
// compares as NaN (the device's NaN has its own payload); every other byte, padding too, is equal.
TEST(Redukcija, CombineOnDeviceIsTheHostsFold) {
    REQUIRE_GPU();
    const tc_device d = fake_device();
    constexpr int kMost = 8, kBytes = TC_REDUKCIJA_OUT_BYTES;
    DeviceBuffer<unsigned char> parts(kMost * kBytes), out(kBytes);
    DeviceBuffer<int64_t> first(kMost);
    std::vector<int64_t> firsts(kMost);
    for (int i = 0; i < kMost; ++i) firsts[i] = int64_t(i) * 1000003;
    first.upload(firsts);
    const double floats[] = {1.0, 0x1p-24, 0x1p-23, 0x1p-53, -2.0, -2.0, 0.0, -0.0, 3.5, 1e30, -1e30, INFINITY, -INFINITY, NAN};
    const int64_t ints[] = {INT64_MAX, 1, -1, 0, INT64_MIN, 7, int64_t(INT32_MAX), int64_t(INT32_MIN), -7};
    std::mt19937_64 rng(43);
    for (int op = 0; op < 8; ++op)
        for (int type = 0; type < 3; ++type) {
            tc_redukcija_plan p;
            const tc_redukcija_request req{{find("best"), 1000, 0, 0}, tc_op(op), tc_dtype(type)};
            ASSERT_EQ(TC_OK, tc_redukcija_make_plan(&req, &d, &p));
            const bool arg = p.op == TC_ARGMIN || p.op == TC_ARGMAX;
            const tc_dtype value_type = arg ? p.type : p.accumulator;
            for (int count = 1; count <= kMost; ++count)
                for (int trial = 0; trial < 20; ++trial) {
                    std::vector<unsigned char> host(kMost * kBytes, 0x5a);  // (padding: never read)
                    for (int i = 0; i < count; ++i) {
                        unsigned char *part = &host[i * kBytes];
                        const double f = floats[rng() % std::size(floats)];
                        const int64_t k = ints[rng() % std::size(ints)];
                        switch (value_type) {
                        case TC_FLOAT32: { const float v = float(f); std::memcpy(part, &v, 4); break; }
                        case TC_FLOAT64: std::memcpy(part, &f, 8); break;
                        case TC_INT64: std::memcpy(part, &k, 8); break;
                        default: { const int32_t v = int32_t(k); std::memcpy(part, &v, 4); break; }
                        }
                        const int64_t index = int64_t(rng() % 3);  // (ties between GPUs' values and indices)
                        if (arg) std::memcpy(part + 8, &index, 8);
                    }
                    unsigned char want[kBytes], got[kBytes];
                    ASSERT_EQ(TC_OK, tc_redukcija_combine(&p, host.data(), firsts.data(), count, want));
                    CUDA_OK(cudaMemcpy(parts.ptr, host.data(), host.size(), cudaMemcpyHostToDevice));
                    CUDA_OK(cudaMemset(out.ptr, 0xa5, kBytes));
                    ASSERT_EQ(TC_OK, tc_redukcija_combine_device(&p, parts.ptr, arg ? first.ptr : nullptr, count, out.ptr, nullptr));
                    CUDA_OK(cudaMemcpy(got, out.ptr, kBytes, cudaMemcpyDeviceToHost));
                    tc_redukcija_result w, g;
                    ASSERT_EQ(TC_OK, tc_redukcija_finish(&p, want, &w));
                    ASSERT_EQ(TC_OK, tc_redukcija_finish(&p, got, &g));
                    const std::string what = std::string(kOps[op]) + " " + kTypes[type] + ", " + std::to_string(count) + " parts";
                    if (std::isnan(w.value)) {
                        EXPECT_TRUE(std::isnan(g.value)) << what;
                        EXPECT_EQ(w.index, g.index) << what;
                    } else {
                        EXPECT_EQ(0, std::memcmp(want, got, kBytes)) << what << ": host " << w.value << " (index " << w.index
                                                                    << "), device " << g.value << " (index " << g.index << ")";
                    }
                }
        }
    EXPECT_EQ(TC_BAD_ARGUMENT, tc_redukcija_combine_device(nullptr, parts.ptr, nullptr, 1, out.ptr, nullptr));
    tc_redukcija_plan p;
    const tc_redukcija_request req{{find("best"), 1000, 0, 0}, TC_ARGMIN, TC_FLOAT32};
    ASSERT_EQ(TC_OK, tc_redukcija_make_plan(&req, &d, &p));
    EXPECT_EQ(TC_BAD_ARGUMENT, tc_redukcija_combine_device(&p, parts.ptr, nullptr, 2, out.ptr, nullptr));  // arg without first
}

TEST(Redukcija, LaunchesAsPlanned) {
    REQUIRE_GPU();
    const tc_device d = device();
    for (int64_t n : {int64_t(1000), int64_t(1) << 20, int64_t(3) << 22})
        for (int v = 0; v < tc_variant_count(kProgram); ++v)
            for (tc_op op : {TC_SUM, TC_NORM, TC_MIN, TC_ARGMAX})
                for (int type = 0; type < 3; ++type) {
                    tc_redukcija_plan p;
                    const tc_redukcija_request req{{v, n, 0, 0}, op, tc_dtype(type)};
                    const tc_status st = tc_redukcija_make_plan(&req, &d, &p);
                    if (st == TC_OUTSIDE_DOMAIN) continue;
                    ASSERT_EQ(TC_OK, st);
                    DeviceBuffer<unsigned char> a(8 * n), out(16), scratch(p.launch.scratch_bytes);
                    expect_launches_as_planned(kProgram, p.launch, [&](cudaStream_t s) {
                        return tc_redukcija_run(&p, a.ptr, a.ptr, out.ptr, scratch.ptr, s);
                    }, describe(v, op, tc_dtype(type), n, 0));
                }
}

// best's grid at a large n is one resident wave as the kernel's registers allow it (the blocks an
// SM holds, from the runtime; under TECAJ_EMULATE from the profile's limits), not as threads alone
// would (2048 / 256 = 8 an SM on the H100).
TEST(Redukcija, BestGridIsOneResidentWave) {
    REQUIRE_GPU();
    const tc_device d = device();
    const tc_variant *best = tc_variant_at(kProgram, find("best"));
    ASSERT_NE(best, nullptr);
    struct Case { tc_op op; const char *kernel; };
    for (Case c : {Case{TC_SUM, "reduce_best<f32,sum>"}, Case{TC_ARGMIN, "reduce_best<f32,argmin>"}}) {
        const void *f = nullptr;
        for (int k = 0; k < best->kernel_count; ++k)
            if (std::string(best->kernels[k].name) == c.kernel) f = best->kernels[k].function;
        ASSERT_NE(f, nullptr) << c.kernel;
        int per_sm = 0;  // the runtime's, or under TECAJ_EMULATE the same rules on the profile's limits
        ASSERT_EQ(cudaSuccess, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f, 256, 0));
        if (d.profile[0] != 0) per_sm = tc::resident_blocks(d, 256, f, 0);
        tc_redukcija_plan p;
        const tc_redukcija_request r{{find("best"), int64_t(1) << 28, 0, 0}, c.op, TC_FLOAT32};
        ASSERT_EQ(TC_OK, tc_redukcija_make_plan(&r, &d, &p));
        EXPECT_EQ(p.launch.blocks, d.multiprocessors * per_sm) << c.kernel << ": " << per_sm << " blocks an SM";
    }
}
