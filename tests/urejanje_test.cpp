// urejanje on the GPU: every variant against a CPU sort of the same keys, element by element
// (any NaN matches any NaN, -0.0 matches +0.0: they compare equal), plus a permutation check:
// with pairs every value indexes an input key with the same bits, each index once, and keys of
// the same bits keep their input order (stable); with keys only the -0.0s are all kept; with the
// caller's values the (key, value) pairs are the input's. radix (and best where its plan chose radix),
// stable with -0.0 == +0.0, is checked exactly: every key's bits and value are those of the CPU's stable sort. Sizes that are
// not powers of two, every key type, both directions, keys and pairs, batches, in place, and
// input distributions.
#include "util.h"
#include "tecaj/urejanje.h"
#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <thread>
#include <utility>

using namespace tctest;

namespace {

const tc_program *const kProgram = tc_urejanje_program();
const bool registered = register_program(kProgram);

tc_status plan(int v, int64_t n, int64_t batch, bool pairs, int threads, const tc_device *d, tc_urejanje_plan *p,
               int blocks = 0, tc_dtype type = TC_FLOAT32, bool descending = false) {
    const tc_urejanje_request r{{v, n, threads, blocks}, batch, pairs ? 1 : 0, type, descending ? 1 : 0};
    return tc_urejanje_make_plan(&r, d, p);
}
int find(const char *name) { return tc_variant_find(kProgram, name); }

enum Dist { UNIFORM, SORTED, REVERSED, EQUAL, FEW, DISTS };

uint32_t float_bits(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}

// The order the sort promises, as an unsigned key: written independently of the kernels.
uint32_t order_key(uint32_t bits, tc_dtype t) {
    if (t == TC_INT32) return bits ^ 0x80000000u;
    if (t == TC_UINT32) return bits;
    if ((bits & 0x7fffffffu) > 0x7f800000u) return 0xffffffffu;  // NaN last
    if (bits == 0x80000000u) bits = 0;                           // -0.0 == +0.0
    return (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
}

std::vector<uint32_t> make_keys(int64_t count, tc_dtype t, Dist d, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<uint32_t> k(count);
    for (auto &x : k) {
        if (t == TC_FLOAT32) x = float_bits(std::uniform_real_distribution<float>(-1e3f, 1e3f)(rng));
        else x = uint32_t(rng());
        if (d == FEW) x = (t == TC_FLOAT32) ? float_bits(float(rng() % 16) - 8.0f) : uint32_t(rng() % 16) * 0x10000001u;
    }
    if (d == EQUAL) std::fill(k.begin(), k.end(), k.empty() ? 0 : k[0] | 1u);
    if (d == SORTED || d == REVERSED) {
        std::sort(k.begin(), k.end(), [&](uint32_t a, uint32_t b) { return order_key(a, t) < order_key(b, t); });
        if (d == REVERSED) std::reverse(k.begin(), k.end());
    }
    return k;
}

// Special keys of each type: floats' NaNs of both signs and several payloads (0xffc00000 is
// -NaN; 0x7f800001 a signalling payload), signed zeros, infinities; integers' extremes.
std::vector<uint32_t> specials(tc_dtype t) {
    if (t == TC_INT32) return {0x80000000u, 0x7fffffffu, 0u, 0xffffffffu, 1u, 0x80000001u};  // INT_MIN, INT_MAX, 0, -1
    if (t == TC_UINT32) return {0u, 0xffffffffu, 0x80000000u, 0x7fffffffu, 1u};
    return {0x7fc00000u, 0x80000000u, 0u, 0x7f800000u, 0xff800000u, 0x3f800000u, 0xbf800000u,
            0xffc00000u, 0x80000000u, 0x7f800001u, 0xffffffffu, 0x7fc12345u, 0x00000001u, 0x80000001u};
}
// Every k-th key (from a seeded offset) replaced by the type's specials in turn.
void add_specials(std::vector<uint32_t> &keys, tc_dtype t, int k, uint64_t seed) {
    const std::vector<uint32_t> s = specials(t);
    for (size_t i = size_t(seed % unsigned(k)), j = 0; i < keys.size(); i += size_t(k), ++j) keys[i] = s[j % s.size()];
}

struct Case {
    int variant;
    int64_t n, batch = 1;
    tc_dtype type = TC_FLOAT32;
    bool descending = false, pairs = false;
    int threads = 0;
    bool given_values = false;  // pairs with the caller's values (otherwise values_in NULL: an argsort)
    bool in_place = false;      // keys_out is keys_in (and with given values, values_out is values_in)
    int sms = 0;                // plan for this many SMs (0: the device's own)
};

// The three outputs a test turns through: mode 0 keys alone, 1 pairs whose values are the keys'
// indices (an argsort), 2 pairs with the caller's values.
void outputs(Case &c, int mode) {
    c.pairs = mode > 0;
    c.given_values = mode == 2;
}

std::string describe(const Case &c) {
    return std::string(tc_variant_at(kProgram, c.variant)->name) + " n=" + std::to_string(c.n) +
           " batch=" + std::to_string(c.batch) + " type=" + std::to_string(c.type) + (c.descending ? " desc" : " asc") +
           (c.pairs ? (c.given_values ? " pairs(values)" : " pairs(indices)") : " keys") +
           " threads=" + std::to_string(c.threads) + (c.in_place ? " in place" : "") +
           (c.sms ? " planned for " + std::to_string(c.sms) + " SMs" : "");
}

// Cases check() has verified (each test compares its count with the cases it means to check:
// a loop that checks nothing fails).
int64_t checked = 0;

// The same bits, or (floats) both NaN.
bool same_bits(uint32_t a, uint32_t b, tc_dtype t) {
    if (a == b) return true;
    const bool nan_a = (a & 0x7fffffffu) > 0x7f800000u, nan_b = (b & 0x7fffffffu) > 0x7f800000u;
    return t == TC_FLOAT32 && nan_a && nan_b;
}

// Equal in the sort's order.
bool same_key(uint32_t a, uint32_t b, tc_dtype t) { return order_key(a, t) == order_key(b, t); }

// The bits a sorted key comes out as: every NaN the canonical one.
uint32_t key_out(uint32_t bits, tc_dtype t) {
    return t == TC_FLOAT32 && (bits & 0x7fffffffu) > 0x7f800000u ? 0x7fffffffu : bits;
}

// radix's sort (radix, and best where its plan chose it) and best's rank sort are checked exactly
// against the CPU's stable sort (both are stable with -0.0 == +0.0).
bool exact(const tc_urejanje_plan &p) { return p.radix != 0 || p.rank != 0; }

// The bytes padded scratch adds to the plan of integer keys alone p (radix_pad): each array's keys
// 256 x pad words more (pad: n / 65536 in whole lines, and a line), and two bytes a tile and pass,
// the tiles' spans. The same plan for float32 keys (same tiles, not padded) takes exactly this less.
size_t padded_extra(const tc_urejanje_plan &p) {
    const auto lines = [](int64_t bytes) { return size_t((bytes + 255) / 256 * 256); };
    const int64_t n = p.launch.n, pad = ((n >> 16) & ~int64_t(31)) + 32;
    return lines(4 * p.batch * (n + 256 * pad)) - lines(4 * p.batch * n) + lines(2 * 4 * p.batch * p.radix_tiles);
}

// The CPU's stable sort of an array's keys by order_key (descending: its greatest first), as the
// indices of the keys in sorted order: std::stable_sort's comparison sort, and past 2^22 keys (the
// padded scratch's 10^8, which took the comparison sort half a minute an array) a counting sort of
// the order words' four bytes, least significant first, each pass stable and shared by the host's
// threads: each counts and moves its own slice, its keys of a digit after the slices' before it.
std::vector<uint32_t> stable_order(const uint32_t *kb, int64_t n, tc_dtype t, bool descending) {
    std::vector<uint32_t> idx(static_cast<size_t>(n));
    std::iota(idx.begin(), idx.end(), 0u);
    if (n <= (int64_t(1) << 22)) {
        std::stable_sort(idx.begin(), idx.end(), [&](uint32_t x, uint32_t y) {
            const uint32_t ox = order_key(kb[x], t), oy = order_key(kb[y], t);
            return descending ? ox > oy : ox < oy;
        });
        return idx;
    }
    const int slices = int(std::clamp(std::thread::hardware_concurrency(), 1u, 8u));
    const auto each_slice = [&](auto &&f) {  // f(slice, first, end) for each slice, one thread a slice
        std::vector<std::thread> threads;
        for (int k = 0; k < slices; ++k) threads.emplace_back(f, k, n * k / slices, n * (k + 1) / slices);
        for (auto &th : threads) th.join();
    };
    // each key's order word over its index, so that a pass reads in order (a third of the time)
    std::vector<uint64_t> item(idx.size()), moved(idx.size());
    each_slice([&](int, int64_t first, int64_t end) {
        for (int64_t i = first; i < end; ++i)
            item[i] = uint64_t(order_key(kb[i], t) ^ (descending ? 0xffffffffu : 0u)) << 32 | uint64_t(i);
    });
    std::vector<std::array<int64_t, 256>> start(static_cast<size_t>(slices));
    for (int shift = 32; shift < 64; shift += 8) {
        each_slice([&](int k, int64_t first, int64_t end) {
            start[k].fill(0);
            for (int64_t i = first; i < end; ++i) ++start[k][(item[i] >> shift) & 0xffu];
        });
        int64_t at = 0;
        for (int digit = 0; digit < 256; ++digit)
            for (int k = 0; k < slices; ++k) at += std::exchange(start[k][digit], at);
        each_slice([&](int k, int64_t first, int64_t end) {
            for (int64_t i = first; i < end; ++i) moved[start[k][(item[i] >> shift) & 0xffu]++] = item[i];
        });
        item.swap(moved);
    }
    each_slice([&](int, int64_t first, int64_t end) {
        for (int64_t i = first; i < end; ++i) idx[i] = uint32_t(item[i]);
    });
    return idx;
}

void check(const Case &c, const std::vector<uint32_t> &keys) {
    const int64_t items = c.n * c.batch;
    ASSERT_EQ(int64_t(keys.size()), items);
    ASSERT_TRUE(c.pairs || !c.given_values);
    tc_device d = device();
    if (c.sms) d.multiprocessors = c.sms;
    tc_urejanje_plan p;
    ASSERT_EQ(TC_OK, plan(c.variant, c.n, c.batch, c.pairs, c.threads, &d, &p, 0, c.type, c.descending)) << describe(c);
    DeviceBuffer<uint32_t> in(items), out(items), values(items), values_in(items);
    DeviceBuffer<unsigned char> scratch(p.launch.scratch_bytes);
    std::vector<uint32_t> given;  // the caller's values: random, repeats and all
    if (c.given_values) {
        std::mt19937_64 rng(uint64_t(items) * 7919u + uint64_t(c.type));
        given.resize(items);
        for (auto &v : given) v = uint32_t(rng());
    }
    uint32_t *keys_out = c.in_place ? in.ptr : out.ptr;
    uint32_t *values_out = c.in_place && c.given_values ? values_in.ptr : values.ptr;
    // Every bit pattern is a legal 32-bit key and index, so one poison cannot show an unwritten
    // slot: run twice, under two poisons; a slot that follows its poison was not written. (In
    // place, the keys are the input each time.)
    std::vector<uint32_t> got, got_values;
    for (uint32_t poison_bits : {0xffffffffu, 0x5a5a5a5au}) {
        in.upload(keys);
        if (c.given_values) values_in.upload(given);
        if (!c.in_place) out.upload(std::vector<uint32_t>(items, poison_bits));
        values.upload(std::vector<uint32_t>(items, poison_bits));
        ASSERT_EQ(TC_OK, tc_urejanje_run(&p, in.ptr, c.given_values ? values_in.ptr : nullptr, keys_out,
                                         c.pairs ? values_out : nullptr, scratch.ptr, nullptr))
            << describe(c);
        ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize()) << describe(c);
        const auto k = c.in_place ? in.download(items) : out.download(items);
        const auto v = c.in_place && c.given_values ? values_in.download(items) : values.download(items);
        if (got.empty()) {
            got = k;
            got_values = v;
            continue;
        }
        for (int64_t i = 0; i < items; ++i) {
            ASSERT_EQ(got[i], k[i]) << describe(c) << ": key slot " << i << " unwritten (it follows the poison)";
            if (c.pairs) ASSERT_EQ(got_values[i], v[i]) << describe(c) << ": value slot " << i << " unwritten";
        }
    }
    int bad = 0;
    for (int64_t b = 0; b < c.batch && bad < 3; ++b) {
        const uint32_t *kb = keys.data() + b * c.n;
        const std::vector<uint32_t> idx = stable_order(kb, c.n, c.type, c.descending);
        std::vector<bool> seen(c.n, false);
        int64_t negative_zeros = 0;
        for (int64_t i = 0; i < c.n; ++i) negative_zeros += kb[i] == 0x80000000u;
        for (int64_t i = 0; i < c.n && bad < 3; ++i) {
            const int64_t at = b * c.n + i;
            const uint32_t v = got_values[at];
            const bool indices = c.pairs && !c.given_values;
            std::string why;
            const bool is_nan = c.type == TC_FLOAT32 && (got[at] & 0x7fffffffu) > 0x7f800000u;
            if (!same_key(got[at], kb[idx[i]], c.type)) why = "not the key the CPU sort has here";
            else if (is_nan && got[at] != 0x7fffffffu) why = "a NaN that is not the canonical 0x7fffffff";
            else if (indices && (v >= c.n || seen[v])) why = "value out of range or repeated";
            else if (indices && !same_bits(got[at], kb[v], c.type)) why = "key differs from the input key its value indexes";
            else if (indices && i > 0 && got[at - 1] == got[at] && got_values[at - 1] >= v)
                why = "keys of the same bits out of input order (not stable)";
            else if (exact(p) && got[at] != key_out(kb[idx[i]], c.type)) why = "not the bits of the key the stable sort has here";
            else if (exact(p) && c.pairs && v != (c.given_values ? given[b * c.n + idx[i]] : idx[i]))
                why = "not the value the stable sort has here";
            if (indices && v < c.n) seen[v] = true;
            negative_zeros -= got[at] == 0x80000000u;
            if (!why.empty()) {
                ++bad;
                ADD_FAILURE() << describe(c) << " batch " << b << " position " << i << ": " << why << ": key " << std::hex
                              << got[at] << " value " << std::dec << v << ", CPU sort has key " << std::hex << kb[idx[i]]
                              << std::dec << " (input position " << idx[i] << ")";
            }
        }
        if (c.type == TC_FLOAT32 && bad == 0) EXPECT_EQ(negative_zeros, 0) << describe(c) << ": -0.0 not kept";
        if (c.given_values && bad == 0) {  // the array's (key, value) pairs are the input's
            std::vector<std::pair<uint32_t, uint32_t>> want(c.n), have(c.n);
            for (int64_t i = 0; i < c.n; ++i) {
                want[i] = {key_out(kb[i], c.type), given[b * c.n + i]};
                have[i] = {got[b * c.n + i], got_values[b * c.n + i]};
            }
            std::sort(want.begin(), want.end());
            std::sort(have.begin(), have.end());
            if (want != have) {
                ++bad;
                ADD_FAILURE() << describe(c) << " batch " << b << ": the output's (key, value) pairs are not the input's";
            }
        }
    }
    ++checked;
}

// The exact tests' cases at one length: every key type with its extremes (every `every`-th key),
// both directions, keys, argsort and the caller's values, the distribution turning with the count
// of cases (a sorted or reversed input takes no extremes); planned(c) first asserts what the test
// needs of c's plan.
template <class Planned>
void exact_cases(int variant, int64_t n, int every, uint64_t &seed, int64_t &cases, Planned &&planned) {
    for (tc_dtype t : {TC_FLOAT32, TC_INT32, TC_UINT32})
        for (bool desc : {false, true})
            for (int mode = 0; mode < 3; ++mode) {
                Case c{variant, n};
                c.type = t;
                c.descending = desc;
                outputs(c, mode);
                planned(c);
                const Dist dist = Dist((cases + n) % DISTS);
                std::vector<uint32_t> keys = make_keys(n, t, dist, ++seed);
                if (dist != SORTED && dist != REVERSED) add_specials(keys, t, every, seed);
                check(c, keys);
                ++cases;
            }
}

std::vector<int64_t> sort_sizes() { return up_to_max_n({1, 2, 3, 1023, 1024, 1025, 4097, 1 << 20, (1 << 20) + 1}); }

}  // namespace

