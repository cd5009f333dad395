// prefiks on the GPU: every variant x inclusive/exclusive x operator x type x size x block size
// against a sequential reference (long double for float sums, wrapping int32 arithmetic, exact
// max and min), position by position: float sums within the derived bound on the prefix's
// magnitudes (tc_prefiks_tolerance), everything else exactly (NaN matches NaN). Two runs under
// two poisons: every bit pattern is a legal int32, so a slot is unwritten where it holds the
// first poison after the first run and the second after the second. Segments of every shape.
#include "util.h"
#include "tecaj/prefiks.h"
#include <algorithm>
#include <memory>

using namespace tctest;

namespace {

const tc_program *const kProgram = tc_prefiks_program();
const bool registered = register_program(kProgram);

int find(const char *name) { return tc_variant_find(kProgram, name); }
const char *const kOps[] = {"sum", "min", "max"};  // (by tc_op)

struct Case {
    int variant;
    tc_op op = TC_SUM;
    tc_dtype type = TC_FLOAT32;
    bool exclusive = false;
    int threads = 0;
    int shift = 0;  // elements (and flags) from a view this far into its allocation: misaligned
};

std::string describe(const Case &c, int64_t n, bool segmented) {
    return std::string(tc_variant_at(kProgram, c.variant)->name) + " " + kOps[c.op] +
           (c.type == TC_INT32 ? " int32" : " float32") + (c.exclusive ? " exclusive" : " inclusive") +
           (segmented ? " segmented" : "") + " n=" + std::to_string(n) + " threads=" + std::to_string(c.threads) +
           (c.shift ? " shifted by " + std::to_string(c.shift) : "");
}

uint32_t bits_of(float f) {
    uint32_t b;
    std::memcpy(&b, &f, 4);
    return b;
}
float float_of(uint32_t b) {
    float f;
    std::memcpy(&f, &b, 4);
    return f;
}

// The reference, sequentially: out[i] and the magnitude of what it combines (for the bound).
void reference(const Case &c, const std::vector<uint32_t> &in, const std::vector<uint8_t> &flags,
               std::vector<double> &want_f, std::vector<uint32_t> &want_i, std::vector<double> &prefix_abs) {
    const size_t n = in.size();
    want_f.assign(n, 0);
    want_i.assign(n, 0);
    prefix_abs.assign(n, 0);
    long double acc_f = 0, abs = 0;
    uint32_t acc_i = 0;
    const auto reset = [&] {
        abs = 0;
        if (c.type == TC_FLOAT32) acc_f = c.op == TC_SUM ? 0.0L : c.op == TC_MAX ? -INFINITY : INFINITY;
        else acc_i = c.op == TC_SUM ? 0u : c.op == TC_MAX ? 0x80000000u : 0x7fffffffu;
    };
    reset();
    for (size_t i = 0; i < n; ++i) {
        if (i == 0 || (!flags.empty() && flags[i])) reset();
        const auto record = [&] {
            want_f[i] = double(acc_f);
            want_i[i] = acc_i;
            prefix_abs[i] = double(abs);
        };
        if (c.exclusive) record();
        if (c.type == TC_FLOAT32) {
            const long double x = float_of(in[i]);
            if (c.op == TC_SUM) acc_f += x;
            else if (std::isnan(double(acc_f)) || std::isnan(double(x))) acc_f = NAN;
            else acc_f = c.op == TC_MAX ? std::max(acc_f, x) : std::min(acc_f, x);
            abs += std::fabs(x);
        } else {
            const int32_t x = int32_t(in[i]), a = int32_t(acc_i);
            acc_i = c.op == TC_SUM ? acc_i + in[i] : uint32_t(c.op == TC_MAX ? std::max(a, x) : std::min(a, x));
        }
        if (!c.exclusive) record();
    }
}

const uint32_t kPoisons[2] = {0xffffffffu, 0x5a5a5a5au};

// Each position of got (two runs, under the two poisons) against the reference: written, and
// equal (int32; NaN as NaN) or within the bound tol's plan derives from the prefix's magnitude.
void expect_scan(const Case &c, const std::string &what, const std::vector<uint32_t> &in, const std::vector<uint8_t> &flags,
                 const std::vector<uint32_t> (&got)[2], const tc_prefiks_plan &tol_plan) {
    const int64_t n = int64_t(in.size());
    std::vector<double> want_f, prefix_abs;
    std::vector<uint32_t> want_i;
    reference(c, in, flags, want_f, want_i, prefix_abs);
    int bad = 0;
    for (int64_t i = 0; i < n && bad < 3; ++i) {
        std::string why;
        if (got[0][i] == kPoisons[0] && got[1][i] == kPoisons[1]) why = "unwritten";
        else if (c.type == TC_INT32 && got[0][i] != want_i[i]) why = "differs";
        else if (c.type == TC_FLOAT32) {
            const double g = float_of(got[0][i]), w = want_f[i];
            const double tol = tc_prefiks_tolerance(&tol_plan, prefix_abs[i]);
            const bool ok = std::isnan(w) ? std::isnan(g) : (g == w || std::fabs(g - w) <= tol);
            if (!ok) why = "differs by " + std::to_string(std::fabs(g - w)) + " (tolerance " + std::to_string(tol) + ")";
        }
        if (!why.empty()) {
            ++bad;
            ADD_FAILURE() << what << " position " << i << ": " << why << ": got " << std::hex << got[0][i] << " want "
                          << (c.type == TC_INT32 ? want_i[i] : bits_of(float(want_f[i])));
        }
    }
}

// Runs the case; false where the plan refuses it.
bool check(const Case &c, const std::vector<uint32_t> &in, const std::vector<uint8_t> &flags) {
    const int64_t n = int64_t(in.size());
    const bool segmented = !flags.empty();
    const tc_device d = device();
    tc_prefiks_plan p;
    const tc_prefiks_request r{{c.variant, n, c.threads, 0}, c.op, c.type, c.exclusive, segmented};
    const tc_status st = tc_prefiks_make_plan(&r, &d, &p);
    if (st == TC_OUTSIDE_DOMAIN) return false;
    const std::string what = describe(c, n, segmented);
    EXPECT_EQ(TC_OK, st) << what;
    if (st != TC_OK) return false;
    DeviceBuffer<uint32_t> din(n), dout(n);
    DeviceBuffer<uint8_t> dflags(segmented ? n : 1);
    DeviceBuffer<unsigned char> scratch(p.launch.scratch_bytes);
    const size_t at = size_t(c.shift);
    din.upload(in, at);
    if (segmented) dflags.upload(flags, at);
    std::vector<uint32_t> got[2];
    for (int k = 0; k < 2; ++k) {
        dout.upload(std::vector<uint32_t>(n, kPoisons[k]), at);
        EXPECT_EQ(TC_OK, tc_prefiks_run(&p, din.ptr + at, segmented ? dflags.ptr + at : nullptr, dout.ptr + at, scratch.ptr, nullptr)) << what;
        EXPECT_EQ(cudaSuccess, cudaDeviceSynchronize()) << what;
        got[k] = dout.download(n, at);
    }
    expect_scan(c, what, in, flags, got, p);
    return true;
}

// The several-GPU path on one GPU: the input cut at cuts into slices, each slice but the last
// reduced to its carry (tc_prefiks_carry_out) into one array of carries, then each scanned after
// the slices before it (tc_prefiks_run_after): together, the one scan's outputs, within the bound
// of the deepest slice's scan, plus a carry's reduction and the carries' fold.
void check_slices(const Case &c, const std::vector<uint32_t> &in, const std::vector<uint8_t> &flags,
                  const std::vector<int64_t> &cuts) {
    const int64_t n = int64_t(in.size());
    const bool segmented = !flags.empty();
    const tc_device d = device();
    std::vector<int64_t> edge{0};
    for (int64_t cut : cuts) edge.push_back(cut);
    edge.push_back(n);
    const int count = int(edge.size()) - 1;
    std::string what = describe(c, n, segmented) + " in slices at";
    for (int64_t cut : cuts) what += " " + std::to_string(cut);
    DeviceBuffer<uint32_t> din(n), dout(n);
    DeviceBuffer<uint8_t> dflags(segmented ? n : 1);
    DeviceBuffer<unsigned char> carries(size_t(TC_PREFIKS_CARRY_BYTES) * count), work(TC_PREFIKS_CARRY_WORK_BYTES);
    din.upload(in);
    if (segmented) dflags.upload(flags);
    std::vector<tc_prefiks_plan> plans(count);
    std::vector<std::unique_ptr<DeviceBuffer<unsigned char>>> scratch;
    int64_t depth = 0;
    for (int k = 0; k < count; ++k) {
        const tc_prefiks_request r{{c.variant, edge[k + 1] - edge[k], 0, 0}, c.op, c.type, c.exclusive, segmented};
        ASSERT_EQ(TC_OK, tc_prefiks_make_plan(&r, &d, &plans[k])) << what;
        scratch.push_back(std::make_unique<DeviceBuffer<unsigned char>>(plans[k].launch.scratch_bytes));
        depth = std::max(depth, plans[k].depth + tc_prefiks_carry_depth(&plans[k]));
    }
    std::vector<uint32_t> got[2];
    for (int run = 0; run < 2; ++run) {
        dout.upload(std::vector<uint32_t>(n, kPoisons[run]));
        for (int k = 0; k + 1 < count; ++k)
            ASSERT_EQ(TC_OK, tc_prefiks_carry_out(&plans[k], din.ptr + edge[k], segmented ? dflags.ptr + edge[k] : nullptr,
                                                  work.ptr, carries.ptr + size_t(TC_PREFIKS_CARRY_BYTES) * k, nullptr))
                << what;
        for (int k = 0; k < count; ++k)
            ASSERT_EQ(TC_OK, tc_prefiks_run_after(&plans[k], din.ptr + edge[k], segmented ? dflags.ptr + edge[k] : nullptr,
                                                  dout.ptr + edge[k], scratch[k]->ptr, carries.ptr, count, k, nullptr))
                << what;
        ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize()) << what;
        got[run] = dout.download(n);
    }
    tc_prefiks_plan tol_plan = plans[0];
    tol_plan.depth = depth + count;
    expect_scan(c, what, in, flags, got, tol_plan);
}

