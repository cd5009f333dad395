// konvolucija on the GPU: every variant x 1-D/2-D x border x mask x size x block size against a
// float64 reference (the mask not flipped), within gamma(taps + 1) * sum |w| * max |x|; exactly
// with integer masks on small-integer images (every partial sum exact); NaN and Inf spread over
// their footprint only; masks larger than the image; best's gradient magnitude (the mask and its
// transpose) and its views that are not 16-byte aligned.
#include "util.h"
#include "tecaj/konvolucija.h"

using namespace tctest;

namespace {

const tc_program *const kProgram = tc_konvolucija_program();
const bool registered = register_program(kProgram);
// a mask for requests whose weights do not matter (plans only): every size up to the largest
const std::vector<float> kOnes(TC_KONVOLUCIJA_MAX_2D * TC_KONVOLUCIJA_MAX_2D, 1.0f);

struct Image {
    int w, h;
    std::vector<float> px;
};
struct Mask {
    int w, h;
    std::vector<float> wt;
};

double at(const Image &im, int x, int y, tc_border border) {
    if (x < 0 || x >= im.w || y < 0 || y >= im.h) {
        if (border == TC_BORDER_ZERO) return 0;
        x = std::min(std::max(x, 0), im.w - 1);
        y = std::min(std::max(y, 0), im.h - 1);
    }
    return im.px[size_t(y) * im.w + x];
}

// magnitude: sqrt(gx^2 + gy^2) of the mask (gx) and its transpose (gy)
std::vector<double> reference(const Image &im, const Mask &m, tc_border border, bool magnitude = false) {
    std::vector<double> out(im.px.size());
    for (int y = 0; y < im.h; ++y)
        for (int x = 0; x < im.w; ++x) {
            double gx = 0, gy = 0;
            for (int j = 0; j < m.h; ++j)
                for (int i = 0; i < m.w; ++i) {
                    const double v = at(im, x - m.w / 2 + i, y - m.h / 2 + j, border);
                    gx += double(m.wt[j * m.w + i]) * v;
                    if (magnitude) gy += double(m.wt[i * m.w + j]) * v;
                }
            out[size_t(y) * im.w + x] = magnitude ? std::sqrt(gx * gx + gy * gy) : gx;
        }
    return out;
}

Image random_image(int w, int h, uint64_t seed, bool small_integers = false) {
    Image im{w, h, small_integers ? std::vector<float>(size_t(w) * h) : random_floats(size_t(w) * h, seed)};
    if (small_integers) {
        std::mt19937_64 rng(seed);
        for (auto &p : im.px) p = float(int(rng() % 7) - 3);
    }
    return im;
}

// A k x k mask that is one column times one row exactly (best filters it separably): an outer
// product of two random small-integer vectors, times scale (a power of two keeps it exact).
Mask separable_mask(int k, uint64_t seed, float scale = 1.0f) {
    std::mt19937_64 rng(seed);
    std::vector<float> col(static_cast<size_t>(k)), row(static_cast<size_t>(k));
    for (auto *v : {&col, &row})
        for (auto &e : *v) e = float(int(rng() % 5) - 2);
    col[size_t(k) / 2] = row[0] = 1;  // never all zero
    Mask m{k, k, std::vector<float>(size_t(k) * k)};
    for (int j = 0; j < k; ++j)
        for (int i = 0; i < k; ++i) m.wt[size_t(j) * k + i] = col[size_t(j)] * row[size_t(i)] * scale;
    return m;
}

Mask random_mask(int w, int h, uint64_t seed, bool integers = false) {
    std::mt19937_64 rng(seed);
    Mask m{w, h, std::vector<float>(size_t(w) * h)};
    for (auto &v : m.wt) v = integers ? float(int(rng() % 5) - 2) : std::uniform_real_distribution<float>(-1, 1)(rng);
    return m;
}

// Runs variant v; false where the plan refuses. exact: compare bit for bit (integer data);
// shift: the input and output views start this many floats into their allocations. The caller's
// mask is NaN once planned: every variant runs on the plan's copy.
bool check(int v, int dim, const Image &im, const Mask &m, tc_border border, int threads, bool exact = false,
           bool magnitude = false, int shift = 0) {
    const tc_device d = device();
    tc_konvolucija_plan p;
    if (v == tc_variant_find(kProgram, "best")) {  // best has its own block: run it once, where the others take 256
        if (threads != 256 && threads != 0) return false;
        threads = 0;
    }
    std::vector<float> caller = m.wt;
    const tc_konvolucija_request r{{v, int64_t(im.w) * im.h, threads, 0}, dim, im.w, im.h, m.w, m.h, border, magnitude,
                                   TC_FLOAT32, caller.data()};
    const tc_status st = tc_konvolucija_make_plan(&r, &d, &p);
    caller.assign(caller.size(), NAN);
    if (st == TC_OUTSIDE_DOMAIN || st == TC_UNAVAILABLE) return false;  // (npp: Konvolucija.Npp says so)
    const std::string what = std::string(tc_variant_at(kProgram, v)->name) + " dim=" + std::to_string(dim) + " " +
                             std::to_string(im.w) + "x" + std::to_string(im.h) + " mask " + std::to_string(m.w) + "x" +
                             std::to_string(m.h) + (border == TC_BORDER_ZERO ? " zero" : " replicate") +
                             " threads=" + std::to_string(threads) + (magnitude ? " magnitude" : "") +
                             (shift ? " shifted by " + std::to_string(shift) : "");
    EXPECT_EQ(TC_OK, st) << what;
    if (st != TC_OK) return false;
    DeviceBuffer<float> din(im.px.size()), dout(im.px.size());
    din.upload(im.px, size_t(shift));
    dout.upload(std::vector<float>(im.px.size(), poison()), size_t(shift));
    EXPECT_EQ(TC_OK, tc_konvolucija_run(&p, din.ptr + shift, dout.ptr + shift, nullptr)) << what;
    EXPECT_EQ(cudaSuccess, cudaDeviceSynchronize()) << what;
    const auto got = dout.download(im.px.size(), size_t(shift));
    const auto want = reference(im, m, border, magnitude);
    double sum_w = 0, max_x = 0;
    for (float w : m.wt) sum_w += std::fabs(w);
    for (float x : im.px)
        if (std::isfinite(x)) max_x = std::max(max_x, double(std::fabs(x)));
    const auto gamma = [](double k) { return k * 0x1p-24 / (1 - k * 0x1p-24); };
    const double taps = double(m.wt.size());
    double tol = exact ? 0 : gamma(taps + 1) * sum_w * max_x;
    if (magnitude) tol = (gamma(taps + 1) + gamma(3)) * std::sqrt(2.0) * sum_w * max_x;  // two sums, squares and a root
    int bad = 0;
    for (size_t i = 0; i < got.size() && bad < 3; ++i) {
        const bool ok = !is_poison(got[i]) &&
                        (std::isnan(want[i]) ? std::isnan(got[i]) : std::isinf(want[i]) ? double(got[i]) == want[i]
                                                                                         : std::fabs(got[i] - want[i]) <= tol);
        if (!ok) {
            ++bad;
            ADD_FAILURE() << what << " pixel " << i << ": got " << got[i] << (is_poison(got[i]) ? " (unwritten)" : "")
                          << ", want " << want[i] << " (tolerance " << tol << ")";
        }
    }
    return true;
}

}  // namespace

