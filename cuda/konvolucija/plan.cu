// konvolucija: the variant table, the plans and the runs; the translation unit of the lecture
// (lecture.cuh) and best (best.cuh).
#include "lecture.cuh"
#include "best.cuh"
#include <type_traits>

namespace {

// ---- variants, plans, runs -----------------------------------------------------------------

enum { VG, VC, VT, VBEST, VNPP, VARIANTS };

// The lecture's variants and npp read the mask from device memory: one kernel writes the plan's
// taps (its argument) there in stream order at the start of each run, so a run takes no mask and
// no copy waits for the host. One module-wide array, as the lecture's constant mask (c_mask) is:
// runs of these variants with different masks must not overlap on different streams.
// npp's masks are reversed (NPP convolves), and its 8-bit filter's are integers: the taps times the
// plan's divisor, rounded to nearest.
__device__ float lecture_mask[kMaxTaps];
__device__ float npp_mask[kMaxTaps];
__device__ int npp_mask_u8[kMaxTaps];
template <typename W>
__global__ void load_mask(const Taps<kMaxTaps> taps, int count, bool reversed, int divisor, W *to) {
    for (int i = threadIdx.x; i < count; i += blockDim.x) {
        const float w = taps.w[reversed ? count - 1 - i : i];
        if constexpr (std::is_same_v<W, int>) to[i] = __double2int_rn(double(w) * divisor);
        else to[i] = w;
    }
}

const tc_kernel kg[] = {tc::kernel("load_mask", load_mask<float>), tc::kernel("conv_g", conv_g)};
const tc_kernel kc[] = {tc::kernel("load_mask", load_mask<float>), tc::kernel("conv_c", conv_c)};
const tc_kernel kt[] = {tc::kernel("load_mask", load_mask<float>), tc::kernel("conv_t", conv_t)};
#define TC_K_BEST(W, H) tc::kernel("conv_best<" #W "x" #H ">", conv_best<W, H, false>), \
                        tc::kernel("conv_best<" #W "x" #H ",magnitude>", conv_best<W, H, true>)
const tc_kernel kbest[] = {tc::kernel("conv_best<3x3>", conv_best<3, 3, false>), tc::kernel("conv_best<5x5,magnitude>", conv_best<5, 5, true>),
                           tc::kernel("conv_stream<5x5>", conv_stream<5, false, true>),
                           tc::kernel("conv_stream<5x5,unaligned>", conv_stream<5, false, false>),
                           tc::kernel("conv_stream<3x3,magnitude>", conv_stream<3, true, true>),
                           tc::kernel("conv_stream<3x3,magnitude,unaligned>", conv_stream<3, true, false>),
                           TC_K_BEST(7, 7), TC_K_BEST(0, 0),
                           tc::kernel("conv_best1d<3>", conv_best1d<3>), tc::kernel("conv_best1d<5>", conv_best1d<5>),
                           tc::kernel("conv_best1d<7>", conv_best1d<7>), tc::kernel("conv_best1d<0>", conv_best1d<0>),
                           tc::kernel("conv_best_u8<3x3>", conv_best_u8<3, false>), tc::kernel("conv_best_u8<3x3,magnitude>", conv_best_u8<3, true>),
                           tc::kernel("conv_best_u8<5x5>", conv_best_u8<5, false>), tc::kernel("conv_best_u8<5x5,magnitude>", conv_best_u8<5, true>),
                           tc::kernel("conv_best_u8<7x7>", conv_best_u8<7, false>), tc::kernel("conv_best_u8<7x7,magnitude>", conv_best_u8<7, true>),
                           tc::kernel("conv_box_stream<3x3>", conv_box_stream)};

// g, c and t: the lecture's float32 steps
constexpr const char *lecture_domain = "float32, any size, masks up to 31 x 31 (1-D: 63); uint8 and the magnitude: best";

const tc_variant variants[VARIANTS] = {
    {"g", "one thread an output; the mask and the input from global memory", lecture_domain,
     "a lower bound: read the input once, write the output once", TC_OWN_GRID, TC_KERNELS(kg)},
    {"c", "the mask in constant memory (a broadcast to the warp)", lecture_domain,
     "a lower bound: read the input once, write the output once", TC_OWN_GRID, TC_KERNELS(kc)},
    {"t", "shared-memory tiles: the block loads its tile and halo once, then computes from shared memory",
     lecture_domain, "read the input once (plus halos), write the output once", TC_OWN_GRID, TC_KERNELS(kt)},
    {"best", "register-blocked tiles (rows rolling in registers), strips streamed without shared memory; an 8-bit path",
     "any size, masks up to 31 x 31 (1-D: 63); the gradient magnitude of a square mask and its transpose; uint8 "
     "pixels (2-D, square masks of 3, 5, 7)",
     "read the input once (plus halos), write the output once", TC_OWN_GRID, TC_KERNELS(kbest)},
    {"npp", "baseline: NPP's nppiFilterBorder_32f_C1R and _8u_C1R (given the mask reversed: NPP convolves), loaded at run time",
     "2-D images, -border replicate (the only border NPP's filter has), masks up to 31 x 31, not the magnitude; uint8: "
     "masks of integers over one divisor (box, sobel)",
     "a lower bound: read the input once, write the output once", TC_OWN_GRID | TC_LIBRARY, nullptr, 0},
};

// NPP's 8-bit filter takes integers and a divisor: the smallest divisor (up to 1024) that makes
// every tap an integer (within float32's rounding of 1/d), or 0 where there is none
int npp_divisor(const float *mask, int taps) {
    for (int d = 1; d <= 1024; ++d) {
        bool whole = true;
        for (int i = 0; i < taps && whole; ++i) {
            const double m = double(mask[i]) * d;
            whole = std::fabs(m - std::nearbyint(m)) <= 1e-5 * std::fmax(1.0, std::fabs(m));
        }
        if (whole) return d;
    }
    return 0;
}

const tc_program program = {"konvolucija", "pixels", variants, VARIANTS};

Shape shape_of(const tc_konvolucija_plan &p) { return Shape{p.width, p.height, p.mask_w, p.mask_h, p.border}; }

// best's compiled-in mask size: 3, 5 or 7 (square in 2-D), or 0 for the general path
int compiled(const tc_konvolucija_plan &p) {
    const int w = p.mask_w;
    return (p.dim == 1 || p.mask_h == w) && (w == 3 || w == 5 || w == 7) ? w : 0;
}

// Whether best streams the plan's rows (conv_stream: 2-D float32, 5 x 5 masks and the 3 x 3 magnitude)
bool streamed(const tc_konvolucija_plan &p) {
    return p.dim == 2 && p.pixel == TC_FLOAT32 && compiled(p) == (p.magnitude ? 3 : 5);
}

// best's patch in shared memory, bytes (none where it streams)
size_t best_patch(const tc_konvolucija_plan &p) {
    if (streamed(p)) return 0;
    if (p.pixel == TC_UINT8) return size_t(kU8Rows + p.mask_h - 1) * size_t(kU8Cols + 2 * kU8Margin);
    if (p.dim == 1) return sizeof(float) * size_t(kBest1D + 2 * margin(p.mask_w / 2));
    return sizeof(float) * size_t(best_rows(compiled(p), p.magnitude) + p.mask_h - 1) * size_t(kBestCols + 2 * margin(p.mask_w / 2));
}

}  // namespace

extern "C" const tc_program *tc_konvolucija_program(void) { return &program; }

extern "C" tc_status tc_konvolucija_make_plan(const tc_konvolucija_request *r, const tc_device *dev,
                                              tc_konvolucija_plan *out) {
    TC_TRY_STATUS(tc::begin_plan(program, r, dev, 256, out));
    tc_launch &p = out->launch;
    if (!r->mask || (r->dim != 1 && r->dim != 2)) return TC_BAD_ARGUMENT;
    const bool one_d = r->dim == 1;
    if (one_d && r->height != 1) return TC_BAD_ARGUMENT;
    const int limit = one_d ? TC_KONVOLUCIJA_MAX_1D : TC_KONVOLUCIJA_MAX_2D;
    if (r->width < 1 || r->height < 1 || int64_t(r->width) * r->height != p.n) return TC_BAD_ARGUMENT;
    if (r->mask_w < 1 || r->mask_h < 1 || r->mask_w % 2 == 0 || r->mask_h % 2 == 0) return TC_BAD_ARGUMENT;
    if (r->mask_w > limit || r->mask_h > limit || (one_d && r->mask_h != 1)) return TC_OUTSIDE_DOMAIN;
    if (r->border != TC_BORDER_ZERO && r->border != TC_BORDER_REPLICATE) return TC_BAD_ARGUMENT;
    if (r->magnitude && (one_d || r->mask_w != r->mask_h)) return TC_BAD_ARGUMENT;  // a square mask and its transpose
    if (r->magnitude && p.variant != VBEST) return TC_OUTSIDE_DOMAIN;
    if (r->pixel != TC_FLOAT32 && r->pixel != TC_UINT8) return TC_BAD_ARGUMENT;
    const bool u8 = r->pixel == TC_UINT8;
    if (p.variant == VNPP) {
        if (u8) out->npp_divisor = npp_divisor(r->mask, r->mask_w * r->mask_h);
        if (one_d || r->magnitude || r->border != TC_BORDER_REPLICATE || int64_t(r->width) * 4 > INT32_MAX ||
            (u8 && out->npp_divisor == 0))
            return TC_OUTSIDE_DOMAIN;
        const bool loaded = u8 ? tc::npp::filter_border_8u() != nullptr : tc::npp::filter_border_32f() != nullptr;
        if (!loaded) return TC_UNAVAILABLE;
        p.launches = 0;  // (the library decides)
    }
    if (u8 && p.variant != VNPP && (p.variant != VBEST || one_d || r->mask_w != r->mask_h || (r->mask_w != 3 && r->mask_w != 5 && r->mask_w != 7)))
        return TC_OUTSIDE_DOMAIN;
    out->dim = r->dim;
    out->width = r->width;
    out->height = r->height;
    out->mask_w = r->mask_w;
    out->mask_h = r->mask_h;
    std::fill(out->mask, out->mask + kMaxTaps, 0.0f);
    std::copy(r->mask, r->mask + r->mask_w * r->mask_h, out->mask);
    out->border = r->border;
    out->magnitude = r->magnitude ? 1 : 0;
    out->pixel = r->pixel;
    // 1-D: a row of threads; 2-D: 32 wide (a warp reads a row's 128 bytes), threads / 32 high
    out->block_x = one_d ? p.threads : 32;
    out->block_y = one_d ? 1 : p.threads / 32;
    if (p.variant == VBEST) {  // its own tile: 256 x 8 or 16 outputs (1-D: 4096; uint8: 1024 x 16 by 128 threads, and the streamed 3 x 3 box 1024 x kBoxRows, its run's own grid)
        const int threads = one_d ? kBest1DThreads : u8 ? kU8Threads : kBestThreads2D;
        if (r->base.threads != 0 && r->base.threads != threads) return TC_OUTSIDE_DOMAIN;
        p.threads = out->block_x = threads;
        out->block_y = 1;
    }
    const bool stream = p.variant == VBEST && streamed(*out);
    const int tile_x = p.variant == VBEST ? (one_d ? kBest1D : u8 ? kU8Cols : stream ? kStreamCols : kBestCols) : out->block_x,
              tile_y = p.variant == VBEST ? (one_d ? 1 : u8 ? kU8Rows : stream ? stream_rows(r->magnitude) : best_rows(compiled(*out), r->magnitude))
                                          : out->block_y;
    const int64_t gx = tc::ceil_div(r->width, tile_x), gy = tc::ceil_div(r->height, tile_y);
    if (gx > dev->max_grid_x || gy > dev->max_grid_y) return TC_OUTSIDE_DOMAIN;
    p.blocks = int(gx);
    out->grid_y = int(gy);
    p.out_count = p.items = p.n;
    p.bytes_moved = (u8 ? 2.0 : 8.0) * double(p.n);
    // the patch (t, best) must fit the shared memory a block has without opting in
    if (p.variant == VT) p.shared_bytes = sizeof(float) * size_t(out->block_x + r->mask_w - 1) * size_t(out->block_y + r->mask_h - 1);
    if (p.variant == VBEST) p.shared_bytes = best_patch(*out);
    if (p.shared_bytes > dev->shared_per_block) return TC_OUTSIDE_DOMAIN;
    if (p.variant == VG || p.variant == VC || p.variant == VT) p.launches = 2;  // (the mask's load, then the convolution)
    if (p.variant == VNPP) p.threads = p.blocks = 0;  // (NPP's own grid)
    return TC_OK;
}

// The plan's mask as a kernel argument of N taps (the first N of the plan's: the rest are 0)
template <int N>
Taps<N> taps_of(const tc_konvolucija_plan &p) {
    Taps<N> t;
    std::copy(p.mask, p.mask + N, t.w);
    return t;
}

// npp's 8-bit row: NPP's filter given the mask reversed as integers over their divisor
tc_status run_npp_u8(const tc_konvolucija_plan *p, const uint8_t *in, uint8_t *out, cudaStream_t s) {
    const auto filter = tc::npp::filter_border_8u();
    if (!filter) return TC_UNAVAILABLE;
    const int taps = p->mask_w * p->mask_h, divisor = p->npp_divisor;  // (the plan's search, once)
    if (divisor == 0) return TC_BAD_ARGUMENT;
    int *kernel = nullptr;
    TC_TRY(cudaGetSymbolAddress(reinterpret_cast<void **>(&kernel), npp_mask_u8));
    load_mask<<<1, 256, 0, s>>>(taps_of<kMaxTaps>(*p), taps, true, divisor, kernel);
    TC_LAUNCHED();
    tc::npp::StreamContext ctx;
    TC_TRY(tc::npp::context(s, ctx));
    const tc::npp::Size size{p->width, p->height};
    if (filter(in, p->width, size, tc::npp::Point{0, 0}, out, p->width, size, kernel, tc::npp::Size{p->mask_w, p->mask_h},
               tc::npp::Point{p->mask_w / 2, p->mask_h / 2}, divisor, tc::npp::BORDER_REPLICATE, ctx) < 0)
        return tc_status(cudaErrorUnknown);  // (NPP's status < 0: an error)
    TC_LAUNCHED();
    return TC_OK;
}

// A TC_UINT8 plan's run: best's 8-bit kernels (or npp's)
tc_status run_u8(const tc_konvolucija_plan *p, const uint8_t *in, uint8_t *out, cudaStream_t s) {
    if (p->launch.variant == VNPP) return run_npp_u8(p, in, out, s);
    if (p->launch.variant != VBEST ||
        (p->mask_w != 3 && p->mask_w != 5 && p->mask_w != 7) || p->mask_h != p->mask_w)
        return TC_BAD_ARGUMENT;
    const dim3 grid(unsigned(p->launch.blocks), unsigned(p->grid_y)), block(unsigned(p->block_x), 1);
    const Shape shape = shape_of(*p);
    const Factors f = factor_mask(p->mask, p->mask_w, p->mask_h);
    const bool mag = p->magnitude != 0;
    const auto go = [&](auto kernel, const auto &taps) { kernel<<<grid, block, best_patch(*p), s>>>(in, out, shape, taps, f); };
    // a 3 x 3 box on rows of a multiple of 8 bytes and 8-byte aligned views: streamed, on tiles of
    // kBoxRows rows (images of up to kMaxGridY such tiles; taller ones take the patch kernel's 16 rows)
    const int64_t box_tiles = tc::ceil_div(int64_t(p->height), int64_t(kBoxRows));
    if (p->mask_w == 3 && !mag && f.uniform && p->width % 8 == 0 && box_tiles <= kMaxGridY &&
        ((reinterpret_cast<uintptr_t>(in) | reinterpret_cast<uintptr_t>(out)) & 7) == 0) {
        conv_box_stream<<<dim3(grid.x, unsigned(box_tiles)), block, 0, s>>>(in, out, shape, f.w);
        TC_LAUNCHED();
        return TC_OK;
    }
    switch (p->mask_w) {  // the compiled sizes
    case 3: go(mag ? conv_best_u8<3, true> : conv_best_u8<3, false>, taps_of<9>(*p)); break;
    case 5: go(mag ? conv_best_u8<5, true> : conv_best_u8<5, false>, taps_of<25>(*p)); break;
    default: go(mag ? conv_best_u8<7, true> : conv_best_u8<7, false>, taps_of<49>(*p));
    }
    TC_LAUNCHED();
    return TC_OK;
}

// A TC_FLOAT32 plan's run
tc_status run_f32(const tc_konvolucija_plan *p, const float *in, float *out, cudaStream_t s) {
    const dim3 grid(unsigned(p->launch.blocks), unsigned(p->grid_y)), block(unsigned(p->block_x), unsigned(p->block_y));
    const Shape shape = shape_of(*p);
    const int taps = p->mask_w * p->mask_h;
    float *mask = nullptr;  // (the lecture's variants': device memory)
    if (p->launch.variant != VBEST) {  // the plan's mask to device memory (npp's reversed), in stream order
        const bool npp = p->launch.variant == VNPP;
        TC_TRY(cudaGetSymbolAddress(reinterpret_cast<void **>(&mask), npp ? npp_mask : lecture_mask));
        load_mask<<<1, 256, 0, s>>>(taps_of<kMaxTaps>(*p), taps, npp, 1, mask);
        TC_LAUNCHED();
    }
    if (p->launch.variant == VC || p->launch.variant == VT)  // and on to constant memory
        TC_TRY(cudaMemcpyToSymbolAsync(c_mask, mask, sizeof(float) * size_t(taps), 0, cudaMemcpyDeviceToDevice, s));
    switch (p->launch.variant) {
    case VG: conv_g<<<grid, block, 0, s>>>(in, mask, out, shape); break;
    case VC: conv_c<<<grid, block, 0, s>>>(in, out, shape); break;
    case VT: {
        const size_t patch = sizeof(float) * size_t(p->block_x + p->mask_w - 1) * size_t(p->block_y + p->mask_h - 1);
        conv_t<<<grid, block, patch, s>>>(in, out, shape);
        break;
    }
    case VBEST: {  // the compiled-in sizes (3, 5, 7; square in 2-D), else the general path, with the plan's mask
        // (the streamed kernels take 16-byte rows where the width and both views allow)
        const bool vectors = p->width % 4 == 0 && ((reinterpret_cast<uintptr_t>(in) | reinterpret_cast<uintptr_t>(out)) & 15) == 0;
        const bool mag = p->magnitude != 0;
        const auto go = [&](auto kernel, const auto &taps) { kernel<<<grid, block, best_patch(*p), s>>>(in, out, shape, taps); };
        if (p->dim == 1) {
            switch (compiled(*p)) {
            case 3: go(conv_best1d<3>, taps_of<3>(*p)); break;
            case 5: go(conv_best1d<5>, taps_of<5>(*p)); break;
            case 7: go(conv_best1d<7>, taps_of<7>(*p)); break;
            default: go(conv_best1d<0>, taps_of<TC_KONVOLUCIJA_MAX_1D>(*p));
            }
            break;
        }
        switch (compiled(*p)) {
        case 3:
            if (mag) go(vectors ? conv_stream<3, true, true> : conv_stream<3, true, false>, taps_of<9>(*p));
            else go(conv_best<3, 3, false>, taps_of<9>(*p));
            break;
        case 5:
            if (mag) go(conv_best<5, 5, true>, taps_of<25>(*p));
            else go(vectors ? conv_stream<5, false, true> : conv_stream<5, false, false>, taps_of<25>(*p));
            break;
        case 7: go(mag ? conv_best<7, 7, true> : conv_best<7, 7, false>, taps_of<49>(*p)); break;
        default: go(mag ? conv_best<0, 0, true> : conv_best<0, 0, false>, taps_of<kMaxTaps>(*p));
        }
        break;
    }
    case VNPP: {
        const auto filter = tc::npp::filter_border_32f();
        if (!filter) return TC_UNAVAILABLE;
        tc::npp::StreamContext ctx;
        TC_TRY(tc::npp::context(s, ctx));
        const tc::npp::Size size{p->width, p->height};
        const int step = p->width * int(sizeof(float));
        // NPP's status: 0 done, > 0 a warning, < 0 an error (reported as CUDA's unknown error)
        if (filter(in, step, size, tc::npp::Point{0, 0}, out, step, size, mask, tc::npp::Size{p->mask_w, p->mask_h},
                   tc::npp::Point{p->mask_w / 2, p->mask_h / 2}, tc::npp::BORDER_REPLICATE, ctx) < 0)
            return tc_status(cudaErrorUnknown);
        break;
    }
    default: return TC_BAD_ARGUMENT;
    }
    TC_LAUNCHED();
    return TC_OK;
}

extern "C" tc_status tc_konvolucija_run(const tc_konvolucija_plan *p, const void *in, void *out, cudaStream_t s) {
    if (!p || !in || !out || p->launch.n < 1 || p->block_x < 1 || p->block_y < 1) return TC_BAD_ARGUMENT;
    if (p->pixel == TC_UINT8) return run_u8(p, static_cast<const uint8_t *>(in), static_cast<uint8_t *>(out), s);
    if (p->pixel != TC_FLOAT32) return TC_BAD_ARGUMENT;
    return run_f32(p, static_cast<const float *>(in), static_cast<float *>(out), s);
}