TEST(Urejanje, EveryVariantAndSize) {
    REQUIRE_GPU();
    ASSERT_GE(find("radix"), 0);  // (the variants these loops must cover)
    ASSERT_GE(find("best"), 0);
    const int64_t before = checked;
    uint64_t seed = 1;
    for (int v = 0; v < tc_variant_count(kProgram); ++v)
        for (int64_t n : sort_sizes())
            for (bool pairs : {false, true}) {
                Case c{v, n};
                c.pairs = pairs;
                check(c, make_keys(n, c.type, UNIFORM, ++seed));
            }
    EXPECT_EQ(checked - before, int64_t(tc_variant_count(kProgram)) * int64_t(sort_sizes().size()) * 2);
}

TEST(Urejanje, TypesDirectionsAndDistributions) {
    REQUIRE_GPU();
    const int64_t before = checked;
    uint64_t seed = 1000;
    for (int v = 0; v < tc_variant_count(kProgram); ++v)
        for (int64_t n : {1025, 4097})
            for (tc_dtype t : {TC_FLOAT32, TC_INT32, TC_UINT32})
                for (bool desc : {false, true})
                    for (int mode = 0; mode < 3; ++mode)  // keys, pairs with indices, pairs with values
                        for (int dist = 0; dist < DISTS; ++dist) {
                            Case c{v, n};
                            c.type = t;
                            c.descending = desc;
                            outputs(c, mode);
                            check(c, make_keys(n, t, Dist(dist), ++seed));
                        }
    EXPECT_EQ(checked - before, int64_t(tc_variant_count(kProgram)) * 2 * 3 * 2 * 3 * DISTS);
}