TEST(Konvolucija, OneDimension) {
    REQUIRE_GPU();
    uint64_t seed = 1;
    for (int v = 0; v < tc_variant_count(kProgram); ++v)
        for (int64_t n : up_to_max_n({1, 2, 31, 33, 1023, 1025, (1 << 20) + 3}))
            for (int taps : {3, 7, 63})
                for (tc_border b : {TC_BORDER_ZERO, TC_BORDER_REPLICATE})
                    for (int threads : {64, 256, 1024}) {
                        if (threads != 256 && n > 70000) continue;
                        check(v, 1, random_image(int(n), 1, ++seed), random_mask(taps, 1, seed), b, threads);
                    }
}

// (1028 x 77, 1100 x 140: best's streamed strips past the row's end, and strips inside the image)
TEST(Konvolucija, TwoDimensions) {
    REQUIRE_GPU();
    uint64_t seed = 100;
    struct Size { int w, h; };
    for (int v = 0; v < tc_variant_count(kProgram); ++v)
        for (Size s : {Size{1, 1}, Size{1, 7}, Size{7, 1}, Size{8, 3}, Size{33, 17}, Size{256, 40}, Size{1028, 77}, Size{1100, 140},
                       Size{1021, 769}, Size{4096, 4096}})
            for (Size m : {Size{3, 3}, Size{5, 5}, Size{7, 7}, Size{15, 15}, Size{31, 31}, Size{5, 3}})
                for (tc_border b : {TC_BORDER_ZERO, TC_BORDER_REPLICATE})
                    for (int threads : {64, 256, 1024}) {
                        if (threads != 256 && int64_t(s.w) * s.h > 70000) continue;
                        if (s.w == 4096 && (m.w > 5 || b == TC_BORDER_ZERO || up_to_max_n({int64_t(s.w) * s.h}).empty())) continue;
                        check(v, 2, random_image(s.w, s.h, ++seed), random_mask(m.w, m.h, seed), b, threads);
                    }
}

