// urejanje on the GPU: every variant against a CPU sort of the same keys, element by element
// (any NaN matches any NaN, -0.0 matches +0.0: they compare equal), plus a permutation check:
// with pairs every value indexes an input key with the same bits, each index once; with keys
// only the -0.0s are all kept. Sizes that are not powers of two, every key type, both
// directions, keys and pairs, batches and input distributions.
#include "util.h"
#include "tecaj/urejanje.h"
#include <algorithm>
#include <numeric>

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

struct Case {
    int variant;
    int64_t n, batch = 1;
    tc_dtype type = TC_FLOAT32;
    bool descending = false, pairs = false;
    int threads = 0;
};

std::string describe(const Case &c) {
    return std::string(tc_variant_at(kProgram, c.variant)->name) + " n=" + std::to_string(c.n) +
           " batch=" + std::to_string(c.batch) + " type=" + std::to_string(c.type) + (c.descending ? " desc" : " asc") +
           (c.pairs ? " pairs" : " keys") + " threads=" + std::to_string(c.threads);
}

// The same bits, or (floats) both NaN.
bool same_bits(uint32_t a, uint32_t b, tc_dtype t) {
    if (a == b) return true;
    const bool nan_a = (a & 0x7fffffffu) > 0x7f800000u, nan_b = (b & 0x7fffffffu) > 0x7f800000u;
    return t == TC_FLOAT32 && nan_a && nan_b;
}

// Equal in the sort's order.
bool same_key(uint32_t a, uint32_t b, tc_dtype t) { return order_key(a, t) == order_key(b, t); }

void check(const Case &c, const std::vector<uint32_t> &keys) {
    const int64_t items = c.n * c.batch;
    ASSERT_EQ(int64_t(keys.size()), items);
    const tc_device d = device();
    tc_urejanje_plan p;
    ASSERT_EQ(TC_OK, plan(c.variant, c.n, c.batch, c.pairs, c.threads, &d, &p, 0, c.type, c.descending)) << describe(c);
    DeviceBuffer<uint32_t> in(items), out(items), values(items);
    DeviceBuffer<unsigned char> scratch(p.launch.scratch_bytes);
    in.upload(keys);
    // Every bit pattern is a legal 32-bit key and index, so one poison cannot show an unwritten
    // slot: run twice, under two poisons; a slot that follows its poison was not written.
    std::vector<uint32_t> got, got_values;
    for (uint32_t poison_bits : {0xffffffffu, 0x5a5a5a5au}) {
        out.upload(std::vector<uint32_t>(items, poison_bits));
        values.upload(std::vector<uint32_t>(items, poison_bits));
        ASSERT_EQ(TC_OK, tc_urejanje_run(&p, in.ptr, nullptr, out.ptr,
                                         c.pairs ? values.ptr : nullptr, scratch.ptr, nullptr))
            << describe(c);
        ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize()) << describe(c);
        const auto k = out.download(items), v = values.download(items);
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
        std::vector<uint32_t> idx(c.n);
        std::iota(idx.begin(), idx.end(), 0u);
        const uint32_t *kb = keys.data() + b * c.n;
        std::stable_sort(idx.begin(), idx.end(), [&](uint32_t x, uint32_t y) {
            const uint32_t ox = order_key(kb[x], c.type), oy = order_key(kb[y], c.type);
            return c.descending ? ox > oy : ox < oy;
        });
        std::vector<bool> seen(c.n, false);
        int64_t negative_zeros = 0;
        for (int64_t i = 0; i < c.n; ++i) negative_zeros += kb[i] == 0x80000000u;
        for (int64_t i = 0; i < c.n && bad < 3; ++i) {
            const int64_t at = b * c.n + i;
            const uint32_t v = got_values[at];
            std::string why;
            const bool is_nan = c.type == TC_FLOAT32 && (got[at] & 0x7fffffffu) > 0x7f800000u;
            if (!same_key(got[at], kb[idx[i]], c.type)) why = "not the key the CPU sort has here";
            else if (is_nan && got[at] != 0x7fffffffu) why = "a NaN that is not the canonical 0x7fffffff";
            else if (c.pairs && (v >= c.n || seen[v])) why = "value out of range or repeated";
            else if (c.pairs && !same_bits(got[at], kb[v], c.type)) why = "key differs from the input key its value indexes";
            if (c.pairs && v < c.n) seen[v] = true;
            negative_zeros -= got[at] == 0x80000000u;
            if (!why.empty()) {
                ++bad;
                ADD_FAILURE() << describe(c) << " batch " << b << " position " << i << ": " << why << ": key " << std::hex
                              << got[at] << " value " << std::dec << v << ", CPU sort has key " << std::hex << kb[idx[i]];
            }
        }
        if (c.type == TC_FLOAT32 && bad == 0) EXPECT_EQ(negative_zeros, 0) << describe(c) << ": -0.0 not kept";
    }
}