TEST(Urejanje, Batches) {
    REQUIRE_GPU();
    const int64_t before = checked;
    uint64_t seed = 5000;
    for (int v = 0; v < tc_variant_count(kProgram); ++v)
        for (int64_t batch : {2, 3, 64})
            for (int64_t n : {1, 7, 1000, 1024, 5000})
                for (bool pairs : {false, true}) {
                    Case c{v, n, batch};
                    c.pairs = pairs;
                    c.descending = batch == 3;
                    c.type = batch == 64 ? TC_INT32 : TC_FLOAT32;
                    check(c, make_keys(n * batch, c.type, UNIFORM, ++seed));
                }
    EXPECT_EQ(checked - before, int64_t(tc_variant_count(kProgram)) * 3 * 5 * 2);
}

TEST(Urejanje, BlockSizes) {
    REQUIRE_GPU();
    const tc_device d = device();
    const int64_t before = checked;
    int64_t refused = 0;
    for (int v = 0; v < tc_variant_count(kProgram); ++v)
        for (int threads : {32, 64, 128, 256, 512, 1024})
            for (int64_t n : {4097, 70001}) {
                if (v == find("radix") && threads != 256 && threads != 512) {  // (its pass shapes: 256, 384, 512)
                    tc_urejanje_plan p;
                    EXPECT_EQ(TC_OUTSIDE_DOMAIN, plan(v, n, 1, true, threads, &d, &p)) << threads;
                    ++refused;
                    continue;
                }
                Case c{v, n};
                c.threads = threads;
                c.pairs = true;
                check(c, make_keys(n, c.type, UNIFORM, uint64_t(threads + n)));
            }
    EXPECT_EQ(refused, 4 * 2);
    EXPECT_EQ(checked - before + refused, int64_t(tc_variant_count(kProgram)) * 6 * 2);
}

// best's first block is 16 x threads elements: at this size no block is shrunk to fill the device,
// and after a first block of 1024 or 2048 the merges up to 8192 are FINISH passes over blocks of
// exactly the merge (2048, 4096), then of 8192 beside the STRIDED passes
TEST(Urejanje, BestFirstBlockSizes) {
    REQUIRE_GPU();
    const std::vector<int64_t> sizes = up_to_max_n({(1 << 20) + 1});
    if (sizes.empty()) GTEST_SKIP() << "its one size, 2^20 + 1, lies above TECAJ_MAX_N";
    for (int threads : {64, 128, 256, 512})
        for (int64_t n : sizes)
            for (bool pairs : {false, true}) {
                Case c{find("best"), n};
                c.threads = threads;
                c.pairs = pairs;
                c.type = TC_UINT32;
                check(c, make_keys(n, c.type, UNIFORM, uint64_t(threads * 3 + n)));
            }
}

// Arrays long enough that best splits one merge's global steps over two passes, each with three
// groups of steps (pairs: 9 steps a pass; keys: 8).
TEST(Urejanje, BestLargeArrays) {
    REQUIRE_GPU();
    const int best = find("best");
    const std::vector<int64_t> sizes = up_to_max_n({(1 << 22) + 5});
    if (sizes.empty()) GTEST_SKIP() << "its one size, 2^22 + 5, lies above TECAJ_MAX_N";
    for (int64_t n : sizes)
        for (bool pairs : {true, false}) {
            Case c{best, n};
            c.threads = 512;  // best's own block, given: the network (unasked, arrays this long take radix)
            c.pairs = pairs;
            c.descending = !pairs;
            check(c, make_keys(n, c.type, UNIFORM, uint64_t(n + pairs)));
        }
}

TEST(Urejanje, NanSignedZeroInfinityAndDuplicates) {
    REQUIRE_GPU();
    // NaNs of both signs and several payloads (0xffc00000 is -NaN; 0x7f800001 a signalling
    // payload), signed zeros, infinities, duplicates
    const uint32_t specials[] = {0x7fc00000u, 0x80000000u, 0u, 0x7f800000u, 0xff800000u, 0x3f800000u, 0xbf800000u,
                                 0x3f800000u, 0xffc00000u, 0u, 0x80000000u, 0x7f800001u, 0xffffffffu, 0x7fc12345u};
    const size_t kinds = sizeof specials / sizeof specials[0];
    // one array of 3001, and batches of short arrays (CUB's segmented sort compares the keys of
    // short segments: NaNs among them once came out of order, descending)
    const int64_t shapes[][2] = {{3001, 1}, {7, 100}, {33, 64}, {3, 333}, {5001, 3}};
    const int64_t before = checked;
    for (int v = 0; v < tc_variant_count(kProgram); ++v)
        for (const auto &shape : shapes)
            for (bool desc : {false, true})
                for (bool pairs : {false, true}) {
                    std::vector<uint32_t> keys = make_keys(shape[0] * shape[1], TC_FLOAT32, UNIFORM, 77);
                    for (size_t i = 0; i < keys.size(); i += 7) keys[i] = specials[(i / 7) % kinds];
                    Case c{v, shape[0]};
                    c.batch = shape[1];
                    c.descending = desc;
                    c.pairs = pairs;
                    check(c, keys);
                }
    EXPECT_EQ(checked - before, int64_t(tc_variant_count(kProgram)) * 5 * 2 * 2);
}

TEST(Urejanje, AllNanInputComesOutCanonical) {
    REQUIRE_GPU();
    std::mt19937_64 rng(9);
    std::vector<uint32_t> keys(5000);
    for (auto &k : keys) k = 0x7f800001u | uint32_t(rng()) | (rng() & 1 ? 0x80000000u : 0u);  // every NaN pattern
    const int64_t before = checked;
    for (int v = 0; v < tc_variant_count(kProgram); ++v)
        for (bool pairs : {false, true}) {
            Case c{v, int64_t(keys.size())};
            c.pairs = pairs;
            check(c, keys);
        }
    EXPECT_EQ(checked - before, int64_t(tc_variant_count(kProgram)) * 2);
}

// keys_out may be keys_in (urejanje.h), and values_out values_in: every variant, one array and
// batches, the passes' sizes and the block sizes; all-equal keys (radix: every pass skipped but
// the two that an output over its input needs), all-NaN keys, and keys whose top byte is one
// (radix: three passes to run, so a fourth runs and the first writes scratch, not its input).
TEST(Urejanje, InPlace) {
    REQUIRE_GPU();
    const int64_t before = checked;
    int64_t cases = 0;
    uint64_t seed = 7000;
    const std::vector<int64_t> lengths = up_to_max_n({1000, 70001});
    for (int v = 0; v < tc_variant_count(kProgram); ++v)
        for (const int64_t shape : lengths)
            for (int batch : {1, 3})
                for (int mode = 0; mode < 3; ++mode)
                    for (int dist : {UNIFORM, EQUAL, DISTS}) {  // (DISTS: a constant top byte)
                        Case c{v, shape, batch};
                        c.in_place = true;
                        outputs(c, mode);
                        c.descending = mode == 1;
                        c.type = mode == 0 ? TC_UINT32 : TC_FLOAT32;
                        std::vector<uint32_t> keys = make_keys(shape * batch, c.type, dist == DISTS ? UNIFORM : Dist(dist), ++seed);
                        if (dist == DISTS)  // uint32 below 2^24; floats in [1, 2) (sign and exponent one)
                            for (uint32_t &k : keys) k = c.type == TC_UINT32 ? k & 0x00ffffffu : 0x3f800000u | (k & 0x007fffffu);
                        if (dist == EQUAL && mode == 2)  // every NaN pattern, one order word
                            for (size_t i = 0; i < keys.size(); ++i) keys[i] = 0x7f800001u | uint32_t(i * 2654435761u) | (i & 1 ? 0x80000000u : 0u);
                        check(c, keys);
                        ++cases;
                    }
    EXPECT_EQ(cases, int64_t(tc_variant_count(kProgram)) * int64_t(lengths.size()) * 2 * 3 * 3);
    EXPECT_GE(lengths.size(), 1u);
    EXPECT_EQ(checked - before, cases);
}

