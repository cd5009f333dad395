// cuda/toolbox/primitives.cuh through small test kernels: warp_reduce (every lane), block_reduce
// (thread 0), warp_scan (inclusive and exclusive, every thread), for Sum, Min and
// Max on int32 (exact: small values, no overflow, every order gives the same answer) and float32
// (against a float64 reference within the tree's bound), at every block size 32..1024; then the
// operators' NaN and signed-zero rules; 64-bit Min (warp_min_u64); and reduce_best's two forms of
// argmin/argmax (packed words, 64-bit index pairs), which the C ABI picks by n alone.
#include "toolbox/primitives.cuh"
#include "toolbox/reduce_best.cuh"
#include "util.h"
#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>

using namespace tctest;

namespace {

enum Kind { WARP_REDUCE, BLOCK_REDUCE, WARP_SCAN, WARP_SCAN_EX };

// One block; out[t] is thread t's result, total[t] the total a scan hands every thread.
template <typename T, typename Op, int KIND>
__global__ void primitive_kernel(const T *in, T *out, T *total) {
    __shared__ tc::BlockReduceStorage<T> reduce_storage;
    const T v = in[threadIdx.x];
    T all = Op::template identity<T>();
    T r;
    if constexpr (KIND == WARP_REDUCE) r = tc::warp_reduce<T, Op>(v);
    else if constexpr (KIND == BLOCK_REDUCE) r = tc::block_reduce<T, Op>(v, reduce_storage);
    else if constexpr (KIND == WARP_SCAN) r = tc::warp_scan<T, Op, false>(v, Op(), &all);
    else r = tc::warp_scan<T, Op, true>(v, Op(), &all);
    out[threadIdx.x] = r;
    total[threadIdx.x] = all;
}

template <typename T, typename Op, int KIND>
void launch(const T *in, T *out, T *total, int threads) {
    primitive_kernel<T, Op, KIND><<<1, threads>>>(in, out, total);
}

// The float64 reference of op over xs (in order); an empty range is T's identity.
template <typename T, typename Op>
double fold(const std::vector<double> &xs, size_t from, size_t to) {
    if (from >= to) return double(Op::template identity<T>());
    double acc = xs[from];
    for (size_t i = from + 1; i < to; ++i) acc = Op()(acc, xs[i]);
    return acc;
}

template <typename T, typename Op>
void check_all_kinds(const char *op_name) {
    std::mt19937_64 rng(42);
    for (int threads = 32; threads <= 1024; threads += 32) {
        std::vector<T> in(threads);
        for (auto &x : in) {
            if constexpr (std::is_integral<T>::value) x = T(int(rng() % 2001) - 1000);
            else x = T(std::uniform_real_distribution<double>(-1.0, 1.0)(rng));
        }
        std::vector<double> xs(in.begin(), in.end());
        DeviceBuffer<T> din(threads), dout(threads), dtotal(threads);
        din.upload(in);
        for (int kind = WARP_REDUCE; kind <= WARP_SCAN_EX; ++kind) {
            dout.upload(std::vector<T>(threads, T(-77)));
            switch (kind) {
            case WARP_REDUCE: launch<T, Op, WARP_REDUCE>(din.ptr, dout.ptr, dtotal.ptr, threads); break;
            case BLOCK_REDUCE: launch<T, Op, BLOCK_REDUCE>(din.ptr, dout.ptr, dtotal.ptr, threads); break;
            case WARP_SCAN: launch<T, Op, WARP_SCAN>(din.ptr, dout.ptr, dtotal.ptr, threads); break;
            default: launch<T, Op, WARP_SCAN_EX>(din.ptr, dout.ptr, dtotal.ptr, threads); break;
            }
            ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
            const std::vector<T> out = dout.download(threads), total = dtotal.download(threads);
            // float sums: |error| <= gamma(depth) * sum |x|, depth <= log2(1024) + 1 levels of the
            // tree (or the scan's 5 + 5 steps and the prefix's addition)
            double abs_sum = 0;
            for (double x : xs) abs_sum += std::fabs(x);
            const double tol = std::is_integral<T>::value || !std::is_same<Op, tc::Sum>::value
                                   ? 0.0
                                   : 12 * 0x1p-24 * abs_sum;
            int bad = 0;
            const auto expect_near = [&](double got, double want, int t, const char *what) {
                if (std::fabs(got - want) > tol && bad++ < 3)
                    ADD_FAILURE() << op_name << " " << what << " threads=" << threads << " thread " << t << ": got "
                                  << got << ", want " << want << " (tolerance " << tol << ")";
            };
            for (int t = 0; t < threads; ++t) {
                const size_t warp0 = size_t(t / 32) * 32, warp1 = warp0 + 32;
                switch (kind) {
                case WARP_REDUCE: expect_near(out[t], fold<T, Op>(xs, warp0, warp1), t, "warp_reduce"); break;
                case BLOCK_REDUCE:
                    if (t == 0) expect_near(out[t], fold<T, Op>(xs, 0, threads), t, "block_reduce");
                    break;
                case WARP_SCAN:
                    expect_near(out[t], fold<T, Op>(xs, warp0, t + 1), t, "warp_scan inclusive");
                    expect_near(total[t], fold<T, Op>(xs, warp0, warp1), t, "warp_scan total");
                    break;
                default:
                    expect_near(out[t], fold<T, Op>(xs, warp0, t), t, "warp_scan exclusive");
                    break;
                }
            }
            EXPECT_EQ(bad, 0) << op_name << " kind " << kind << " threads " << threads;
        }
    }
}

uint32_t bits(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}

}  // namespace