// best's gradient magnitude: the mask and its transpose from one tile (the compiled sizes and
// the general path), aligned rows (16-byte loads) and not, views shifted off 16-byte alignment.
TEST(Konvolucija, BestMagnitudeAndMisalignedViews) {
    REQUIRE_GPU();
    const int best = tc_variant_find(kProgram, "best");
    uint64_t seed = 500;
    struct Size { int w, h; };
    for (Size s : {Size{1, 1}, Size{4, 1}, Size{9, 5}, Size{256, 40}, Size{1028, 77}, Size{1100, 140}, Size{1021, 769}})
        for (int k : {3, 5, 7, 9})
            for (tc_border b : {TC_BORDER_ZERO, TC_BORDER_REPLICATE}) {
                const Image im = random_image(s.w, s.h, ++seed);
                check(best, 2, im, random_mask(k, k, seed), b, 0, false, true);
                for (int shift : {1, 3}) check(best, 2, im, random_mask(k, k, seed), b, 0, false, k == 3, shift);
            }
    for (int shift : {1, 2})  // 1-D
        check(best, 1, random_image(100003, 1, 7), random_mask(7, 1, 7), TC_BORDER_REPLICATE, 0, false, false, shift);
    // the lecture's variants leave the magnitude to best
    const tc_device d = device();
    tc_konvolucija_plan p;
    const tc_konvolucija_request r{{tc_variant_find(kProgram, "t"), 100 * 50, 0, 0}, 2, 100, 50, 3, 3, TC_BORDER_ZERO, 1,
                                   TC_FLOAT32, kOnes.data()};
    EXPECT_EQ(TC_OUTSIDE_DOMAIN, tc_konvolucija_make_plan(&r, &d, &p));
}

// Masks that are one column times one row (which best's 8-bit path filters separably; here the
// float path): boxes, Sobel's masks and integer outer products, exactly on small integers, with
// the magnitude, both borders, the compiled sizes; NaN and Inf spread over their footprint.
TEST(Konvolucija, BestOuterProductMasks) {
    REQUIRE_GPU();
    const int best = tc_variant_find(kProgram, "best");
    uint64_t seed = 700;
    struct Size { int w, h; };
    const Mask sobel_x{3, 3, {1, 0, -1, 2, 0, -2, 1, 0, -1}}, shift{3, 3, {0, 0, 0, 0, 0, 1, 0, 0, 0}};
    for (Size s : {Size{1, 1}, Size{33, 17}, Size{256, 40}, Size{1021, 769}})
        for (tc_border b : {TC_BORDER_ZERO, TC_BORDER_REPLICATE}) {
            const Image ints = random_image(s.w, s.h, ++seed, true), floats = random_image(s.w, s.h, seed);
            for (bool magnitude : {false, true}) {
                check(best, 2, ints, sobel_x, b, 0, !magnitude, magnitude);
                check(best, 2, floats, sobel_x, b, 0, false, magnitude);
                for (int k : {3, 5, 7}) {
                    check(best, 2, ints, separable_mask(k, seed + uint64_t(k)), b, 0, !magnitude, magnitude);
                    check(best, 2, floats, separable_mask(k, seed + uint64_t(k), 0.0625f), b, 0, false, magnitude);
                    check(best, 2, floats, Mask{k, k, std::vector<float>(size_t(k) * k, 1.0f / float(k * k))}, b, 0, false, magnitude);
                }
            }
            check(best, 2, ints, shift, b, 0, true);
        }
    Image im = random_image(64, 40, 19);
    im.px[20 * 64 + 30] = NAN;
    im.px[5 * 64 + 5] = INFINITY;
    im.px[33 * 64 + 50] = -INFINITY;
    for (tc_border b : {TC_BORDER_ZERO, TC_BORDER_REPLICATE})
        for (bool magnitude : {false, true}) {
            check(best, 2, im, sobel_x, b, 0, false, magnitude);
            check(best, 2, im, separable_mask(5, 3), b, 0, false, magnitude);
        }
}