// radix against the CPU's stable sort, bit for bit and value for value: every size class (the
// block sort up to 4096 keys, the passes past it, a last tile of one key), every key type with
// its extremes, both directions, keys, argsort and the caller's values, every distribution (a
// sorted or one-digit input skips passes), batches, and 2^24 + 1.
TEST(Urejanje, RadixExact) {
    REQUIRE_GPU();
    const int radix = find("radix");
    ASSERT_GE(radix, 0);
    const int64_t before = checked;
    int64_t cases = 0;
    uint64_t seed = 9000;
    for (int64_t n : up_to_max_n({1, 2, 3, 31, 33, 1025, 4095, 4096, 4097, 8193, 65537, (1 << 20) + 3}))
        exact_cases(radix, n, 5, seed, cases, [](const Case &) {});
    const int64_t shapes[][2] = {{1, 1000}, {3, 333}, {4096, 5}, {4097, 3}, {5000, 64}, {70001, 3}, {(1 << 16) + 1, 17}};
    for (const auto &shape : shapes)
        for (int mode = 0; mode < 3; ++mode)
            for (bool desc : {false, true}) {
                if (up_to_max_n({shape[0] * shape[1]}).empty()) continue;  // (the sanitizers' sizes)
                Case c{radix, shape[0], shape[1]};
                c.type = mode == 1 ? TC_INT32 : TC_FLOAT32;
                c.descending = desc;
                outputs(c, mode);
                std::vector<uint32_t> keys = make_keys(shape[0] * shape[1], c.type, Dist((mode + desc) % DISTS), ++seed);
                add_specials(keys, c.type, 3, seed);
                check(c, keys);
                ++cases;
            }
    for (int64_t n : up_to_max_n({(1 << 24) + 1}))
        for (int mode = 0; mode < 3; ++mode) {
            Case c{radix, n};
            c.type = tc_dtype(mode == 0 ? TC_UINT32 : mode == 1 ? TC_FLOAT32 : TC_INT32);
            c.descending = mode == 1;
            outputs(c, mode);
            std::vector<uint32_t> keys = make_keys(n, c.type, mode == 2 ? FEW : UNIFORM, ++seed);
            add_specials(keys, c.type, 101, seed);
            check(c, keys);
            ++cases;
        }
    EXPECT_GE(cases, 150);  // (261 in a full run; fewer under the sanitizers' TECAJ_MAX_N)
    EXPECT_EQ(checked - before, cases);
}

// best's rank sort against the CPU's stable sort, bit for bit and value for value: lengths about a
// block's 32 keys and a warp's segment (a multiple of 32 words), up to the longest the plan gives
// it on this device, every key type with its extremes, both directions, keys, argsort and the
// caller's values, every distribution (equal keys: every place from the index alone).
TEST(Urejanje, RankExact) {
    REQUIRE_GPU();
    const int best = find("best");
    const tc_device d = device();
    tc_urejanje_plan p;
    ASSERT_EQ(TC_OK, plan(best, 1, 1, false, 0, &d, &p));
    const int64_t most = p.rank_most;
    ASSERT_GE(most, 1024) << "the rank sort's longest array on this device (or TECAJ_EMULATE's)";
    std::vector<int64_t> lengths;
    for (int64_t n : up_to_max_n({1, 2, 3, 31, 32, 33, 255, 256, 257, 1025, 4095, 4096, 4097, 8193, most - 1, most}))
        if (n <= most) lengths.push_back(n);
    const int64_t before = checked;
    int64_t cases = 0;
    uint64_t seed = 11000;
    for (int64_t n : lengths)
        exact_cases(best, n, 3, seed, cases, [&](const Case &c) {
            tc_urejanje_plan q;
            ASSERT_EQ(TC_OK, plan(best, c.n, 1, c.pairs, 0, &d, &q, 0, c.type, c.descending));
            ASSERT_EQ(q.rank, 1) << describe(c);
        });
    // the longest in place (keys; pairs with the caller's values, each over its input)
    for (int mode : {0, 2})
        for (int64_t n : up_to_max_n({most})) {
            Case c{best, n};
            c.in_place = true;
            c.pairs = c.given_values = mode == 2;
            check(c, make_keys(n, c.type, UNIFORM, ++seed));
            ++cases;
        }
    // a block's words past 48 KiB of shared memory (the kernel opts in): lengths the plan gives the
    // rank sort only on a GPU of some 300 SMs or more, planned for 600 and run on this one
    for (int64_t n : up_to_max_n({12032, 12033, 16000}))
        for (bool pairs : {false, true}) {
            Case c{best, n};
            c.sms = 600;
            c.pairs = pairs;
            tc_device many = d;
            many.multiprocessors = c.sms;
            ASSERT_EQ(TC_OK, plan(best, n, 1, pairs, 0, &many, &p));
            ASSERT_EQ(p.rank, 1) << describe(c);
            EXPECT_EQ(p.launch.shared_bytes > 48 * 1024, n > 12032) << describe(c);
            std::vector<uint32_t> keys = make_keys(n, c.type, FEW, ++seed);
            add_specials(keys, c.type, 7, seed);
            check(c, keys);
            ++cases;
        }
    // one key past the line: the network runs (its one-array path, which no other test's size takes)
    ASSERT_EQ(TC_OK, plan(best, most + 1, 1, false, 0, &d, &p));
    EXPECT_EQ(p.rank, 0) << "one key past the rank sort's longest";
    for (int64_t n : up_to_max_n({most + 1}))
        for (bool pairs : {false, true}) {
            Case c{best, n};
            c.pairs = pairs;
            check(c, make_keys(n, c.type, UNIFORM, ++seed));
            ++cases;
        }
    ASSERT_EQ(TC_OK, plan(best, 1000, 2, false, 0, &d, &p));
    EXPECT_EQ(p.rank, 0) << "a batch";
    EXPECT_GE(cases, 100);  // (300 on an H100; fewer where the device's line is lower, or under TECAJ_MAX_N)
    EXPECT_EQ(checked - before, cases);
}

// The keys of a radix pass's tile for the request's threads (radix.cuh's pass shapes).
static int64_t radix_tile(int threads) { return threads == 384 ? 384 * 20 : int64_t(threads) * 16; }

// radix where the passes that run differ: one, two, three or four that move keys (uint32 keys
// below 2^8, 2^16, 2^24, or any) or none (equal keys), so that the first pass writes the output or
// scratch, each alone, in place or not, and a batch whose arrays run different sets (in one pass
// some arrays write scratch, others the output); every pass shape, lengths of whole tiles only and
// one key more.
TEST(Urejanje, RadixPassSets) {
    REQUIRE_GPU();
    const int radix = find("radix");
    ASSERT_GE(radix, 0);
    const int64_t before = checked;
    int64_t cases = 0;
    uint64_t seed = 13000;
    // keys that move in `passes` passes (0: equal keys)
    const auto keys_for = [&](int64_t n, int passes) {
        std::vector<uint32_t> k = make_keys(n, TC_UINT32, passes == 0 ? EQUAL : UNIFORM, ++seed);
        if (passes > 0 && passes < 4)
            for (uint32_t &x : k) x &= (1u << (8 * passes)) - 1u;
        return k;
    };
    int64_t lengths = 0;
    for (int threads : {256, 384, 512}) {
        const int64_t tile = radix_tile(threads);
        for (int64_t n : up_to_max_n({2 * tile, 2 * tile + 1})) {
            ++lengths;
            for (bool in_place : {false, true})
                for (int mode = 0; mode < 3; ++mode) {
                    Case c{radix, n};
                    c.threads = threads;
                    c.type = TC_UINT32;
                    outputs(c, mode);
                    c.in_place = in_place;
                    for (int passes = 0; passes <= 4; ++passes) {
                        check(c, keys_for(n, passes));
                        ++cases;
                    }
                    c.batch = 4;  // arrays of 4, 3, 0 and 1 passes
                    c.descending = mode == 1;
                    std::vector<uint32_t> keys;
                    for (int passes : {4, 3, 0, 1}) {
                        const std::vector<uint32_t> k = keys_for(n, passes);
                        keys.insert(keys.end(), k.begin(), k.end());
                    }
                    check(c, keys);
                    ++cases;
                }
        }
    }
    EXPECT_GE(lengths, 1);
    EXPECT_EQ(cases, lengths * 2 * 3 * 6);
    EXPECT_EQ(checked - before, cases);
}