std::vector<uint32_t> random_values(int64_t n, tc_dtype type, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<uint32_t> v(n);
    for (auto &x : v)
        x = type == TC_FLOAT32 ? bits_of(std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng))
                                    : uint32_t(int32_t(rng() % 2001) - 1000);
    return v;
}

// Head flags: every run length drawn from [1, longest] (1: every element a segment).
std::vector<uint8_t> random_flags(int64_t n, int64_t longest, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<uint8_t> f(n, 0);
    for (int64_t i = 0; i < n; i += 1 + int64_t(rng() % uint64_t(longest))) f[i] = uint8_t(1 + rng() % 200);
    return f;
}

std::vector<int64_t> scan_sizes() { return up_to_max_n({1, 2, 31, 32, 33, 1023, 1024, 1025, 65537, (1 << 20) + 3}); }

}  // namespace

TEST(Prefiks, EveryVariantOperatorTypeAndSize) {
    REQUIRE_GPU();
    uint64_t seed = 1;
    for (int v = 0; v < tc_variant_count(kProgram); ++v)
        for (int type : {TC_INT32, TC_FLOAT32})
            for (int op = 0; op < 3; ++op)
                for (bool excl : {false, true})
                    for (int64_t n : scan_sizes())
                        for (int threads : {32, 256, 1024}) {
                            if (threads != 256 && n > 70000) continue;
                            Case c{v, tc_op(op), tc_dtype(type), excl, threads};
                            const auto in = random_values(n, c.type, ++seed);
                            const bool seg = v == find("seg");
                            check(c, in, seg ? random_flags(n, 50, seed) : std::vector<uint8_t>{});
                            if (v == find("best")) check(c, in, random_flags(n, 3000, seed));  // best's segmented pass
                        }
}