TEST(Konvolucija, ExactOnSmallIntegers) {
    REQUIRE_GPU();
    for (int v = 0; v < tc_variant_count(kProgram); ++v)
        for (int dim : {1, 2}) {
            const Image im = random_image(dim == 1 ? 100003 : 517, dim == 1 ? 1 : 301, uint64_t(v + dim), true);
            check(v, dim, im, random_mask(dim == 1 ? 9 : 7, dim == 1 ? 1 : 5, uint64_t(v), true), TC_BORDER_REPLICATE, 256, true);
        }
}

TEST(Konvolucija, NanAndInfSpreadOverTheirFootprint) {
    REQUIRE_GPU();
    Image im = random_image(64, 40, 9);
    im.px[20 * 64 + 30] = NAN;
    im.px[5 * 64 + 5] = INFINITY;
    for (int v = 0; v < tc_variant_count(kProgram); ++v)
        for (tc_border b : {TC_BORDER_ZERO, TC_BORDER_REPLICATE}) check(v, 2, im, random_mask(5, 5, 3), b, 256);
}

TEST(Konvolucija, DomainsWithoutGPU) {
    const tc_device d = fake_device();
    tc_konvolucija_plan p;
    const auto plan = [&](int dim, int w, int h, int mw, int mh, int threads = 256) {
        const tc_konvolucija_request r{{0, int64_t(w) * h, threads, 0}, dim, w, h, mw, mh, TC_BORDER_ZERO, 0,
                                       TC_FLOAT32, kOnes.data()};
        return tc_konvolucija_make_plan(&r, &d, &p);
    };
    EXPECT_EQ(TC_OK, plan(2, 100, 50, 31, 31));
    EXPECT_EQ(TC_OUTSIDE_DOMAIN, plan(2, 100, 50, 33, 33));
    EXPECT_EQ(TC_OK, plan(1, 1000, 1, 63, 1));
    EXPECT_EQ(TC_OUTSIDE_DOMAIN, plan(1, 1000, 1, 65, 1));
    EXPECT_EQ(TC_BAD_ARGUMENT, plan(2, 100, 50, 4, 3));   // even
    EXPECT_EQ(TC_BAD_ARGUMENT, plan(1, 100, 2, 3, 1));    // 1-D is one row
    EXPECT_EQ(TC_BAD_ARGUMENT, plan(3, 100, 1, 3, 1));
    ASSERT_EQ(TC_OK, plan(2, 1021, 769, 3, 3, 256));
    EXPECT_EQ(p.block_x, 32);
    EXPECT_EQ(p.block_y, 8);
    EXPECT_EQ(p.launch.blocks, 32);
    EXPECT_EQ(p.grid_y, 97);
    const auto best = [&](int dim, int w, int h, int mw, int mh, int magnitude) {
        const tc_konvolucija_request r{{tc_variant_find(kProgram, "best"), int64_t(w) * h, 0, 0}, dim, w, h, mw, mh, TC_BORDER_ZERO, magnitude,
                                       TC_FLOAT32, kOnes.data()};
        return tc_konvolucija_make_plan(&r, &d, &p);
    };
    ASSERT_EQ(TC_OK, best(2, 8192, 8192, 3, 3, 0));
    EXPECT_EQ(p.launch.threads, 128);  // two columns a thread
    EXPECT_EQ(p.launch.blocks, 32);  // tiles of 256 x 8
    EXPECT_EQ(p.grid_y, 1024);
    ASSERT_EQ(TC_OK, best(2, 8192, 8192, 3, 3, 1));
    EXPECT_EQ(p.launch.threads, 128);  // the magnitude streams: 4 columns a thread
    EXPECT_EQ(p.launch.blocks, 16);  // strips of 512 x 16
    EXPECT_EQ(p.grid_y, 512);
    ASSERT_EQ(TC_OK, best(2, 8192, 8192, 5, 5, 0));
    EXPECT_EQ(p.launch.blocks, 16);  // 5 x 5 streams: strips of 512 x 64
    EXPECT_EQ(p.grid_y, 128);
    ASSERT_EQ(TC_OK, best(2, 8192, 8192, 5, 5, 1));
    EXPECT_EQ(p.launch.blocks, 32);  // the 5 x 5 magnitude: tiles of 256 x 8
    EXPECT_EQ(p.grid_y, 1024);
    ASSERT_EQ(TC_OK, best(2, 1021, 769, 31, 31, 0));
    EXPECT_EQ(p.grid_y, 97);  // the general path: 256 x 8
    ASSERT_EQ(TC_OK, best(1, 1 << 26, 1, 7, 1, 0));
    EXPECT_EQ(p.launch.blocks, 1 << 14);  // 4096 outputs a block
    EXPECT_EQ(TC_BAD_ARGUMENT, best(2, 100, 50, 5, 3, 1));  // the magnitude needs a square mask
    EXPECT_EQ(TC_BAD_ARGUMENT, best(1, 100, 1, 3, 1, 1));
}