TEST(Primitives, Int32Exact) {
    REQUIRE_GPU();
    check_all_kinds<int, tc::Sum>("sum<int>");
    check_all_kinds<int, tc::Min>("min<int>");
    check_all_kinds<int, tc::Max>("max<int>");
}

TEST(Primitives, Float32AgainstFloat64) {
    REQUIRE_GPU();
    check_all_kinds<float, tc::Sum>("sum<float>");
    check_all_kinds<float, tc::Min>("min<float>");
    check_all_kinds<float, tc::Max>("max<float>");
}

// The operators' rules, on the host (the same code runs on the device).
TEST(Primitives, OperatorRules) {
    const float nan = NAN, inf = INFINITY;
    EXPECT_EQ(bits(tc::Sum::identity<float>()), 0x80000000u);  // -0.0: a sum of only -0.0 stays -0.0
    EXPECT_EQ(bits(tc::Sum()(tc::Sum::identity<float>(), -0.0f)), 0x80000000u);
    EXPECT_EQ(bits(tc::Sum()(tc::Sum::identity<float>(), 0.0f)), 0u);
    EXPECT_EQ(tc::Min::identity<float>(), inf);
    EXPECT_EQ(tc::Max::identity<float>(), -inf);
    EXPECT_EQ(tc::Min::identity<int>(), 2147483647);
    EXPECT_EQ(tc::Max::identity<int>(), -2147483647 - 1);
    for (float x : {1.0f, -inf, inf, 0.0f}) {  // NaN propagates from either side
        EXPECT_TRUE(std::isnan(tc::Min()(nan, x)));
        EXPECT_TRUE(std::isnan(tc::Min()(x, nan)));
        EXPECT_TRUE(std::isnan(tc::Max()(nan, x)));
        EXPECT_TRUE(std::isnan(tc::Max()(x, nan)));
    }
    // -0.0 is the smaller zero in either order
    EXPECT_EQ(bits(tc::Min()(0.0f, -0.0f)), 0x80000000u);
    EXPECT_EQ(bits(tc::Min()(-0.0f, 0.0f)), 0x80000000u);
    EXPECT_EQ(bits(tc::Max()(0.0f, -0.0f)), 0u);
    EXPECT_EQ(bits(tc::Max()(-0.0f, 0.0f)), 0u);
    EXPECT_EQ(tc::Min()(inf, inf), inf);  // min of all +Inf is +Inf (not FLT_MAX)
}

// Special and ordinary floats, for the operators' rules on every pair: two NaN payloads, +-Inf,
// +-0, subnormals, the largest magnitudes, equal values.
const std::vector<float> kSpecialFloats = {NAN, std::nanf("7"), -INFINITY, INFINITY, -0.0f, 0.0f, 1e-45f, -1e-45f,
                                           1.0f, -1.0f, 3.5f, FLT_MAX, -FLT_MAX};

// Min, Max and the arg operators' order are selects (no branches): over every pair of
// kSpecialFloats each returns the bits the rules give, written out here as a chain of cases (an
// independent statement of the rules).
TEST(Primitives, OperatorsAsSelectsKeepTheRules) {
    const std::vector<float> &v = kSpecialFloats;
    const auto min_rule = [](float a, float b) {
        if (a != a) return a;
        if (b != b) return b;
        if (b < a) return b;
        if (a < b) return a;
        return std::signbit(b) ? b : a;
    };
    const auto max_rule = [](float a, float b) {
        if (a != a) return a;
        if (b != b) return b;
        if (b > a) return b;
        if (a > b) return a;
        return std::signbit(a) ? b : a;
    };
    const auto before_rule = [](bool less, const tc::KeyValue<float> &a, const tc::KeyValue<float> &b) {
        const bool na = a.value != a.value, nb = b.value != b.value;
        if (na || nb) return na && (!nb || a.index < b.index);
        if (less ? a.value < b.value : a.value > b.value) return true;
        if (less ? b.value < a.value : b.value > a.value) return false;
        return a.index < b.index;
    };
    for (float a : v)
        for (float b : v) {
            EXPECT_EQ(bits(tc::Min()(a, b)), bits(min_rule(a, b))) << a << " " << b;
            EXPECT_EQ(bits(tc::Max()(a, b)), bits(max_rule(a, b))) << a << " " << b;
            for (int64_t i : {0, 5})
                for (int64_t j : {0, 5}) {
                    const tc::KeyValue<float> x{a, i}, y{b, j};
                    EXPECT_EQ(tc::arg_before<true>(x, y), before_rule(true, x, y)) << a << " " << b << " " << i << " " << j;
                    EXPECT_EQ(tc::arg_before<false>(x, y), before_rule(false, x, y)) << a << " " << b << " " << i << " " << j;
                }
        }
    for (int a : {-7, 0, 3, INT_MIN, INT_MAX})
        for (int b : {-7, 0, 3, INT_MIN, INT_MAX}) {
            EXPECT_EQ(tc::Min()(a, b), std::min(a, b));
            EXPECT_EQ(tc::Max()(a, b), std::max(a, b));
        }
}