// radix's padded scratch (integer keys alone from 3 x 2^25: each digit's run moved on in scratch by
// its digit times the pad): uniform keys with the type's extremes (now and then a tile's keys span
// two runs), few distinct keys descending, keys whose first 255 take every digit but the last once
// in the low byte (the second pass's first tile spans 256 runs), the last key alone in the last
// digit (the last, short tile spans two), in place, three passes (the first writes the output,
// the second scratch) alone and in place (a pass added), a batch of two whose arrays run four
// passes and three, the 512 block (and the 256, which does not pad) and the 384 where the device
// holds it, low bytes of three values only (tiles span runs across empty digits), and uniform
// int32 keys descending with their extremes.
TEST(Urejanje, RadixPaddedScratch) {
    REQUIRE_GPU();
    const int radix = find("radix");
    ASSERT_GE(radix, 0);
    const int64_t before = checked;
    int64_t cases = 0;
    uint64_t seed = 17000;
    const std::vector<int64_t> lengths = up_to_max_n({(int64_t(3) << 25) + 3});
    if (lengths.empty()) GTEST_SKIP() << "3 x 2^25 + 3 keys is past TECAJ_MAX_N";
    for (int64_t n : lengths) {
        tc_urejanje_plan p;
        tc_device d = device();
        ASSERT_EQ(TC_OK, plan(radix, n, 1, false, 0, &d, &p, 0, TC_UINT32));
        // (the 256 block does not pad: a device whose SM holds neither larger block, or an emulated one)
        const bool pads = p.launch.threads != 256;
        EXPECT_EQ(p.launch.launches, pads ? 3 + 4 : 2 + 4) << "histogram, scan, the spans where padded, four passes";
        if (pads) {
            tc_urejanje_plan unpadded;
            ASSERT_EQ(TC_OK, plan(radix, n, 1, false, p.launch.threads, &d, &unpadded, 0, TC_FLOAT32));
            EXPECT_EQ(p.launch.scratch_bytes - unpadded.launch.scratch_bytes, padded_extra(p)) << "padded scratch's bytes";
        }
        tc_urejanje_plan at_384;
        const bool holds_384 = plan(radix, n, 1, false, 384, &d, &at_384, 0, TC_UINT32) == TC_OK;
        for (int k = 0; k < 13; ++k) {
            Case c{radix, n};
            c.type = k == 1 || k == 12 ? TC_INT32 : TC_UINT32;
            c.descending = k == 1 || k == 12;
            c.in_place = k == 4 || k == 6;
            c.batch = k == 7 ? 2 : 1;
            c.threads = k == 8 ? 256 : k == 9 ? 512 : k == 10 && holds_384 ? 384 : 0;
            std::vector<uint32_t> keys = make_keys(n * c.batch, c.type, k == 1 ? FEW : UNIFORM, ++seed);
            if (k == 0 || k == 8 || k == 9 || k == 12) add_specials(keys, c.type, 101, seed);
            if (k == 11)
                for (uint32_t &x : keys) x = (x & ~0xffu) | (x % 3 == 0 ? 0u : x % 3 == 1 ? 0x80u : 0xffu);
            if (k == 2)
                for (int64_t i = 0; i < n; ++i) keys[i] = (keys[i] & ~0xffu) | uint32_t(i < 255 ? i : 255);
            if (k == 3)
                for (int64_t i = 0; i < n; ++i) keys[i] = (keys[i] & ~0xffu) | uint32_t(i == n - 1 ? 255 : keys[i] % 255);
            if (k == 5 || k == 6)
                for (uint32_t &x : keys) x &= 0xffffffu;
            if (k == 7)  // (the second array: three passes)
                for (int64_t i = n; i < 2 * n; ++i) keys[i] &= 0xffffffu;
            check(c, keys);
            ++cases;
        }
    }
    EXPECT_EQ(checked - before, cases);
}

// radix's float keys where the first pass to run is not pass 0 (every key's order word ends in the
// same byte, so pass 0 is skipped): that pass reads the caller's NaNs of any sign and payload,
// the ones after it read NaNs the sort wrote (radix_key_out); the zeros' place and bits where pass
// 0 is skipped; in place with passes 1 and 2 alone; a batch whose arrays start at different
// passes. Pairs, so that NaNs out of input order show in the values.
TEST(Urejanje, RadixFloatFromALaterPass) {
    REQUIRE_GPU();
    const int radix = find("radix");
    ASSERT_GE(radix, 0);
    const int64_t before = checked;
    int64_t cases = 0;
    uint64_t seed = 15000;
    // keys whose order words share their low byte: NaNs (every payload and sign: the word all ones),
    // positives ending in 0xff, negatives ending in 0x00 (word ~bits); or (zeros) words ending in
    // 0x00: +-0, positives ending in 0x00, negatives ending in 0xff. top: positives under the
    // biggest finite exponent's byte (the word's top byte 0xff: pass 3 skipped too)
    const auto keys_for = [&](int64_t n, bool zeros, bool top) {
        std::mt19937_64 rng(++seed);
        std::vector<uint32_t> k(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) {
            const uint32_t r = uint32_t(rng()), mid = r & 0x7fff00u;
            if (top) k[i] = i % 3 == 0 ? 0x7f800001u | (r & 0x7fffffu) : 0x7f0000ffu | mid;  // (positive NaNs only)
            else if (zeros) k[i] = i % 3 == 0 ? (r & 1u ? 0x80000000u : 0u) : r & 2u ? 0x3f800000u | mid : 0xbf8000ffu | mid;
            else if (i % 3 == 0) k[i] = (r & 0x80000000u) | 0x7f800001u | (r & 0x7fffffu);  // NaN of either sign
            else k[i] = r & 1u ? 0x3f8000ffu | mid : 0xbf800000u | mid;
        }
        return k;
    };
    int64_t lengths = 0;
    for (int threads : {256, 384, 512}) {
        const int64_t n = radix_tile(threads) * 2 + 1;
        if (up_to_max_n({n}).empty()) continue;  // (the sanitizers' sizes)
        ++lengths;
        for (int mode = 1; mode < 3; ++mode)
            for (bool desc : {false, true}) {
                Case c{radix, n};
                c.threads = threads;
                c.type = TC_FLOAT32;
                c.descending = desc;
                outputs(c, mode);
                for (bool zeros : {false, true}) {
                    check(c, keys_for(n, zeros, false));
                    ++cases;
                }
                c.in_place = true;  // passes 1 and 2: an even count, none forced
                check(c, keys_for(n, false, true));
                ++cases;
                c.in_place = false;
                c.batch = 2;  // array 0 from pass 0 (uniform keys and specials), array 1 from pass 1
                std::vector<uint32_t> keys = make_keys(n, TC_FLOAT32, UNIFORM, ++seed);
                add_specials(keys, TC_FLOAT32, 5, seed);
                const std::vector<uint32_t> later = keys_for(n, false, false);
                keys.insert(keys.end(), later.begin(), later.end());
                check(c, keys);
                ++cases;
            }
    }
    EXPECT_GE(lengths, 1);
    EXPECT_EQ(cases, lengths * 2 * 2 * 4);
    EXPECT_EQ(checked - before, cases);
}

// radix's other pass shapes (the request's threads: 384 x 20 and 512 x 16 keys a tile) against the
// CPU's stable sort: lengths about their tiles, a last tile of one key, every key type, both
// directions, keys, argsort and the caller's values, batches, in place, and 2^22 + 1.
TEST(Urejanje, RadixExactEveryPassShape) {
    REQUIRE_GPU();
    const int radix = find("radix");
    ASSERT_GE(radix, 0);
    const int64_t before = checked;
    int64_t cases = 0;
    uint64_t seed = 11000;
    for (int threads : {384, 512}) {
        const int64_t tile = radix_tile(threads);
        for (int64_t n : up_to_max_n({4097, tile - 1, tile, tile + 1, 2 * tile + 1, 65537, (1 << 20) + 3}))
            for (tc_dtype t : {TC_FLOAT32, TC_INT32, TC_UINT32})
                for (int mode = 0; mode < 3; ++mode) {
                    Case c{radix, n};
                    c.threads = threads;
                    c.type = t;
                    c.descending = (cases & 1) != 0;
                    outputs(c, mode);
                    c.in_place = mode == 2 && t == TC_UINT32;
                    const Dist dist = Dist((cases + n) % DISTS);
                    std::vector<uint32_t> keys = make_keys(n, t, dist, ++seed);
                    if (dist != SORTED && dist != REVERSED) add_specials(keys, t, 5, seed);
                    check(c, keys);
                    ++cases;
                }
        const int64_t shapes[][2] = {{tile + 1, 5}, {70001, 3}, {5000, 64}};
        for (const auto &shape : shapes)
            for (int mode = 0; mode < 3; ++mode) {
                if (up_to_max_n({shape[0] * shape[1]}).empty()) continue;  // (the sanitizers' sizes)
                Case c{radix, shape[0], shape[1]};
                c.threads = threads;
                c.type = mode == 1 ? TC_INT32 : TC_FLOAT32;
                c.descending = mode == 1;
                outputs(c, mode);
                std::vector<uint32_t> keys = make_keys(shape[0] * shape[1], c.type, Dist(mode % DISTS), ++seed);
                add_specials(keys, c.type, 3, seed);
                check(c, keys);
                ++cases;
            }
        for (int64_t n : up_to_max_n({(1 << 22) + 1}))
            for (int mode = 0; mode < 2; ++mode) {
                Case c{radix, n};
                c.threads = threads;
                c.type = mode == 0 ? TC_UINT32 : TC_FLOAT32;
                c.descending = mode == 1;
                c.pairs = true;
                check(c, make_keys(n, c.type, UNIFORM, ++seed));
                ++cases;
            }
    }
    EXPECT_GE(cases, 20);
    EXPECT_EQ(checked - before, cases);
}