// The plan keeps a copy of the request's mask (the one every run uses), the rest of its slots 0;
// a request without one is refused.
TEST(Konvolucija, ThePlanKeepsTheMask) {
    const tc_device d = fake_device();
    std::vector<float> m = random_mask(5, 3, 11).wt;
    tc_konvolucija_plan p;
    std::fill(reinterpret_cast<unsigned char *>(&p), reinterpret_cast<unsigned char *>(&p + 1), 0xff);
    tc_konvolucija_request r{{tc_variant_find(kProgram, "best"), 100 * 50, 0, 0}, 2, 100, 50, 5, 3, TC_BORDER_ZERO, 0,
                             TC_FLOAT32, m.data()};
    ASSERT_EQ(TC_OK, tc_konvolucija_make_plan(&r, &d, &p));
    m.assign(m.size(), 7.0f);  // the caller's copy may change after the plan
    const std::vector<float> want = random_mask(5, 3, 11).wt;
    for (size_t i = 0; i < sizeof(p.mask) / sizeof(p.mask[0]); ++i)
        EXPECT_EQ(p.mask[i], i < want.size() ? want[i] : 0.0f) << "slot " << i;
    r.mask = nullptr;
    EXPECT_EQ(TC_BAD_ARGUMENT, tc_konvolucija_make_plan(&r, &d, &p));
}

TEST(Konvolucija, LaunchesAsPlanned) {
    REQUIRE_GPU();
    const tc_device d = device();
    for (int v = 0; v < tc_variant_count(kProgram); ++v) {
        tc_konvolucija_plan p;
        const tc_konvolucija_request r{{v, 1000 * 300, 0, 0}, 2, 1000, 300, 5, 5, TC_BORDER_REPLICATE, 0,
                                       TC_FLOAT32, kOnes.data()};
        const tc_status st = tc_konvolucija_make_plan(&r, &d, &p);
        if (st == TC_UNAVAILABLE) continue;  // (npp where NPP is not installed)
        ASSERT_EQ(TC_OK, st);
        DeviceBuffer<float> in(1000 * 300), out(1000 * 300);
        if (tc_variant_at(kProgram, v)->flags & TC_LIBRARY) {  // NPP's filter cannot be captured into a graph
            EXPECT_EQ(0, p.launch.launches);                            // (it copies synchronously): run, not counted
            EXPECT_EQ(TC_OK, tc_konvolucija_run(&p, in.ptr, out.ptr, nullptr));
            EXPECT_EQ(cudaSuccess, cudaDeviceSynchronize());
            continue;
        }
        expect_launches_as_planned(kProgram, p.launch, [&](cudaStream_t s) {
            return tc_konvolucija_run(&p, in.ptr, out.ptr, s);
        }, tc_variant_at(kProgram, v)->name);
    }
    for (int k : {3, 5})  // best's 8-bit path: one launch (the 3 x 3 box: the streamed kernel), the mask decided on the host
        for (bool box : {false, true}) {
            const std::vector<float> m(size_t(k) * k, box ? 1.0f / float(k * k) : 1.0f);
            tc_konvolucija_plan p;
            const tc_konvolucija_request r{{tc_variant_find(kProgram, "best"), 1024 * 300, 0, 0}, 2, 1024, 300, k, k,
                                           TC_BORDER_REPLICATE, 0, TC_UINT8, m.data()};
            ASSERT_EQ(TC_OK, tc_konvolucija_make_plan(&r, &d, &p));
            DeviceBuffer<uint8_t> in(1024 * 300), out(1024 * 300);
            expect_launches_as_planned(kProgram, p.launch, [&](cudaStream_t s) { return tc_konvolucija_run(&p, in.ptr, out.ptr, s); },
                                       "best uint8 " + std::to_string(k) + "x" + std::to_string(k) + (box ? " box" : ""));
        }
}

