// cuda/primitives.cuh through small test kernels: warp_reduce (every lane), block_reduce
// (thread 0), warp_scan and block_scan (inclusive and exclusive, every thread), for Sum, Min and
// Max on int32 (exact: small values, no overflow, every order gives the same answer) and float32
// (against a float64 reference within the tree's bound), at every block size 32..1024; then the
// operators' NaN and signed-zero rules.
#include "../cuda/primitives.cuh"
#include "util.h"
#include <algorithm>
#include <cfloat>
#include <climits>
#include <cmath>

using namespace tctest;

namespace {

enum Kind { WARP_REDUCE, BLOCK_REDUCE, WARP_SCAN, WARP_SCAN_EX, BLOCK_SCAN, BLOCK_SCAN_EX };

// One block; out[t] is thread t's result, total[t] the total a scan hands every thread.
template <typename T, typename Op, int KIND>
__global__ void primitive_kernel(const T *in, T *out, T *total) {
    __shared__ tc::BlockReduceStorage<T> reduce_storage;
    __shared__ tc::BlockScanStorage<T> scan_storage;
    const T v = in[threadIdx.x];
    T all = Op::template identity<T>();
    T r;
    if constexpr (KIND == WARP_REDUCE) r = tc::warp_reduce<T, Op>(v);
    else if constexpr (KIND == BLOCK_REDUCE) r = tc::block_reduce<T, Op>(v, reduce_storage);
    else if constexpr (KIND == WARP_SCAN) r = tc::warp_scan<T, Op, false>(v, Op(), &all);
    else if constexpr (KIND == WARP_SCAN_EX) r = tc::warp_scan<T, Op, true>(v, Op(), &all);
    else if constexpr (KIND == BLOCK_SCAN) r = tc::block_scan<T, Op, false>(v, scan_storage, Op(), &all);
    else r = tc::block_scan<T, Op, true>(v, scan_storage, Op(), &all);
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
        for (int kind = WARP_REDUCE; kind <= BLOCK_SCAN_EX; ++kind) {
            dout.upload(std::vector<T>(threads, T(-77)));
            switch (kind) {
            case WARP_REDUCE: launch<T, Op, WARP_REDUCE>(din.ptr, dout.ptr, dtotal.ptr, threads); break;
            case BLOCK_REDUCE: launch<T, Op, BLOCK_REDUCE>(din.ptr, dout.ptr, dtotal.ptr, threads); break;
            case WARP_SCAN: launch<T, Op, WARP_SCAN>(din.ptr, dout.ptr, dtotal.ptr, threads); break;
            case WARP_SCAN_EX: launch<T, Op, WARP_SCAN_EX>(din.ptr, dout.ptr, dtotal.ptr, threads); break;
            case BLOCK_SCAN: launch<T, Op, BLOCK_SCAN>(din.ptr, dout.ptr, dtotal.ptr, threads); break;
            default: launch<T, Op, BLOCK_SCAN_EX>(din.ptr, dout.ptr, dtotal.ptr, threads); break;
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
                case WARP_SCAN_EX:
                    expect_near(out[t], fold<T, Op>(xs, warp0, t), t, "warp_scan exclusive");
                    break;
                case BLOCK_SCAN:
                    expect_near(out[t], fold<T, Op>(xs, 0, t + 1), t, "block_scan inclusive");
                    expect_near(total[t], fold<T, Op>(xs, 0, threads), t, "block_scan total");
                    break;
                default:
                    expect_near(out[t], fold<T, Op>(xs, 0, t), t, "block_scan exclusive");
                    expect_near(total[t], fold<T, Op>(xs, 0, threads), t, "block_scan total");
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
// kSpecialFloats each returns the bits the rules give, written out here as the chain of cases they
// were until the ninth session.
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
    // a NaN anywhere: min, max and sum are NaN; the inclusive scan is NaN from its position on
    for (int at : {0, 100, threads - 1}) {
        auto x = random_floats(threads, at);
        x[at] = NAN;
        din.upload(x);
        launch<float, tc::Min, BLOCK_REDUCE>(din.ptr, dout.ptr, dtotal.ptr, threads);
        ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
        EXPECT_TRUE(std::isnan(dout.download(1)[0])) << "min, NaN at " << at;
        launch<float, tc::Max, BLOCK_SCAN>(din.ptr, dout.ptr, dtotal.ptr, threads);
        ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
        const auto scan = dout.download(threads);
        for (int t = 0; t < threads; ++t) EXPECT_EQ(std::isnan(scan[t]), t >= at) << "max scan, NaN at " << at << ", t=" << t;
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
TEST(Primitives, ArgKeysOrderAsTheArgOperators) {
    std::vector<float> xs = {NAN, -NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1e-45f, -1e-45f, 1.17549435e-38f,
                             -1.17549435e-38f, 3.4028235e38f, -3.4028235e38f, 1.0f, -1.0f, 5.0f};
    std::mt19937 rng(7);
    for (int i = 0; i < 2000; ++i) {  // random bit patterns: every exponent, subnormals and NaN payloads
        const uint32_t b = rng();
        float f;
        std::memcpy(&f, &b, 4);
        xs.push_back(f);
    }
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