// The reference itself, without a GPU: stable_order's counting sort (past 2^22 keys) gives the
// comparison sort's indices, ties (few distinct keys) and NaNs, -0 and +0 included, both directions.
TEST(Urejanje, CpuReferenceCountingSortAgrees) {
    const int64_t n = (int64_t(1) << 22) + 5;
    uint64_t seed = 18000;
    for (tc_dtype t : {TC_UINT32, TC_INT32, TC_FLOAT32})
        for (Dist d : {UNIFORM, FEW})
            for (bool desc : {false, true}) {
                std::vector<uint32_t> keys = make_keys(n, t, d, ++seed);
                add_specials(keys, t, 97, seed);
                std::vector<uint32_t> want(static_cast<size_t>(n));
                std::iota(want.begin(), want.end(), 0u);
                std::stable_sort(want.begin(), want.end(), [&](uint32_t x, uint32_t y) {
                    const uint32_t ox = order_key(keys[x], t), oy = order_key(keys[y], t);
                    return desc ? ox > oy : ox < oy;
                });
                ASSERT_EQ(stable_order(keys.data(), n, t, desc), want) << "type " << t << " dist " << d << (desc ? " descending" : "");
            }
}

TEST(Urejanje, PlanRefusesBadArgumentsWithoutGPU) {
    const tc_device d = fake_device();
    tc_urejanje_plan p;
    EXPECT_EQ(TC_BAD_ARGUMENT, plan(0, 0, 1, false, 256, &d, &p));     // n < 1
    EXPECT_EQ(TC_BAD_ARGUMENT, plan(0, 10, 0, false, 256, &d, &p));    // batch < 1
    EXPECT_EQ(TC_BAD_ARGUMENT, plan(0, 10, 1, false, 96, &d, &p));     // not a power of two
    EXPECT_EQ(TC_BAD_ARGUMENT, plan(0, 10, 1, false, 2048, &d, &p));   // > 1024
    EXPECT_EQ(TC_BAD_ARGUMENT, tc_urejanje_make_plan(nullptr, &d, &p));
    EXPECT_EQ(TC_BAD_ARGUMENT, plan(0, 10, 1, false, 256, &d, &p, 0, TC_FLOAT64));  // 32-bit keys only
    ASSERT_EQ(TC_OK, plan(0, 10, 1, false, 256, &d, &p, 0, TC_UINT32, true));
    EXPECT_EQ(p.type, TC_UINT32);
    EXPECT_EQ(p.descending, 1);
    for (int v = 0; v < tc_variant_count(kProgram); ++v)  // every variant sizes its own grids
        EXPECT_EQ(TC_OUTSIDE_DOMAIN, plan(v, 1000, 1, false, 256, &d, &p, 5));
    EXPECT_EQ(TC_OUTSIDE_DOMAIN, plan(0, int64_t(1) << 20, int64_t(1) << 21, false, 256, &d, &p));  // 2^41 keys
    ASSERT_EQ(TC_OK, plan(find("nl"), 1025, 3, true, 256, &d, &p));
    EXPECT_EQ(p.padded, 2048);
    EXPECT_EQ(p.launch.out_count, 3 * 1025);
    EXPECT_EQ(p.launch.items, 3 * 1025);
    EXPECT_EQ(p.launch.scratch_bytes, size_t(8 * 2048 * 3));  // pairs: 8-byte words
    EXPECT_GT(p.launch.blocks, 0);                            // the grid actually launched
    EXPECT_EQ(p.launch.threads, 256);                         // and its block: chunks of 512
    ASSERT_EQ(TC_OK, plan(find("nl"), 100, 1, false, 256, &d, &p));
    EXPECT_EQ(p.launch.threads, 64);  // a chunk of the whole 128: a thread a pair, not the request's 256
    ASSERT_EQ(TC_OK, plan(find("o"), 1, 1, false, 256, &d, &p));
    EXPECT_EQ(p.launch.threads, 256);  // no step to launch: the request's
    // o: pack, unpack and one launch per step: log2(2048) = 11 gives 66 steps
    ASSERT_EQ(TC_OK, plan(find("o"), 2048, 1, false, 256, &d, &p));
    EXPECT_EQ(p.launch.launches, 2 + 66);
    EXPECT_EQ(p.launch.blocks, 2048 / 256);
    // a lower bound of the bytes: pack (read 4, write 4 a key), 66 steps reading every word, unpack
    EXPECT_DOUBLE_EQ(p.launch.bytes_moved, 4.0 * 2048 * (2 + 66 + 2));
    // radix: one block an array up to 4096 keys (no scratch); past it, the histogram, the scan
    // and 4 passes over tiles of 4096 that never span two arrays
    const int radix = find("radix");
    ASSERT_GE(radix, 0);
    ASSERT_EQ(TC_OK, plan(radix, 4096, 7, true, 0, &d, &p));
    EXPECT_EQ(p.launch.threads, 256);
    EXPECT_EQ(p.radix_tiles, 0);
    EXPECT_EQ(p.launch.launches, 1);
    EXPECT_EQ(p.launch.blocks, 7);
    EXPECT_EQ(p.launch.scratch_bytes, 0u);
    ASSERT_EQ(TC_OK, plan(radix, 4097, 3, true, 256, &d, &p, 0, TC_INT32, true));
    EXPECT_EQ(p.radix_tiles, 2);
    EXPECT_EQ(p.launch.launches, 2 + 4);
    EXPECT_EQ(p.launch.blocks, 3 * 2);  // the passes' grid
    EXPECT_GE(p.radix_chunk, 4096);
    EXPECT_EQ(p.radix_chunk % 4096, 0);
    // the output's ping-pong partners (keys and values, 2 words a key) and a status word a tile and digit
    EXPECT_GE(p.launch.scratch_bytes, size_t(4 * 2 * 3 * 4097 + 8 * 6 * 256));
    EXPECT_LE(p.launch.scratch_bytes, size_t(4 * 2 * 3 * 4097 + 8 * 6 * 256 + (1 << 16)));
    EXPECT_DOUBLE_EQ(p.launch.bytes_moved, 12.0 * 3 * 4097);  // a lower bound: read the keys, write the pairs
    // integer keys alone from 3 x 2^25 keys an array: padded scratch (a pad of n / 65536 words and a
    // line, in whole lines, a digit) and one launch more, the tiles' spans; pairs, float keys and
    // the 256 block not
    const int64_t padded = (int64_t(3) << 25) + 3;
    ASSERT_EQ(TC_OK, plan(radix, padded, 2, false, 512, &d, &p, 0, TC_UINT32));
    EXPECT_EQ(p.launch.launches, 3 + 4);
    const tc_urejanje_plan with_pad = p;
    ASSERT_EQ(TC_OK, plan(radix, padded, 2, false, 512, &d, &p, 0, TC_FLOAT32));
    EXPECT_EQ(p.launch.launches, 2 + 4);
    EXPECT_EQ(p.radix_tiles, with_pad.radix_tiles);
    EXPECT_EQ(with_pad.launch.scratch_bytes - p.launch.scratch_bytes, padded_extra(with_pad)) << "padded scratch's bytes";
    ASSERT_EQ(TC_OK, plan(radix, padded, 2, true, 512, &d, &p, 0, TC_INT32));
    EXPECT_EQ(p.launch.launches, 2 + 4);
    ASSERT_EQ(TC_OK, plan(radix, padded, 2, false, 256, &d, &p, 0, TC_INT32));
    EXPECT_EQ(p.launch.launches, 2 + 4);
    ASSERT_EQ(TC_OK, plan(radix, padded - 4, 2, false, 512, &d, &p, 0, TC_INT32));
    EXPECT_EQ(p.launch.launches, 2 + 4);
    // the plan's block: 256 x 16 below one 512 x 16 tile for every SM, 512 x 16 from there
    const int64_t big = int64_t(d.multiprocessors) * 8192;
    ASSERT_EQ(TC_OK, plan(radix, big - 1, 1, true, 0, &d, &p));
    EXPECT_EQ(p.launch.threads, 256);
    EXPECT_EQ(p.radix_tiles, (big - 1 + 4095) / 4096);
    ASSERT_EQ(TC_OK, plan(radix, big, 1, true, 0, &d, &p));
    EXPECT_EQ(p.launch.threads, 512);
    EXPECT_EQ(p.radix_tiles, d.multiprocessors);
    tc_device t4;  // (64 KiB of shared memory an SM: not two blocks of 512 x 16 pairs)
    ASSERT_EQ(TC_OK, tc_device_profile("t4", &t4));
    ASSERT_EQ(TC_OK, plan(radix, (1 << 24) + 1, 1, true, 0, &t4, &p));
    EXPECT_EQ(p.launch.threads, 256);
    ASSERT_EQ(TC_OK, plan(radix, (1 << 24) + 1, 1, false, 0, &d, &p));
    EXPECT_EQ(p.launch.threads, 512);
    EXPECT_EQ(p.radix_tiles, 2049);
    EXPECT_LE(p.launch.scratch_bytes, size_t(4 * ((1 << 24) + 1) + 8 * 2049 * 256 + (1 << 16)));  // keys: one word a key
    // keys alone past twice the L2 (50 MiB here: 2^25 keys and up): 384 x 20 where an SM holds
    // three such blocks as the kernels are built (without a GPU: threads alone; PTX for sm_75 run
    // on a larger GPU holds two, and the plan keeps 512 x 16); pairs keep 512 x 16. An emulated
    // device is planned by its own architecture's storage, which fits three blocks wherever the
    // profile's threads do (every profile; the machine's storage may not: sm_90's in a 3060), so
    // the kernel's registers and the profile's threads decide
    const auto holds_384 = [&](const tc_device &dev) {
        const tc_variant *v = tc_variant_at(kProgram, radix);
        int found = 0;
        bool holds = true;
        for (int k = 0; k < v->kernel_count; ++k)
            if (std::string(v->kernels[k].name).rfind("radix_pass<keys,384x20,", 0) == 0) {
                ++found;
                const void *f = v->kernels[k].function;
                holds = holds && (dev.profile[0] != 0 ? tc::blocks_per_sm(dev, 384, tc::kernel_registers(f), 0)
                                                      : tc::resident_blocks(dev, 384, f)) >= 3;
            }
        EXPECT_EQ(found, 3);  // (integer, float32, and the integer kernel of padded scratch)
        return holds;
    };
    const int keys_past_l2 = holds_384(d) ? 384 : 512;
    const int64_t past_l2 = int64_t(d.l2_bytes) / 2 + 1;
    ASSERT_EQ(TC_OK, plan(radix, past_l2, 1, false, 0, &d, &p));
    EXPECT_EQ(p.launch.threads, keys_past_l2);
    EXPECT_EQ(p.radix_tiles, (past_l2 + radix_tile(keys_past_l2) - 1) / radix_tile(keys_past_l2));
    ASSERT_EQ(TC_OK, plan(radix, past_l2 - 1, 1, false, 0, &d, &p));
    EXPECT_EQ(p.launch.threads, 512);
    ASSERT_EQ(TC_OK, plan(radix, past_l2, 1, true, 0, &d, &p));
    EXPECT_EQ(p.launch.threads, 512);
    ASSERT_EQ(TC_OK, plan(find("best"), past_l2, 1, false, 0, &d, &p));  // (best: radix's plan)
    EXPECT_EQ(p.launch.threads, keys_past_l2);
    // every array together past the L2, each array one 384 x 20 tile for every SM: 384; arrays
    // shorter than that keep the old rule
    const int64_t tile_a_sm = int64_t(d.multiprocessors) * radix_tile(384);
    ASSERT_EQ(TC_OK, plan(radix, tile_a_sm, past_l2 / tile_a_sm + 1, false, 0, &d, &p));
    EXPECT_EQ(p.launch.threads, holds_384(d) ? 384 : 256);  // (an array under one 512 x 16 tile an SM)
    ASSERT_EQ(TC_OK, plan(radix, 5000, past_l2 / 5000 + 1, false, 0, &d, &p));
    EXPECT_EQ(p.launch.threads, 256);
    // a T4's SM holds two blocks of 384 (by threads) and one of 512 x 16 (by shared memory): 256;
    // an RTX 3060's three of 384 x 20 keys as sm_86 code lays them out (no direct scatter), past
    // its small L2; an A100's three of sm_80's (the direct scatter's larger storage)
    ASSERT_EQ(TC_OK, plan(radix, (1 << 24) + 1, 1, false, 0, &t4, &p));
    EXPECT_EQ(p.launch.threads, 256);
    tc_device rtx3060;
    ASSERT_EQ(TC_OK, tc_device_profile("rtx3060", &rtx3060));
    ASSERT_EQ(TC_OK, plan(radix, 1 << 22, 1, false, 0, &rtx3060, &p));
    EXPECT_EQ(p.launch.threads, holds_384(rtx3060) ? 384 : 512);
    tc_device a100;
    ASSERT_EQ(TC_OK, tc_device_profile("a100", &a100));
    ASSERT_EQ(TC_OK, plan(radix, int64_t(a100.l2_bytes) / 2 + 1, 1, false, 0, &a100, &p));
    EXPECT_EQ(p.launch.threads, holds_384(a100) ? 384 : 512);
    EXPECT_EQ(TC_OUTSIDE_DOMAIN, plan(radix, 5000, 1, false, 128, &d, &p));  // its pass shapes: 256, 384, 512 threads
    EXPECT_EQ(TC_OUTSIDE_DOMAIN, plan(radix, 1000, 1, false, 128, &d, &p));  // (also where the block sort runs)
    // the passes' block names the tile: 384 x 20 and 512 x 16 keys; the block sort stays 256 x 16
    ASSERT_EQ(TC_OK, plan(radix, 4097, 2, true, 384, &d, &p));
    EXPECT_EQ(p.launch.threads, 384);
    EXPECT_EQ(p.radix_tiles, 1);
    ASSERT_EQ(TC_OK, plan(radix, 7681, 2, true, 384, &d, &p));
    EXPECT_EQ(p.radix_tiles, 2);
    ASSERT_EQ(TC_OK, plan(radix, 8193, 1, false, 512, &d, &p));
    EXPECT_EQ(p.radix_tiles, 2);
    EXPECT_EQ(p.launch.blocks, 2);
    ASSERT_EQ(TC_OK, plan(radix, 4096, 1, false, 384, &d, &p));
    EXPECT_EQ(p.radix_tiles, 0);
    EXPECT_EQ(p.launch.threads, 256);
    EXPECT_EQ(TC_OUTSIDE_DOMAIN, plan(radix, int64_t(1) << 32, 1, false, 0, &d, &p));  // 32-bit counts
    EXPECT_EQ(TC_OK, plan(find("best"), int64_t(1) << 32, 1, false, 0, &d, &p));  // the variant its domain names
    EXPECT_EQ(p.radix, 0);  // (best past radix's domain: the network)
}