// best's 8-bit path: uint8 in and out, every border, the compiled masks (3, 5, 7) and the
// magnitude, sizes that are not multiples of the tile or of 4 (the byte-wise path), views shifted
// off alignment. Each output is the float64 reference rounded (ties to even) and clamped; where
// the reference lies within the float32 bound of a tie, either neighbour passes.
TEST(Konvolucija, BestUint8Images) {
    REQUIRE_GPU();
    const int best = tc_variant_find(kProgram, "best");
    const tc_device d = device();
    uint64_t seed = 900;
    struct Size { int w, h; };
    // one image through best's 8-bit path, against the float64 reference rounded to bytes
    const auto check = [&](Size s, int k, tc_border b, bool magnitude, int shift, const Mask &m) {
        std::mt19937_64 rng(++seed);
        std::vector<uint8_t> px(size_t(s.w) * s.h);
        for (auto &p : px) p = uint8_t(rng());
        tc_konvolucija_plan p;
        const tc_konvolucija_request r{{best, int64_t(s.w) * s.h, 0, 0}, 2, s.w, s.h, k, k, b, magnitude,
                                       TC_UINT8, m.wt.data()};
        ASSERT_EQ(TC_OK, tc_konvolucija_make_plan(&r, &d, &p));
        DeviceBuffer<uint8_t> din(px.size() + 4), dout(px.size() + 4);
        din.upload(px, size_t(shift));
        std::vector<uint8_t> got[2];
        for (int run = 0; run < 2; ++run) {  // two poisons: every byte value is a legal output
            dout.upload(std::vector<uint8_t>(px.size(), run ? 0x00 : 0xff), size_t(shift));
            ASSERT_EQ(TC_OK, tc_konvolucija_run(&p, din.ptr + shift, dout.ptr + shift, nullptr));
            ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
            got[run] = dout.download(px.size(), size_t(shift));
        }
        Image im{s.w, s.h, std::vector<float>(px.begin(), px.end())};
        const auto want = reference(im, m, b, magnitude);
        double sum_w = 0;
        for (float w : m.wt) sum_w += std::fabs(w);
        const double g = (k * k + 1) * 0x1p-24 / (1 - (k * k + 1) * 0x1p-24),
                     tol = (magnitude ? (g + 3 * 0x1p-24) * std::sqrt(2.0) : g) * sum_w * 255.0;
        int bad = 0;
        for (size_t i = 0; i < px.size() && bad < 3; ++i) {
            const double c = std::min(std::max(want[i], 0.0), 255.0), e = std::nearbyint(c);
            const bool tie = std::fabs(c - std::floor(c) - 0.5) <= tol;
            const bool ok = got[0][i] == got[1][i] && (got[0][i] == e || (tie && std::fabs(got[0][i] - e) == 1));
            if (!ok) {
                ++bad;
                ADD_FAILURE() << s.w << "x" << s.h << " mask " << k << (magnitude ? " magnitude" : "")
                              << (b == TC_BORDER_ZERO ? " zero" : " replicate") << " shift " << shift << " pixel " << i
                              << ": got " << int(got[0][i]) << "/" << int(got[1][i]) << ", want " << e << " (reference "
                              << want[i] << ")";
            }
        }
    };
    for (Size s : {Size{1, 1}, Size{7, 3}, Size{33, 17}, Size{2064, 2}, Size{256, 40}, Size{1021, 769}, Size{1024, 768},
                   Size{2064, 70}, Size{1032, 33}})
        for (int k : {3, 5, 7})
            for (tc_border b : {TC_BORDER_ZERO, TC_BORDER_REPLICATE})
                for (bool magnitude : {false, true})
                    for (int shift : {0, 1}) {
                        if (shift && (magnitude || k != 3)) continue;
                        if (up_to_max_n({int64_t(s.w) * s.h}).empty()) continue;  // (the sanitizers' sizes)
                        Mask m = random_mask(k, k, seed + 1);
                        if ((seed + 1) % 2) {  // separable masks (best's separable path): a box, integer outer products
                            if (magnitude) m = separable_mask(k, seed + 1, 0.125f);
                            else m.wt.assign(size_t(k) * k, (seed + 1) % 4 == 1 ? 1.0f / float(k * k) : 0.25f);
                        }  // (a box of 1/k^2: the integer path; of 0.25: outputs past 255, the float path's clamp)
                        check(s, k, b, magnitude, shift, m);
                    }
    // the streamed 3 x 3 box (widths of a multiple of 8, aligned): tiles of 4 rows whose rows and
    // the one above and below lie in the image, and tiles at its top and bottom edges (heights
    // 1-6 and around 4 + 4 + 1), both borders; an image of more than 65535 such tiles (262141
    // rows) takes the patch kernel
    for (Size s : {Size{8, 1}, Size{8, 2}, Size{8, 3}, Size{8, 5}, Size{8, 6}, Size{16, 8}, Size{16, 9}, Size{24, 10},
                   Size{1024, 768}, Size{2064, 70}, Size{8, 262141}})
        for (tc_border b : {TC_BORDER_ZERO, TC_BORDER_REPLICATE}) {
            Mask box{3, 3, std::vector<float>(9, 1.0f / 9.0f)};
            check(s, 3, b, false, 0, box);
        }
    // the domain: best only, 2-D, square masks of 3, 5, 7; each run function refuses the other's plans
    tc_konvolucija_plan p;
    const auto plan = [&](int v, int dim, int w, int h, int mw, int mh) {
        const tc_konvolucija_request r{{v, int64_t(w) * h, 0, 0}, dim, w, h, mw, mh, TC_BORDER_ZERO, 0, TC_UINT8, kOnes.data()};
        return tc_konvolucija_make_plan(&r, &d, &p);
    };
    EXPECT_EQ(TC_OUTSIDE_DOMAIN, plan(tc_variant_find(kProgram, "t"), 2, 64, 64, 3, 3));
    EXPECT_EQ(TC_OUTSIDE_DOMAIN, plan(best, 2, 64, 64, 9, 9));
    EXPECT_EQ(TC_OUTSIDE_DOMAIN, plan(best, 2, 64, 64, 5, 3));
    EXPECT_EQ(TC_OUTSIDE_DOMAIN, plan(best, 1, 64, 1, 3, 1));
    ASSERT_EQ(TC_OK, plan(best, 2, 8192, 8192, 3, 3));
    EXPECT_EQ(p.launch.blocks, 8);  // tiles of 1024 x 16
    EXPECT_EQ(p.grid_y, 512);
    EXPECT_EQ(p.launch.bytes_moved, 2.0 * 8192 * 8192);
    DeviceBuffer<uint8_t> u(16);  // one run for both types: the plan's type says which; no pixels, no run
    EXPECT_EQ(TC_BAD_ARGUMENT, tc_konvolucija_run(&p, nullptr, u.ptr, nullptr));
    EXPECT_EQ(TC_BAD_ARGUMENT, tc_konvolucija_run(&p, u.ptr, nullptr, nullptr));
}