__global__ void extreme_pairs(const float *a, const float *b, float *min, float *max, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) min[i] = tc::Min()(a[i], b[i]), max[i] = tc::Max()(a[i], b[i]);
}

// The same pairs through the device's Min and Max (on sm_80+ float32 takes PTX min.NaN/max.NaN,
// not the selects): the rules' bits, except which NaN comes back (any NaN).
TEST(Primitives, DeviceMinAndMaxKeepTheRules) {
    REQUIRE_GPU();
    std::vector<float> a, b;
    for (float x : kSpecialFloats)
        for (float y : kSpecialFloats) a.push_back(x), b.push_back(y);
    const int n = int(a.size());
    DeviceBuffer<float> da(n), db(n), dmin(n), dmax(n);
    da.upload(a);
    db.upload(b);
    dmin.upload(std::vector<float>(n, 42.0f));  // poison: no pair's min or max
    dmax.upload(std::vector<float>(n, 42.0f));
    extreme_pairs<<<(n + 127) / 128, 128>>>(da.ptr, db.ptr, dmin.ptr, dmax.ptr, n);
    ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
    const auto got_min = dmin.download(n), got_max = dmax.download(n);
    for (int i = 0; i < n; ++i) {
        const float want_min = tc::Min()(a[i], b[i]), want_max = tc::Max()(a[i], b[i]);  // the host's selects
        if (std::isnan(want_min)) EXPECT_TRUE(std::isnan(got_min[i])) << "min " << a[i] << " " << b[i];
        else EXPECT_EQ(bits(got_min[i]), bits(want_min)) << "min " << a[i] << " " << b[i];
        if (std::isnan(want_max)) EXPECT_TRUE(std::isnan(got_max[i])) << "max " << a[i] << " " << b[i];
        else EXPECT_EQ(bits(got_max[i]), bits(want_max)) << "max " << a[i] << " " << b[i];
    }
}

TEST(Primitives, NanAndSignedZerosThroughABlock) {
    REQUIRE_GPU();
    const int threads = 256;
    DeviceBuffer<float> din(threads), dout(threads), dtotal(threads);
    // all -0.0: the sum is -0.0; with one +0.0 the min is still -0.0 and the max +0.0
    std::vector<float> in(threads, -0.0f);
    din.upload(in);
    launch<float, tc::Sum, BLOCK_REDUCE>(din.ptr, dout.ptr, dtotal.ptr, threads);
    ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
    EXPECT_EQ(bits(dout.download(1)[0]), 0x80000000u);
    in[77] = 0.0f;
    din.upload(in);
    launch<float, tc::Min, BLOCK_REDUCE>(din.ptr, dout.ptr, dtotal.ptr, threads);
    ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
    EXPECT_EQ(bits(dout.download(1)[0]), 0x80000000u);
    launch<float, tc::Max, BLOCK_REDUCE>(din.ptr, dout.ptr, dtotal.ptr, threads);
    ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
    EXPECT_EQ(bits(dout.download(1)[0]), 0u);
    // a NaN anywhere: min, max and sum are NaN; the inclusive scan is NaN from its position to its warp's end
    for (int at : {0, 100, threads - 1}) {
        auto x = random_floats(threads, at);
        x[at] = NAN;
        din.upload(x);
        launch<float, tc::Min, BLOCK_REDUCE>(din.ptr, dout.ptr, dtotal.ptr, threads);
        ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
        EXPECT_TRUE(std::isnan(dout.download(1)[0])) << "min, NaN at " << at;
        launch<float, tc::Max, WARP_SCAN>(din.ptr, dout.ptr, dtotal.ptr, threads);
        ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
        const auto scan = dout.download(threads);
        for (int t = 0; t < threads; ++t)
            EXPECT_EQ(std::isnan(scan[t]), t / 32 == at / 32 && t >= at) << "max scan, NaN at " << at << ", t=" << t;
    }
    // all +Inf: min is +Inf
    din.upload(std::vector<float>(threads, INFINITY));
    launch<float, tc::Min, BLOCK_REDUCE>(din.ptr, dout.ptr, dtotal.ptr, threads);
    ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
    EXPECT_EQ(dout.download(1)[0], INFINITY);
}