TEST(Prefiks, SegmentsOfEveryShape) {
    REQUIRE_GPU();
    for (int v : {find("seg"), find("best"), find("cub")})
        for (bool excl : {false, true})
            for (int64_t n : up_to_max_n({1, 33, 1025, 4097, 65537, (1 << 20) + 3})) {
                Case c{v, TC_SUM, TC_INT32, excl, 256};
                const auto in = random_values(n, c.type, uint64_t(n));
                check(c, in, std::vector<uint8_t>(n, 1));                   // every element its own segment
                std::vector<uint8_t> one(n, 0);
                check(c, in, one);                                          // one segment (position 0 heads)
                one[n - 1] = 1;
                check(c, in, one);                                          // a flag at the last position
                check(c, in, random_flags(n, 3000, uint64_t(n + 1)));       // crossing tiles and blocks
                check(c, in, random_flags(n, 50000, uint64_t(n + 4)));      // many tiles long: look-backs
                c.type = TC_FLOAT32;
                c.op = TC_MAX;
                check(c, random_values(n, c.type, uint64_t(n + 2)), random_flags(n, 700, uint64_t(n + 3)));
            }
}

TEST(Prefiks, NanAndInfStayInTheirSegment) {
    REQUIRE_GPU();
    const int64_t n = 5000;
    auto in = random_values(n, TC_FLOAT32, 5);
    std::vector<uint8_t> flags(n, 0);
    flags[1000] = flags[2000] = flags[3000] = 1;
    in[1500] = bits_of(NAN);
    in[2500] = bits_of(INFINITY);
    for (int v : {find("seg"), find("best"), find("cub")})
        for (int op = 0; op < 3; ++op)
            for (bool excl : {false, true}) check(Case{v, tc_op(op), TC_FLOAT32, excl, 256}, in, flags);
    for (int v : {find("grid"), find("co"), find("best"), find("cub")})  // plain: from the NaN's position onward
        for (int op = 0; op < 3; ++op) check(Case{v, tc_op(op), TC_FLOAT32, false, 256}, in, {});
}