std::vector<int64_t> sort_sizes() { return up_to_max_n({1, 2, 3, 1023, 1024, 1025, 4097, 1 << 20, (1 << 20) + 1}); }

}  // namespace

TEST(Urejanje, EveryVariantAndSize) {
    REQUIRE_GPU();
    uint64_t seed = 1;
    for (int v = 0; v < tc_variant_count(kProgram); ++v)
        for (int64_t n : sort_sizes())
            for (bool pairs : {false, true}) {
                Case c{v, n};
                c.pairs = pairs;
                check(c, make_keys(n, c.type, UNIFORM, ++seed));
            }
}

TEST(Urejanje, TypesDirectionsAndDistributions) {
    REQUIRE_GPU();
    uint64_t seed = 1000;
    for (int v = 0; v < tc_variant_count(kProgram); ++v)
        for (int64_t n : {1025, 4097})
            for (tc_dtype t : {TC_FLOAT32, TC_INT32, TC_UINT32})
                for (bool desc : {false, true})
                    for (bool pairs : {false, true})
                        for (int dist = 0; dist < DISTS; ++dist) {
                            Case c{v, n};
                            c.type = t;
                            c.descending = desc;
                            c.pairs = pairs;
                            check(c, make_keys(n, t, Dist(dist), ++seed));
                        }
}

TEST(Urejanje, Batches) {
    REQUIRE_GPU();
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
}

TEST(Urejanje, BlockSizes) {
    REQUIRE_GPU();
    for (int v = 0; v < tc_variant_count(kProgram); ++v)
        for (int threads : {32, 64, 128, 256, 512, 1024})
            for (int64_t n : {4097, 70001}) {
                Case c{v, n};
                c.threads = threads;
                c.pairs = true;
                check(c, make_keys(n, c.type, UNIFORM, uint64_t(threads + n)));
            }
    // best's block is 16 x threads elements: at this size no block is shrunk to fill the device
    for (int threads : {64, 128, 256, 512})
        for (int64_t n : up_to_max_n({(1 << 20) + 1}))
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
    for (int64_t n : up_to_max_n({(1 << 22) + 5}))
        for (bool pairs : {true, false}) {
            Case c{best, n};
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
    const int64_t shapes[][2] = {{3001, 1}, {7, 100}, {33, 64}, {3, 333}};
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
}

TEST(Urejanje, AllNanInputComesOutCanonical) {
    REQUIRE_GPU();
    std::mt19937_64 rng(9);
    std::vector<uint32_t> keys(5000);
    for (auto &k : keys) k = 0x7f800001u | uint32_t(rng()) | (rng() & 1 ? 0x80000000u : 0u);  // every NaN pattern
    for (int v = 0; v < tc_variant_count(kProgram); ++v)
        for (bool pairs : {false, true}) {
            Case c{v, int64_t(keys.size())};
            c.pairs = pairs;
            check(c, keys);
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
    // o: pack, unpack and one launch per step: log2(2048) = 11 gives 66 steps
    ASSERT_EQ(TC_OK, plan(find("o"), 2048, 1, false, 256, &d, &p));
    EXPECT_EQ(p.launch.launches, 2 + 66);
    EXPECT_EQ(p.launch.blocks, 2048 / 256);
    // a lower bound of the bytes: pack (read 4, write 4 a key), 66 steps reading every word, unpack
    EXPECT_DOUBLE_EQ(p.launch.bytes_moved, 4.0 * 2048 * (2 + 66 + 2));
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
                           Shape{(1 << 20) + 1, 1, false, 64}, Shape{4096, 64, true, 0}, Shape{(1 << 22) + 5, 1, true, 0}})
        for (int v = 0; v < tc_variant_count(kProgram); ++v) {
            tc_urejanje_plan p;
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