// argmin/argmax's warp keys (warp_arg_reduce): key(a) < key(b) exactly when a comes first by
// value (a NaN before everything, then the smaller for argmin, the larger for argmax), and equal
// keys exactly for equal values (-0.0 equals +0.0; any two NaNs), over specials and random bits.
// kSpecialFloats, a negative NaN, the smallest normals, and `count` random bit patterns (every
// exponent, subnormals and NaN payloads).
static std::vector<float> special_and_random_floats(unsigned seed, int count) {
    std::vector<float> xs = kSpecialFloats;
    for (float f : {-NAN, 1.17549435e-38f, -1.17549435e-38f}) xs.push_back(f);
    std::mt19937 rng(seed);
    for (int i = 0; i < count; ++i) {
        const uint32_t b = rng();
        float f;
        std::memcpy(&f, &b, 4);
        xs.push_back(f);
    }
    return xs;
}

TEST(Primitives, ArgKeysOrderAsTheArgOperators) {
    const std::vector<float> xs = special_and_random_floats(7, 2000);
    for (float a : xs)
        for (float b : xs) {
            const bool na = std::isnan(a), nb = std::isnan(b);
            const bool less_first = na ? !nb : !nb && a < b, more_first = na ? !nb : !nb && a > b;
            const bool same = (na && nb) || (!na && !nb && a == b);
            ASSERT_EQ(tc::arg_key<true>(a) < tc::arg_key<true>(b), less_first) << a << " " << b;
            ASSERT_EQ(tc::arg_key<false>(a) < tc::arg_key<false>(b), more_first) << a << " " << b;
            ASSERT_EQ(tc::arg_key<true>(a) == tc::arg_key<true>(b), same) << a << " " << b;
            ASSERT_EQ(tc::arg_key<false>(a) == tc::arg_key<false>(b), same) << a << " " << b;
        }
    for (int a : {-2147483647 - 1, -5, -1, 0, 1, 7, 2147483647})
        for (int b : {-2147483647 - 1, -5, -1, 0, 1, 7, 2147483647}) {
            EXPECT_EQ(tc::arg_key<true>(a) < tc::arg_key<true>(b), a < b);
            EXPECT_EQ(tc::arg_key<false>(a) < tc::arg_key<false>(b), a > b);
        }
}

// warp_reduce of argmin/argmax pairs (warp_arg_reduce for 4-byte values) in every lane, against
// the pair operator folded on the host: random values with NaNs, signed zeros, infinities and
// repeated values (ties), distinct values (a single lane holds the best), indices in any order
// and past 2^32, and identity pairs.
template <typename V, typename Op>
void check_arg_warps() {
    std::mt19937_64 rng(11);
    std::vector<V> pool;
    if constexpr (std::is_integral<V>::value) pool = {V(-2147483647 - 1), V(-3), V(0), V(4), V(2147483647)};
    else pool = {V(NAN), V(INFINITY), V(-INFINITY), V(0.0), V(-0.0), V(2.5)};
    DeviceBuffer<tc::KeyValue<V>> din(32), dout(32), dtotal(32);
    for (int trial = 0; trial < 300; ++trial) {
        std::vector<tc::KeyValue<V>> in(32);
        for (int l = 0; l < 32; ++l) {
            const int kind = int(rng() % 4);
            V v = kind == 0 ? pool[rng() % pool.size()] : V(int(rng() % 7) - 3);
            if (trial % 4 == 1) v = V(int((l * 13 + trial) % 32) - 16);  // distinct values: one lane holds the best
            const int64_t index = l + 32 * int64_t(rng() % 64) * (trial % 2 ? int64_t(1) << 33 : 1);  // distinct, any order
            in[l] = kind == 3 && trial % 3 == 0 ? Op::template identity<tc::KeyValue<V>>() : tc::KeyValue<V>{v, index};
        }
        tc::KeyValue<V> want = in[0];
        for (int l = 1; l < 32; ++l) want = Op()(want, in[l]);
        din.upload(in);
        launch<tc::KeyValue<V>, Op, WARP_REDUCE>(din.ptr, dout.ptr, dtotal.ptr, 32);
        ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
        const auto got = dout.download(32);
        for (int l = 0; l < 32; ++l) {
            ASSERT_EQ(got[l].index, want.index) << "trial " << trial << " lane " << l;
            V gv = got[l].value, wv = want.value;
            ASSERT_EQ(std::memcmp(&gv, &wv, sizeof(V)), 0) << "trial " << trial << " lane " << l << ": the winner's own value";
        }
    }
}

TEST(Primitives, ArgWarpReduceMatchesThePairOperator) {
    REQUIRE_GPU();
    check_arg_warps<float, tc::ArgMin>();
    check_arg_warps<float, tc::ArgMax>();
    check_arg_warps<int, tc::ArgMin>();
    check_arg_warps<int, tc::ArgMax>();
}