TEST(Prefiks, Int32SumsWrapLikeTheReference) {
    REQUIRE_GPU();
    std::vector<uint32_t> in(70001, 0x7ffffff0u);
    for (int v = 0; v < tc_variant_count(kProgram); ++v)
        for (bool excl : {false, true})
            check(Case{v, TC_SUM, TC_INT32, excl, 256}, in, v == find("seg") ? random_flags(70001, 9000, 3) : std::vector<uint8_t>{});
    check(Case{find("best"), TC_SUM, TC_INT32, false, 256}, in, random_flags(70001, 9000, 3));
}

// best's prefix of a tile is one fixed expression (a warp scan within its group of 32 tiles, a
// left fold of the group totals before): the same bits every run, whichever group word a tile's
// look-back stopped at (plain and segmented); the tiles just past a tile boundary (4096 elements,
// 8192, and the segmented 7168), one whole group of 32 tiles and a group of one tile after it
// (32 x 8192, + 1; 32 x 7168, + 1),
// views that are not 16-byte aligned (the scalar path), and 2^28 + 1.
// 2^23 - 5: the most tiles of 8192 (1024, about three resident waves), whose look-backs can
// walk far enough to fill their stack of aggregates and wait (the 2^20 sizes make 129 tiles).
TEST(Prefiks, BestIsBitIdenticalAndCoversTileBoundaries) {
    REQUIRE_GPU();
    const int best = find("best");
    for (int64_t n : up_to_max_n({4095, 4096, 4097, 7167, 7168, 7169, 8193, 3 * 4096 + 5, 32 * 7168, 32 * 7168 + 1, 32 * 8192,
                                   32 * 8192 + 1, (1 << 23) - 5, (1 << 23) + 16385})) {
        const auto in = random_values(n, TC_FLOAT32, uint64_t(n));
        for (int shift : {0, 1, 2}) {
            check(Case{best, TC_SUM, TC_FLOAT32, false, 0, shift}, in, {});
            check(Case{best, TC_SUM, TC_FLOAT32, true, 0, shift}, in, random_flags(n, 5000, uint64_t(n)));
            check(Case{best, TC_MAX, TC_INT32, true, 0, shift}, random_values(n, TC_INT32, uint64_t(n)), {});
        }
    }
    for (int64_t n : up_to_max_n({(int64_t(1) << 28) + 1}))
        check(Case{best, TC_SUM, TC_FLOAT32, false, 0}, random_values(n, TC_FLOAT32, 28), {});
    for (int64_t n : up_to_max_n({(int64_t(1) << 23) - 5, int64_t(1) << 26}))
        for (bool seg : {false, true}) {
            const tc_device d = device();
            tc_prefiks_plan p;
            const tc_prefiks_request r{{best, n, 0, 0}, TC_SUM, TC_FLOAT32, 0, seg};
            ASSERT_EQ(TC_OK, tc_prefiks_make_plan(&r, &d, &p));
            DeviceBuffer<uint32_t> din(n), dout(n);
            DeviceBuffer<uint8_t> dflags(n);
            DeviceBuffer<unsigned char> scratch(p.launch.scratch_bytes);
            din.upload(random_values(n, TC_FLOAT32, uint64_t(n)));
            dflags.upload(random_flags(n, 1000000, 7));
            std::vector<uint32_t> first;
            for (int rep = 0; rep < 20; ++rep) {
                ASSERT_EQ(TC_OK, tc_prefiks_run(&p, din.ptr, seg ? dflags.ptr : nullptr, dout.ptr, scratch.ptr, nullptr));
                ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
                const auto got = dout.download(n);
                if (rep == 0) first = got;
                ASSERT_TRUE(got == first) << (seg ? "segmented " : "") << "run " << rep << " differs from the first";
            }
        }
}