// best chooses from the device: one array of at most sqrt(SMs x 2^19) keys takes the rank sort;
// arrays longer than its SMs x 256 keys take radix's sort (the same plan as radix's), shorter ones
// the network, one array or a batch, keys or pairs, any key type, but arrays of 2049 to 4096 keys
// radix's block sort with pairs, or with keys in a batch of at least the SMs; given threads keep
// the network. The thresholds follow the SMs: 2^15 keys take radix on the t4's 40 and the network
// on the h200's 132. No GPU needed.
TEST(Urejanje, BestChoosesByTheDevice) {
    const int best = find("best"), radix = find("radix");
    ASSERT_GE(best, 0);
    ASSERT_GE(radix, 0);
    int64_t choices = 0;
    std::vector<int64_t> aboves;
    for (const char *name : {"t4", "rtx3060", "a100", "h200"}) {
        tc_device d;
        ASSERT_EQ(TC_OK, tc_device_profile(name, &d)) << name;
        const int64_t above = int64_t(d.multiprocessors) * 256;
        // the rank sort's line: n^2 comparisons at most the SMs x 2^19 (its words fit every profile's block)
        const int64_t most = int64_t(std::sqrt(double(d.multiprocessors) * double(1 << 19)));
        aboves.push_back(above);
        tc_urejanje_plan p, r;
        for (int64_t n : {int64_t(1), int64_t(1000), int64_t(2048), int64_t(2049), int64_t(4096), int64_t(4097), most,
                          most + 1, above - 1, above, above + 1, int64_t(1) << 20, (int64_t(1) << 24) + 1})
            for (int64_t batch : {int64_t(1), int64_t(3), int64_t(d.multiprocessors) - 1, int64_t(d.multiprocessors)})
                for (int mode = 0; mode < 3; ++mode) {  // keys float32, pairs int32, pairs uint32 descending
                    const bool pairs = mode > 0;
                    const tc_dtype type = mode == 0 ? TC_FLOAT32 : mode == 1 ? TC_INT32 : TC_UINT32;
                    ASSERT_EQ(TC_OK, plan(best, n, batch, pairs, 0, &d, &p, 0, type, mode == 2)) << name << " n=" << n;
                    EXPECT_EQ(p.radix_above, above) << name;
                    const bool block = n > 2048 && n <= 4096 && (pairs || batch >= d.multiprocessors);
                    const bool rank = batch == 1 && n <= most;
                    EXPECT_EQ(p.rank_most, most) << name;
                    EXPECT_EQ(p.rank, rank ? 1 : 0) << name << " n=" << n << " batch=" << batch;
                    EXPECT_EQ(p.radix, !rank && (n > 4096 ? n > above : block) ? 1 : 0)
                        << name << " n=" << n << " batch=" << batch << " pairs=" << pairs;
                    if (p.rank) {  // one launch, a block of 32 keys; scratch for an output over its input
                        EXPECT_EQ(p.launch.launches, 1);
                        EXPECT_EQ(p.launch.threads, 256);
                        EXPECT_EQ(p.launch.blocks, (n + 31) / 32);
                        EXPECT_GE(p.launch.scratch_bytes, size_t((pairs ? 8 : 4) * n));
                        EXPECT_LE(p.launch.shared_bytes, d.shared_per_block_optin);
                    } else if (p.radix) {  // radix's own plan, under best's name
                        ASSERT_EQ(TC_OK, plan(radix, n, batch, pairs, 0, &d, &r, 0, type, mode == 2));
                        EXPECT_EQ(r.radix, 1);
                        EXPECT_EQ(p.launch.variant, best);
                        EXPECT_EQ(p.launch.threads, r.launch.threads);
                        EXPECT_EQ(p.launch.launches, r.launch.launches);
                        EXPECT_EQ(p.launch.blocks, r.launch.blocks);
                        EXPECT_EQ(p.launch.scratch_bytes, r.launch.scratch_bytes);
                        EXPECT_EQ(p.radix_tiles, r.radix_tiles);
                        EXPECT_EQ(p.radix_chunk, r.radix_chunk);
                        EXPECT_DOUBLE_EQ(p.launch.bytes_moved, r.launch.bytes_moved);
                    } else {
                        EXPECT_EQ(p.radix_tiles, 0);
                        EXPECT_GE(p.launch.scratch_bytes, size_t((pairs ? 8 : 4) * p.padded * batch));  // the network's words
                    }
                    ++choices;
                }
        ASSERT_EQ(TC_OK, plan(best, above + 1, 1, true, 512, &d, &p));  // threads size the network's block
        EXPECT_EQ(p.radix, 0) << name;
        ASSERT_EQ(TC_OK, plan(best, 4096, 1, true, 256, &d, &p));  // and below the line too
        EXPECT_EQ(p.radix, 0) << name;
        ASSERT_EQ(TC_OK, plan(best, 4096, d.multiprocessors, false, 256, &d, &p));
        EXPECT_EQ(p.radix, 0) << name;
        ASSERT_EQ(TC_OK, plan(best, 1024, 1024, true, 0, &d, &p));  // a batch of short arrays, 2^20 keys in all
        EXPECT_EQ(p.radix, 0) << name;
        // the network's threads are its first launch's block (16 words a thread), not the request's 512
        EXPECT_EQ(p.launch.threads, 64) << name;
        EXPECT_EQ(p.launch.blocks, 1024) << name;
        ASSERT_EQ(TC_OK, plan(best, 4096, 2, false, 0, &d, &p));  // a block of 4096 an array
        EXPECT_EQ(p.launch.threads, 256) << name;
        EXPECT_EQ(p.launch.blocks, 2) << name;
        ASSERT_EQ(TC_OK, plan(best, 300, 5, false, 0, &d, &p));  // shorter than 1024: a thread a pair of the 512
        EXPECT_EQ(p.launch.threads, 256) << name;
        EXPECT_EQ(p.launch.blocks, 5) << name;
    }
    // a GPU of 12 SMs, whose SMs x 256 line (3072) lies below the block sort's tile: arrays of up
    // to 4096 keys follow the block sort's rule alone, longer ones the line
    tc_device small;
    ASSERT_EQ(TC_OK, tc_device_profile("t4", &small));
    small.multiprocessors = 12;
    const struct {
        int64_t n, batch;
        bool pairs, radix;
    } cases[] = {{3000, 2, false, false}, {4096, 11, false, false}, {4096, 12, false, true}, {2048, 2, true, false},
                 {3000, 2, true, true},   {4097, 2, false, true},   {3072, 2, false, false}};  // (batches: one array takes the rank sort)
    for (const auto &c : cases) {
        tc_urejanje_plan q;
        ASSERT_EQ(TC_OK, plan(best, c.n, c.batch, c.pairs, 0, &small, &q));
        EXPECT_EQ(q.radix_above, 3072);
        EXPECT_EQ(q.radix, c.radix ? 1 : 0) << "12 SMs: n=" << c.n << " batch=" << c.batch << " pairs=" << c.pairs;
    }
    EXPECT_EQ(choices, 4 * 13 * 4 * 3);
    ASSERT_EQ(aboves.size(), 4u);
    EXPECT_LT(aboves.front(), aboves.back());  // t4's 40 SMs against h200's 132
    tc_device t4, h200;
    ASSERT_EQ(TC_OK, tc_device_profile("t4", &t4));
    ASSERT_EQ(TC_OK, tc_device_profile("h200", &h200));
    tc_urejanje_plan p;
    ASSERT_EQ(TC_OK, plan(best, 1 << 15, 1, true, 0, &t4, &p));
    EXPECT_EQ(p.radix, 1);
    ASSERT_EQ(TC_OK, plan(best, 1 << 15, 1, true, 0, &h200, &p));
    EXPECT_EQ(p.radix, 0);
    ASSERT_EQ(TC_OK, plan(best, 1 << 18, 1, true, 0, &h200, &p));
    EXPECT_EQ(p.radix, 1);
    // an array that fits one of the network's blocks sorts in one launch (the h200's blocks hold
    // 8192 pairs; the t4's 4096, so there 8192 pairs take blocks of 1024 and three merges of two passes)
    ASSERT_EQ(TC_OK, plan(best, 4096, 2, false, 0, &h200, &p));
    EXPECT_EQ(p.launch.launches, 1);
    ASSERT_EQ(TC_OK, plan(best, 8192, 2, true, 0, &h200, &p));
    EXPECT_EQ(p.launch.launches, 1);
    ASSERT_EQ(TC_OK, plan(best, 8192, 2, true, 0, &t4, &p));
    EXPECT_EQ(p.launch.launches, 7);
    // the rank sort's line follows the SMs: 6000 keys take it on the h200's 132 (8319), not the t4's 40 (4579)
    ASSERT_EQ(TC_OK, plan(best, 6000, 1, true, 0, &h200, &p));
    EXPECT_EQ(p.rank, 1);
    ASSERT_EQ(TC_OK, plan(best, 6000, 1, true, 0, &t4, &p));
    EXPECT_EQ(p.rank, 0);
    for (int v = 0; v < tc_variant_count(kProgram); ++v) {  // radix is radix's; the networks' never
        if (v == best || v == find("cub")) continue;  // (CUB's plan asks the device for its temp storage)
        ASSERT_EQ(TC_OK, plan(v, 1 << 20, 1, false, 0, &t4, &p)) << v;
        EXPECT_EQ(p.radix, v == radix ? 1 : 0) << v;
    }
}