// warp_reduce and block_reduce of 64-bit unsigned words with Min (warp_min_u64: the high halves,
// then the low halves among the lanes holding the smallest high half): high halves from a few
// values, so that many lanes tie on them, low halves anywhere, and the identity (all ones).
TEST(Primitives, WarpMinOfU64) {
    REQUIRE_GPU();
    std::mt19937_64 rng(23);
    const uint64_t his[] = {0, 1, 0x80000000u, 0xfffffffeu, 0xffffffffu};
    for (int threads = 32; threads <= 1024; threads += 32)
        for (int trial = 0; trial < 4; ++trial) {
            std::vector<uint64_t> in(threads);
            for (auto &x : in) {
                const uint32_t lo = trial == 3 ? uint32_t(rng() % 3) : uint32_t(rng());
                x = rng() % 16 == 0 ? ~uint64_t(0) : his[rng() % 5] << 32 | lo;
            }
            DeviceBuffer<uint64_t> din(threads), dout(threads), dtotal(threads);
            din.upload(in);
            for (int kind : {WARP_REDUCE, BLOCK_REDUCE}) {
                dout.upload(std::vector<uint64_t>(threads, 12345));  // poison: no input is 12345
                if (kind == WARP_REDUCE) launch<uint64_t, tc::Min, WARP_REDUCE>(din.ptr, dout.ptr, dtotal.ptr, threads);
                else launch<uint64_t, tc::Min, BLOCK_REDUCE>(din.ptr, dout.ptr, dtotal.ptr, threads);
                ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
                const auto got = dout.download(threads);
                for (int t = 0; t < (kind == WARP_REDUCE ? threads : 1); ++t) {
                    const size_t from = kind == WARP_REDUCE ? size_t(t / 32) * 32 : 0;
                    const size_t to = kind == WARP_REDUCE ? from + 32 : size_t(threads);
                    const uint64_t want = *std::min_element(in.begin() + from, in.begin() + to);
                    ASSERT_EQ(got[t], want) << (kind == WARP_REDUCE ? "warp" : "block") << " threads " << threads
                                            << " trial " << trial << " thread " << t;
                }
            }
        }
}

// reduce_best's packed arg words (arg_pack): the smaller of two words is the arg operator's
// winner of the two pairs, and arg_unpack gives back its value bits (a NaN's payload and a zero's
// sign from the input) and index: every pair of special and random floats, at indices in either
// order, and int32's extremes.
template <typename V>
void check_arg_words(const std::vector<V> &xs) {
    for (size_t i = 0; i < xs.size(); ++i)
        for (size_t j = 0; j < xs.size(); ++j) {
            if (i == j) continue;
            std::vector<V> a(xs.size() + 1);  // a[k] = xs[k]; the pairs' indices are i and j
            std::copy(xs.begin(), xs.end(), a.begin());
            const tc::KeyValue<V> p{xs[i], int64_t(i)}, q{xs[j], int64_t(j)};
            const tc::KeyValue<V> want_min = tc::ArgMin()(p, q), want_max = tc::ArgMax()(p, q);
            const auto got_min = tc::arg_unpack<true>(std::min(tc::arg_pack<true>(p.value, p.index), tc::arg_pack<true>(q.value, q.index)), a.data());
            const auto got_max = tc::arg_unpack<false>(std::min(tc::arg_pack<false>(p.value, p.index), tc::arg_pack<false>(q.value, q.index)), a.data());
            ASSERT_EQ(got_min.index, want_min.index) << xs[i] << " at " << i << ", " << xs[j] << " at " << j;
            ASSERT_EQ(got_max.index, want_max.index) << xs[i] << " at " << i << ", " << xs[j] << " at " << j;
            ASSERT_EQ(std::memcmp(&got_min.value, &want_min.value, sizeof(V)), 0) << xs[i] << ", " << xs[j] << ": argmin's value bits";
            ASSERT_EQ(std::memcmp(&got_max.value, &want_max.value, sizeof(V)), 0) << xs[i] << ", " << xs[j] << ": argmax's value bits";
        }
}

TEST(Primitives, ArgPackedWordsOrderAsTheArgOperators) {
    check_arg_words<float>(special_and_random_floats(9, 300));
    check_arg_words<int>({-2147483647 - 1, -5, -1, 0, 1, 7, 7, 2147483647, 2147483647});
}

// reduce_best's two arg instantiations, Narrow (the packed words, what every n < 2^32 runs) and
// the 64-bit index pairs (what n >= 2^32 runs, here at small n), give the same 16 bytes (value
// and index) as the reference: values with ties, signed zeros, NaNs (two, the first wins) and
// infinities, at sizes that cross vectors, rounds and blocks.
template <typename T, typename Op, bool Narrow>
tc::KeyValue<T> best_arg(const DeviceBuffer<T> &a, int64_t n) {
    const tc_device d = device();
    const int threads = tc::best_threads<T>(d, n, 0);
    const int blocks = tc::best_blocks<T, tc::KeyValue<T>, Op, tc::IDENTITY, Narrow>(d, n, threads);
    DeviceBuffer<unsigned char> scratch(tc::best_scratch(blocks));
    DeviceBuffer<tc::KeyValue<T>> out(1);
    out.upload({tc::KeyValue<T>{T(77), 77777}});  // poison: no input has index 77777 and value 77
    tc::reduce_best<T, tc::KeyValue<T>, Op, tc::IDENTITY, Narrow><<<blocks, threads>>>(a.ptr, a.ptr, out.ptr, scratch.ptr, n);
    EXPECT_EQ(cudaSuccess, cudaDeviceSynchronize());
    return out.download(1)[0];
}