// Several GPUs' slices, on one GPU: every operator and type, inclusive and exclusive, plain and
// segmented (segments short and long, a head at a slice's first element, slices without a head),
// cuts inside and at tile boundaries, slices of one element; and the ABI's refusals.
TEST(Prefiks, SlicesAfterTheirCarriesAreTheOneScan) {
    REQUIRE_GPU();
    const int best = find("best");
    for (int64_t n : up_to_max_n({2, 3, 1000, 40000, (1 << 20) + 3})) {
        const std::vector<std::vector<int64_t>> cuts = {{n / 2}, {1, n - 1 > 1 ? n - 1 : 1}, {n / 3, n / 3 + 1, 2 * n / 3}};
        for (const auto &cut : cuts) {
            bool increasing = true;  // (no empty slice)
            for (size_t k = 0; k < cut.size(); ++k) increasing = increasing && cut[k] > (k ? cut[k - 1] : 0) && cut[k] < n;
            if (!increasing) continue;
            for (tc_op op : {TC_SUM, TC_MAX, TC_MIN})
                for (tc_dtype type : {TC_FLOAT32, TC_INT32})
                    for (bool exclusive : {false, true}) {
                        const Case c{best, op, type, exclusive};
                        const auto in = random_values(n, type, uint64_t(n) + op);
                        check_slices(c, in, {}, cut);
                        check_slices(c, in, random_flags(n, 7, uint64_t(n)), cut);
                        std::vector<uint8_t> heads_at_cuts(size_t(n), 0);  // a head only where a slice starts
                        for (int64_t k : cut) heads_at_cuts[size_t(k)] = 1;
                        check_slices(c, in, heads_at_cuts, cut);
                        if (op == TC_SUM) check_slices(c, in, random_flags(n, 100000, uint64_t(n) + 1), cut);
                    }
        }
    }
    for (int64_t n : up_to_max_n({3 * 16384 + 7})) {  // cuts at and beside best's tiles
        const auto in = random_values(n, TC_FLOAT32, 5);
        for (int64_t cut : {int64_t(16384), int64_t(16383), int64_t(8192 + 1), int64_t(7168)})
            check_slices(Case{best, TC_SUM, TC_FLOAT32, false}, in, random_flags(n, 3000, 9), {cut});
    }
    const tc_device d = device();
    tc_prefiks_plan p, grid;
    const tc_prefiks_request r{{best, 100, 0, 0}, TC_SUM, TC_FLOAT32, 0, 0}, rg{{find("grid"), 100, 0, 0}, TC_SUM, TC_FLOAT32, 0, 0};
    ASSERT_EQ(TC_OK, tc_prefiks_make_plan(&r, &d, &p));
    ASSERT_EQ(TC_OK, tc_prefiks_make_plan(&rg, &d, &grid));
    DeviceBuffer<uint32_t> buf(100);
    DeviceBuffer<unsigned char> carries(2 * TC_PREFIKS_CARRY_BYTES), scratch(p.launch.scratch_bytes);
    EXPECT_EQ(TC_BAD_ARGUMENT, tc_prefiks_run_after(&grid, buf.ptr, nullptr, buf.ptr, scratch.ptr, carries.ptr, 2, 1, nullptr));
    EXPECT_EQ(TC_BAD_ARGUMENT, tc_prefiks_run_after(&p, buf.ptr, nullptr, buf.ptr, scratch.ptr, carries.ptr, 2, 2, nullptr));
    EXPECT_EQ(TC_BAD_ARGUMENT, tc_prefiks_run_after(&p, buf.ptr, nullptr, buf.ptr, scratch.ptr, nullptr, 2, 1, nullptr));
    EXPECT_EQ(TC_BAD_ARGUMENT, tc_prefiks_carry_out(&p, buf.ptr, nullptr, nullptr, carries.ptr, nullptr));
}