TEST(Urejanje, LaunchesAsPlanned) {
    REQUIRE_GPU();
    const tc_device d = device();
    tc_urejanje_plan cub;  // (CUB's plan asks the device for its temp storage)
    ASSERT_EQ(TC_OK, plan(find("cub"), 2048, 1, false, 0, &d, &cub));
    EXPECT_DOUBLE_EQ(cub.launch.bytes_moved, 8.0 * 2048);  // a lower bound: read the keys, write the keys
    EXPECT_EQ(cub.launch.blocks, 0);                       // CUB's own grids: not known
    struct Shape { int64_t n, batch; bool pairs; int threads; };
    for (const Shape sh : {Shape{1000, 3, false, 0}, Shape{1 << 16, 1, true, 0}, Shape{(1 << 20) + 1, 1, true, 0},
                           Shape{(1 << 20) + 1, 1, false, 64}, Shape{4096, 64, true, 0}, Shape{(1 << 22) + 5, 1, true, 0},
                           Shape{1000, 1, false, 0}, Shape{8193, 1, true, 0}})
        for (int v = 0; v < tc_variant_count(kProgram); ++v) {
            tc_urejanje_plan p;
            if (v == find("radix") && sh.threads != 0) {  // (256 threads only)
                EXPECT_EQ(TC_OUTSIDE_DOMAIN, plan(v, sh.n, sh.batch, sh.pairs, sh.threads, &d, &p));
                continue;
            }
            ASSERT_EQ(TC_OK, plan(v, sh.n, sh.batch, sh.pairs, sh.threads, &d, &p));
            const int64_t items = sh.n * sh.batch;
            DeviceBuffer<uint32_t> in(items), out(items), values(items);
            DeviceBuffer<unsigned char> scratch(p.launch.scratch_bytes);
            expect_launches_as_planned(kProgram, p.launch, [&](cudaStream_t s) {
                return tc_urejanje_run(&p, in.ptr, nullptr, out.ptr, values.ptr, scratch.ptr, s);
            }, std::string(tc_variant_at(kProgram, v)->name) + " n=" + std::to_string(sh.n) + " batch=" +
                   std::to_string(sh.batch) + (sh.pairs ? " pairs" : " keys"));
        }
}