template <typename T>
void check_best_arg_widths(uint64_t seed) {
    for (int64_t n : up_to_max_n({1, 33, 4099, 65537, (1 << 20) + 3})) {
        std::mt19937_64 rng(seed + uint64_t(n));
        std::vector<T> h(n);
        for (auto &x : h) x = T(int(rng() % 9) - 4);
        if constexpr (std::is_floating_point<T>::value) {
            for (auto &x : h)
                if (x == 0 && (rng() & 1)) x = T(-0.0);
            h[rng() % n] = T(INFINITY);
            h[rng() % n] = T(-INFINITY);
        }
        DeviceBuffer<T> a(n);
        for (int nan = 0; nan < (std::is_floating_point<T>::value ? 2 : 1); ++nan) {
            if (nan) {  // two NaNs with payloads: the first wins, its own bits come back
                const int64_t i = int64_t(rng() % n), j = int64_t(rng() % n);
                const uint32_t bi = 0x7fc00011u, bj = 0xffc00022u;
                std::memcpy(&h[i], &bi, 4);
                std::memcpy(&h[j], &bj, 4);
            }
            a.upload(h);
            const auto check = [&](auto op, tc::KeyValue<T> narrow, tc::KeyValue<T> wide) {
                tc::KeyValue<T> want{h[0], 0};
                for (int64_t i = 1; i < n; ++i) want = op(want, tc::KeyValue<T>{h[i], i});
                const std::string what = std::string(std::is_same<decltype(op), tc::ArgMin>::value ? "argmin" : "argmax") +
                                         " n=" + std::to_string(n) + (nan ? " with NaNs" : "");
                for (int wide_index = 0; wide_index < 2; ++wide_index) {
                    const tc::KeyValue<T> got = wide_index ? wide : narrow;
                    const char *path = wide_index ? " (64-bit index pairs)" : " (packed words)";
                    EXPECT_EQ(got.index, want.index) << what << path;
                    EXPECT_EQ(std::memcmp(&got.value, &want.value, sizeof(T)), 0) << what << path << ": the value's bits";
                }
            };
            check(tc::ArgMin(), best_arg<T, tc::ArgMin, true>(a, n), best_arg<T, tc::ArgMin, false>(a, n));
            check(tc::ArgMax(), best_arg<T, tc::ArgMax, true>(a, n), best_arg<T, tc::ArgMax, false>(a, n));
        }
    }
}

TEST(Primitives, ReduceBestArgOfBothIndexWidths) {
    REQUIRE_GPU();
    check_best_arg_widths<float>(100);
    check_best_arg_widths<int>(200);
}

// ---- tile_state.cuh: the one inter-block protocol -----------------------------------------------