TEST(Prefiks, DomainsWithoutGPU) {
    const tc_device d = fake_device();
    tc_prefiks_plan p;
    const auto plan = [&](const char *v, int64_t n, bool seg, int threads = 256) {
        const tc_prefiks_request r{{find(v), n, threads, 0}, TC_SUM, TC_FLOAT32, 0, seg};
        return tc_prefiks_make_plan(&r, &d, &p);
    };
    EXPECT_EQ(TC_OK, plan("hs", 256, false));
    EXPECT_EQ(TC_OUTSIDE_DOMAIN, plan("hs", 257, false));
    EXPECT_EQ(TC_OK, plan("warp", 32, false));
    EXPECT_EQ(TC_OUTSIDE_DOMAIN, plan("warp", 33, false));
    EXPECT_EQ(TC_OUTSIDE_DOMAIN, plan("grid", 1000, true));  // segments: seg and cub
    EXPECT_EQ(TC_OUTSIDE_DOMAIN, plan("seg", 1000, false));
    ASSERT_EQ(TC_OK, plan("grid", 1 << 20, false));
    EXPECT_EQ(p.levels, 3);                   // 2^20 -> 4096 -> 16 -> 1
    EXPECT_EQ(p.launch.launches, 5);          // three tile scans, two additions
    EXPECT_EQ(p.launch.blocks, 4096);
    EXPECT_GT(tc_prefiks_tolerance(&p, 1.0), 0.0);
    EXPECT_EQ(TC_OK, plan("best", 1000, true));
    ASSERT_EQ(TC_OK, plan("best", (1 << 20) + 1, true));
    EXPECT_EQ(p.launch.blocks, 147);  // segmented tiles of 7168
    EXPECT_EQ(TC_OUTSIDE_DOMAIN, plan("best", 1000, false, 512));
    ASSERT_EQ(TC_OK, plan("best", (1 << 20) + 1, false));
    EXPECT_EQ(p.launch.blocks, 129);  // tiles of 8192 (16384 from 2^23)
    EXPECT_EQ(p.launch.launches, 1);
    ASSERT_EQ(TC_OK, plan("co", 1 << 20, false));
    EXPECT_GT(p.depth, (1 << 20) / (132 * 2048));  // at least a thread's run
}

TEST(Prefiks, LaunchesAsPlanned) {
    REQUIRE_GPU();
    const tc_device d = device();
    for (int64_t n : {int64_t(30), int64_t(1000), int64_t(1) << 20})
        for (int v = 0; v < tc_variant_count(kProgram); ++v)
            for (bool seg : {false, true}) {
                tc_prefiks_plan p;
                const tc_prefiks_request r{{v, n, 0, 0}, TC_SUM, TC_FLOAT32, 1, seg};
                const tc_status st = tc_prefiks_make_plan(&r, &d, &p);
                if (st == TC_OUTSIDE_DOMAIN) continue;
                ASSERT_EQ(TC_OK, st);
                DeviceBuffer<uint32_t> in(n), out(n);
                DeviceBuffer<uint8_t> flags(n);
                DeviceBuffer<unsigned char> scratch(p.launch.scratch_bytes);
                expect_launches_as_planned(kProgram, p.launch, [&](cudaStream_t s) {
                    return tc_prefiks_run(&p, in.ptr, seg ? flags.ptr : nullptr, out.ptr, scratch.ptr, s);
                }, std::string(tc_variant_at(kProgram, v)->name) + " n=" + std::to_string(n) + (seg ? " seg" : ""));
            }
}