// npp, where NPP is installed: NPP's filter with the mask reversed equals the lecture's
// correlation (sobel-x and a random 5 x 3 mask would show a mask used the wrong way round), on
// the replicate border, the only one it has; the zero border and 1-D are outside its domain.
TEST(Konvolucija, Npp) {
    const tc_device fake = fake_device();
    const int v = tc_variant_find(kProgram, "npp");
    ASSERT_GE(v, 0);
    tc_konvolucija_plan p;
    const tc_konvolucija_request zero{{v, 100 * 50, 0, 0}, 2, 100, 50, 3, 3, TC_BORDER_ZERO, 0, TC_FLOAT32, kOnes.data()};
    EXPECT_EQ(TC_OUTSIDE_DOMAIN, tc_konvolucija_make_plan(&zero, &fake, &p));
    const tc_konvolucija_request one_d{{v, 100, 0, 0}, 1, 100, 1, 3, 1, TC_BORDER_REPLICATE, 0, TC_FLOAT32, kOnes.data()};
    EXPECT_EQ(TC_OUTSIDE_DOMAIN, tc_konvolucija_make_plan(&one_d, &fake, &p));
    const tc_konvolucija_request replicate{{v, 100 * 50, 0, 0}, 2, 100, 50, 3, 3, TC_BORDER_REPLICATE, 0, TC_FLOAT32,
                                           kOnes.data()};
    const tc_status st = tc_konvolucija_make_plan(&replicate, &fake, &p);
    if (st == TC_UNAVAILABLE) GTEST_SKIP() << "NPP is not installed here (libnppif.so.13, or TECAJ_NPPIF)";
    ASSERT_EQ(TC_OK, st);
    REQUIRE_GPU();
    const Mask sobel_x{3, 3, {-1, 0, 1, -2, 0, 2, -1, 0, 1}};
    for (const Mask &m : {sobel_x, random_mask(5, 3, 5), random_mask(31, 31, 6)})
        for (const auto &wh : {std::pair<int, int>{1, 1}, {33, 17}, {1031, 259}}) {
            const Image im = random_image(wh.first, wh.second, 12);
            EXPECT_TRUE(check(v, 2, im, m, TC_BORDER_REPLICATE, 0));
        }
    // 8 bits: integer masks over a divisor (sobel-x, the 3 x 3 and 5 x 5 boxes, a binomial), each
    // pixel the float64 reference clamped and rounded, or rounded down (NPP's integer division may
    // truncate: the Go check counts such pixels), the same under two poisons; a mask of no
    // divisor up to 1024 is outside npp's domain
    const tc_device d = device();
    const Mask box3{3, 3, std::vector<float>(9, 1.0f / 9.0f)}, box5{5, 5, std::vector<float>(25, 1.0f / 25.0f)},
        binomial{3, 3, {1 / 16.f, 2 / 16.f, 1 / 16.f, 2 / 16.f, 4 / 16.f, 2 / 16.f, 1 / 16.f, 2 / 16.f, 1 / 16.f}};
    const Mask odd = random_mask(3, 3, 7);
    const tc_konvolucija_request no_divisor{{v, 100 * 50, 0, 0}, 2, 100, 50, 3, 3, TC_BORDER_REPLICATE, 0, TC_UINT8,
                                            odd.wt.data()};
    EXPECT_EQ(TC_OUTSIDE_DOMAIN, tc_konvolucija_make_plan(&no_divisor, &d, &p));
    std::mt19937_64 rng(77);
    const std::pair<const Mask *, int> divisors[] = {{&sobel_x, 1}, {&box3, 9}, {&box5, 25}, {&binomial, 16}};
    for (const auto &[mp, divisor] : divisors)
        for (const auto &wh : {std::pair<int, int>{1, 1}, {33, 17}, {1031, 259}}) {
            const Mask &m = *mp;
            std::vector<uint8_t> px(size_t(wh.first) * wh.second);
            for (auto &x : px) x = uint8_t(rng());
            const tc_konvolucija_request r{{v, int64_t(px.size()), 0, 0}, 2, wh.first, wh.second, m.w, m.h,
                                           TC_BORDER_REPLICATE, 0, TC_UINT8, m.wt.data()};
            ASSERT_EQ(TC_OK, tc_konvolucija_make_plan(&r, &d, &p));
            EXPECT_EQ(p.npp_divisor, divisor) << "npp uint8 " << m.w << "x" << m.h;
            DeviceBuffer<uint8_t> din(px.size()), dout(px.size());
            din.upload(px);
            std::vector<uint8_t> got[2];
            for (int run = 0; run < 2; ++run) {
                dout.upload(std::vector<uint8_t>(px.size(), run ? 0x00 : 0xff));
                ASSERT_EQ(TC_OK, tc_konvolucija_run(&p, din.ptr, dout.ptr, nullptr));
                ASSERT_EQ(cudaSuccess, cudaDeviceSynchronize());
                got[run] = dout.download(px.size());
            }
            const auto want = reference(Image{wh.first, wh.second, std::vector<float>(px.begin(), px.end())}, m,
                                        TC_BORDER_REPLICATE, false);
            int bad = 0;
            for (size_t i = 0; i < px.size() && bad < 3; ++i) {
                const double c = std::min(std::max(want[i], 0.0), 255.0), e = std::nearbyint(c);
                const double down = std::floor(c + 1e-9);
                const bool tie = std::fabs(c - std::floor(c) - 0.5) <= 1e-9;
                if (got[0][i] != got[1][i] || !(got[0][i] == e || got[0][i] == down || (tie && std::fabs(got[0][i] - e) == 1))) {
                    ++bad;
                    ADD_FAILURE() << "npp uint8 " << m.w << "x" << m.h << " on " << wh.first << "x" << wh.second << " pixel "
                                  << i << ": got " << int(got[0][i]) << "/" << int(got[1][i]) << ", want " << e
                                  << " (reference " << want[i] << ")";
                }
            }
        }
}