namespace {

using tc::tile::Epoch;
using tc::tile::kAggregate;
using tc::tile::kInclusive;
using tc::tile::kInvalid;
using FewPolls = tc::tile::SleepGiveUp<7>;  // gives up after a few polls: a lost word returns at once

// A status word as the layout says, written out apart from TileState::make: value, status (2
// bits), epoch (30 bits).
uint64_t layout_word(uint32_t value, uint32_t status, uint32_t epoch) {
    return uint64_t(value) | uint64_t(status) << 32 | uint64_t(epoch & ((1u << 30) - 1u)) << 34;
}

// A chain across blocks, one thread each: block b publishes its K values as aggregates, waits for
// block b-1's K inclusive words (an aggregate must not pass), records what it took in seen, and
// publishes its inclusive sums. The epoch moves on by one of Epoch's rules: the last block (it has
// the whole chain: every block has read the epoch), or the count.
template <class Wait, int K, bool Counted>
__global__ void chain_kernel(const uint32_t *in, uint32_t *seen, Epoch *epoch, uint64_t *words, int *gave_up) {
    const uint32_t run = Counted ? epoch->read_counted() : epoch->read();
    const tc::tile::TileState<Wait> state{words, run};
    const int64_t b = blockIdx.x;
    uint32_t sum[K];
#pragma unroll
    for (int q = 0; q < K; ++q) {
        sum[q] = in[b * K + q];
        state.publish_aggregate(b * K + q, sum[q]);
    }
    if (b > 0) {
        uint64_t w[K];
        if (!state.wait_inclusive((b - 1) * K, w)) atomicAdd(gave_up, 1);
#pragma unroll
        for (int q = 0; q < K; ++q) {
            seen[b * K + q] = tc::tile::value_of(w[q]);
            sum[q] += tc::tile::value_of(w[q]);
        }
    }
#pragma unroll
    for (int q = 0; q < K; ++q) state.publish_inclusive(b * K + q, sum[q]);
    if constexpr (Counted) epoch->advance_if_last(epoch->count_done(), gridDim.x);
    else if (b == gridDim.x - 1) epoch->advance(run);
}

// `runs` runs of the chain over one scratch, never cleared, from the epoch word `start`: each run
// with new random inputs, so a word a previous run left that passed for this run's would give a
// wrong sum. Checks what every block took, the words left, and the epoch after each run; returns
// the runs checked.
template <class Wait, int K, bool Counted>
int check_chain(int blocks, uint32_t start, int runs, uint64_t seed) {
    const size_t items = size_t(blocks) * K;
    const uint32_t poison = 0x9e3779b9u;
    DeviceBuffer<uint32_t> in(items), seen(items + 1);
    DeviceBuffer<Epoch> epoch(1);
    DeviceBuffer<uint64_t> words(items);
    DeviceBuffer<int> gave_up(1);
    epoch.upload({Epoch{start}});
    std::mt19937_64 rng(seed);
    const std::string what = "blocks " + std::to_string(blocks) + " K " + std::to_string(K) +
                             (Counted ? " counted" : " last advances") + " start " + std::to_string(start);
    for (int r = 0; r < runs; ++r) {
        const uint32_t run = start + uint32_t(r) * tc::tile::kEpochStep;
        std::vector<uint32_t> h(items);
        for (auto &x : h) x = uint32_t(rng());
        in.upload(h);
        seen.upload(std::vector<uint32_t>(items + 1, poison));
        chain_kernel<Wait, K, Counted><<<blocks, 1>>>(in.ptr, seen.ptr, epoch.ptr, words.ptr, gave_up.ptr);
        EXPECT_EQ(cudaSuccess, cudaDeviceSynchronize()) << what;
        EXPECT_EQ(gave_up.download(1)[0], 0) << what << " run " << r;
        const auto got = seen.download(items + 1);
        const auto left = words.download(items);
        std::vector<uint32_t> sum(K, 0);
        int bad = 0;
        for (int b = 0; b < blocks; ++b)
            for (int q = 0; q < K; ++q) {
                const size_t i = size_t(b) * K + q;
                const uint32_t want_seen = b == 0 ? poison : sum[q];  // block 0 waits for nothing
                sum[q] += h[i];
                if ((got[i] != want_seen || left[i] != layout_word(sum[q], kInclusive, run >> 2)) && bad++ < 3)
                    ADD_FAILURE() << what << " run " << r << " block " << b << " word " << q << ": took " << got[i]
                                  << ", want " << want_seen << "; left " << std::hex << left[i] << std::dec;
            }
        EXPECT_EQ(got[items], poison) << what << ": the guard word after seen";
        const Epoch after = epoch.download(1)[0];
        EXPECT_EQ(after.word, uint64_t(uint32_t(run + tc::tile::kEpochStep))) << what << " run " << r << ": the next epoch, no blocks done";
        if (bad) return r;
    }
    return runs;
}

template <class Wait, int K, bool Counted>
int check_chains() {
    int cases = 0;
    for (int blocks : {1, 2, 31, 33, 1025, 4099})
        for (uint32_t start : {0u, 0xfffffff4u})  // zero-filled, and three runs before the epoch wraps
            cases += check_chain<Wait, K, Counted>(blocks, start, 5, uint64_t(blocks) * 131 + K);
    return cases;
}

// One reader: wait on each of words 0..K-1, then wait_inclusive on all K, under FewPolls. out:
// per word its wait's answer and value, then wait_inclusive's answer.
template <int K>
__global__ void read_kernel(Epoch *epoch, uint64_t *words, uint32_t *out) {
    const tc::tile::TileState<FewPolls> state{words, epoch->read()};
    for (int q = 0; q < K; ++q) {
        uint64_t w;
        out[2 * q] = state.wait(q, w);
        out[2 * q + 1] = tc::tile::value_of(w);
    }
    uint64_t w[K];
    out[2 * K] = state.wait_inclusive(0, w);
}

}  // namespace

// The word's layout and this run's tests on it, on the host: a word passes only in its own run
// (epochs one apart either way, across the wrap, do not), with the status asked for.
TEST(Primitives, TileStateWordsOnTheHost) {
    std::mt19937_64 rng(47);
    int cases = 0;
    for (int trial = 0; trial < 1000; ++trial) {
        const uint32_t epoch = trial < 3 ? uint32_t(trial) - 1u : uint32_t(rng());  // 2^30-1 (wraps), 0, 1, random
        const uint32_t value = uint32_t(rng());
        const tc::tile::TileState<FewPolls> state{nullptr, (epoch & ((1u << 30) - 1u)) << 2};
        for (uint32_t status : {kInvalid, kAggregate, kInclusive}) {
            EXPECT_EQ(state.make(value, status), layout_word(value, status, epoch));
            for (uint32_t other : {epoch - 1u, epoch, epoch + 1u}) {
                const uint64_t w = layout_word(value, status, other);
                const bool mine = other == epoch && status != kInvalid;
                EXPECT_EQ(state.published(w), mine) << epoch << " " << other << " " << status;
                EXPECT_EQ(state.published_inclusive(w), mine && status == kInclusive);
                EXPECT_EQ(tc::tile::value_of(w), value);
                EXPECT_EQ(tc::tile::status_of(w), status);
                ++cases;
            }
        }
    }
    EXPECT_EQ(cases, 9000);
}

// Publish and wait across blocks, and epochs across runs: the chain at odd block counts, both
// wait policies, one and three words a block, both epoch rules, five runs a scratch.
TEST(Primitives, TileStateChainAcrossBlocksAndRuns) {
    REQUIRE_GPU();
    int cases = 0;
    cases += check_chains<tc::tile::Spin, 1, false>();
    cases += check_chains<tc::tile::Spin, 3, false>();
    cases += check_chains<tc::tile::SleepGiveUp<>, 1, true>();
    cases += check_chains<tc::tile::SleepGiveUp<>, 3, true>();
    cases += check_chains<tc::tile::SleepGiveUp<>, 1, false>();
    cases += check_chains<tc::tile::Spin, 3, true>();
    EXPECT_EQ(cases, 6 * 6 * 2 * 5) << "runs checked";
}

// Stale words never pass: words planted from the run before (across the wrap too), the run after,
// this run unpublished and zero-filled; a reader takes only this run's, with the status asked for,
// and gives up on the rest (FewPolls) instead of hanging.
TEST(Primitives, TileStateStaleWordsNeverPass) {
    REQUIRE_GPU();
    constexpr int K = 3;
    DeviceBuffer<Epoch> epoch(1);
    DeviceBuffer<uint64_t> words(K);
    DeviceBuffer<uint32_t> out(2 * K + 1);
    std::mt19937_64 rng(4747);
    int cases = 0;
    struct Planted {
        int age;  // the word's epoch minus the run's
        uint32_t status;
    };
    const std::vector<Planted> kinds = {{0, kInclusive}, {0, kAggregate}, {0, kInvalid}, {-1, kInclusive},
                                        {-1, kAggregate}, {1, kInclusive}, {1, kAggregate}};
    for (uint32_t run_epoch : {0u, 1u, (1u << 30) - 1u, uint32_t(rng()) & ((1u << 30) - 1u)})
        for (int trial = 0; trial < 40; ++trial) {
            std::vector<uint64_t> planted(K);
            std::vector<Planted> what(K);
            std::vector<uint32_t> values(K);
            // any kinds; all this run's inclusive (wait_inclusive passes); aggregates; this run's, mixed
            const bool zero = trial == 5;  // zero-filled (with run_epoch 0: epoch 0, kInvalid)
            for (int q = 0; q < K; ++q) {
                const int k = trial % 4 == 0 ? int(rng() % kinds.size()) : trial % 4 == 1 ? 0 : trial % 4 == 2 ? 1 : int(rng() % 2);
                what[q] = kinds[k];
                values[q] = uint32_t(rng());
                planted[q] = zero ? 0 : layout_word(values[q], what[q].status, run_epoch + uint32_t(what[q].age));
            }
            epoch.upload({Epoch{uint64_t(run_epoch << 2)}});
            words.upload(planted);
            out.upload(std::vector<uint32_t>(2 * K + 1, 7u));  // poison: no answer is 7
            read_kernel<K><<<1, 1>>>(epoch.ptr, words.ptr, out.ptr);
            ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
            const auto got = out.download(2 * K + 1);
            bool all_inclusive = true;
            for (int q = 0; q < K; ++q) {
                const bool mine = !zero && what[q].age == 0, ok = mine && what[q].status != kInvalid;
                all_inclusive &= mine && what[q].status == kInclusive;
                EXPECT_EQ(got[2 * q], ok ? 1u : 0u) << "epoch " << run_epoch << " trial " << trial << " word " << q;
                if (ok) EXPECT_EQ(got[2 * q + 1], values[q]) << "epoch " << run_epoch << " trial " << trial << " word " << q;
            }
            EXPECT_EQ(got[2 * K], all_inclusive ? 1u : 0u) << "epoch " << run_epoch << " trial " << trial << ": wait_inclusive";
            ++cases;
        }
    EXPECT_EQ(cases, 4 * 40);
}

// Give-up: readers on words nobody publishes (zero-filled, epoch 0 as the run's) return the
// give-up answer under SleepGiveUp with a few polls, each of them, at odd reader counts.
__global__ void give_up_kernel(Epoch *epoch, uint64_t *words, uint32_t *out, int readers) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= readers) return;
    const tc::tile::TileState<FewPolls> state{words, epoch->read()};
    uint64_t w;
    out[i] = state.wait(i, w) ? 1u : 0u;
}

TEST(Primitives, TileStateGivesUp) {
    REQUIRE_GPU();
    int cases = 0;
    for (int readers : {1, 33, 1025}) {
        DeviceBuffer<Epoch> epoch(1);
        DeviceBuffer<uint64_t> words(readers);
        DeviceBuffer<uint32_t> out(readers);
        out.upload(std::vector<uint32_t>(readers, 7u));  // poison: neither answer
        give_up_kernel<<<(readers + 127) / 128, 128>>>(epoch.ptr, words.ptr, out.ptr, readers);
        ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
        const auto got = out.download(readers);
        EXPECT_EQ(std::count(got.begin(), got.end(), 0u), readers) << readers << " readers: every one gives up";
        ++cases;
    }
    EXPECT_EQ(cases, 3);
}
