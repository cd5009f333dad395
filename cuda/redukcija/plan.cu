// redukcija: the baseline (CUB), the variant table, the plans and the runs; the translation unit of the lecture (lecture.cuh).
#include "lecture.cuh"
#include "toolbox/fold_parts.cuh"

namespace {

// ---- CUB, as a careful user calls it: DeviceReduce::Reduce over a transform iterator, with the
// same operators (NaN-propagating min/max, +Inf as min's start: CUB's own Min returns FLT_MAX for
// all +Inf, cub#662), the same accumulators (float64 for float32 norms and dots) and argmin as a
// reduction of (value, index) pairs with the same tie and NaN rules, over the lecture kernels'
// Source.

template <typename T, typename A, typename Op>
cudaError_t cub_reduce(void *temp, size_t &bytes, const T *a, const T *b, Map map, A *out, int64_t n, cudaStream_t s) {
    auto in = thrust::make_transform_iterator(thrust::counting_iterator<int64_t>(0), Source<T, A>{a, b, map});
    return cub::DeviceReduce::Reduce(temp, bytes, in, out, n, Op(), tc::identity<A, Op>(), s);
}

// ---- variants -----------------------------------------------------------------------------

enum { VRACE, VATOMIC, VB1, VB1D, VBM, VR0, VR1, VR2, VR3, VR4, VR5, VR6, VR7, VCG, VBEST, VCUB, VARIANTS };

Map map_of(tc_op op) { return op == TC_NORM ? SQUARE : op == TC_DOT ? PRODUCT : IDENTITY; }
bool is_arg(tc_op op) { return op == TC_ARGMIN || op == TC_ARGMAX; }

// Calls f(tc::Tag<T>, tc::Tag<A>, Op) for the type and operator. The lecture's accumulators: the input
// type, int64 for int32 sums; best and cub also: float64 for float32 norms and dots, pairs for
// arg operators.
template <bool Beyond, typename F>
tc_status dispatch(tc_dtype type, tc_op op, F &&f) {
    const bool wide = Beyond && (op == TC_NORM || op == TC_DOT);
    switch (type) {
    case TC_FLOAT32:
        if constexpr (Beyond) {
            if (op == TC_ARGMIN) return f(tc::Tag<float>{}, tc::Tag<tc::KeyValue<float>>{}, tc::ArgMin{});
            if (op == TC_ARGMAX) return f(tc::Tag<float>{}, tc::Tag<tc::KeyValue<float>>{}, tc::ArgMax{});
            if (wide) return f(tc::Tag<float>{}, tc::Tag<double>{}, tc::Sum{});
        }
        if (op == TC_MIN) return f(tc::Tag<float>{}, tc::Tag<float>{}, tc::Min{});
        if (op == TC_MAX) return f(tc::Tag<float>{}, tc::Tag<float>{}, tc::Max{});
        return f(tc::Tag<float>{}, tc::Tag<float>{}, tc::Sum{});
    case TC_FLOAT64:
        if constexpr (Beyond) {
            if (op == TC_ARGMIN) return f(tc::Tag<double>{}, tc::Tag<tc::KeyValue<double>>{}, tc::ArgMin{});
            if (op == TC_ARGMAX) return f(tc::Tag<double>{}, tc::Tag<tc::KeyValue<double>>{}, tc::ArgMax{});
        }
        if (op == TC_MIN) return f(tc::Tag<double>{}, tc::Tag<double>{}, tc::Min{});
        if (op == TC_MAX) return f(tc::Tag<double>{}, tc::Tag<double>{}, tc::Max{});
        return f(tc::Tag<double>{}, tc::Tag<double>{}, tc::Sum{});
    default:
        if constexpr (Beyond) {
            if (op == TC_ARGMIN) return f(tc::Tag<int>{}, tc::Tag<tc::KeyValue<int>>{}, tc::ArgMin{});
            if (op == TC_ARGMAX) return f(tc::Tag<int>{}, tc::Tag<tc::KeyValue<int>>{}, tc::ArgMax{});
        }
        if (op == TC_MIN) return f(tc::Tag<int>{}, tc::Tag<int>{}, tc::Min{});
        if (op == TC_MAX) return f(tc::Tag<int>{}, tc::Tag<int>{}, tc::Max{});
        return f(tc::Tag<int>{}, tc::Tag<int64_t>{}, tc::Sum{});
    }
}

// What a variant's accumulator is, for the host's decoding.
tc_dtype accumulator_of(int v, tc_dtype type, tc_op op) {
    const bool beyond = v == VBEST || v == VCUB;
    if (type == TC_FLOAT64) return TC_FLOAT64;
    if (type == TC_FLOAT32) return beyond && (op == TC_NORM || op == TC_DOT) ? TC_FLOAT64 : TC_FLOAT32;
    return (op == TC_MIN || op == TC_MAX || is_arg(op)) ? TC_INT32 : TC_INT64;
}
size_t accumulator_bytes(tc_dtype acc) { return acc == TC_FLOAT32 || acc == TC_INT32 ? 4 : 8; }

// best's element map as a template argument: calls f(tc::MapTag<M>) with map_of(op), only for
// the combinations dispatch<true> makes (maps other than x on sums alone; float32 norms and dots
// accumulate in float64, so a float32 sum in float64 is never x and one in float32 never x^2, x*y).
template <typename T, typename A, typename Op, typename F>
tc_status with_map(tc_op op, F &&f) {
    constexpr bool sum = cuda::std::is_same<Op, tc::Sum>::value, plain32 = cuda::std::is_same<A, float>::value;
    constexpr bool wide32 = cuda::std::is_same<T, float>::value && cuda::std::is_same<A, double>::value;
    switch (map_of(op)) {
    case SQUARE:
        if constexpr (sum && !plain32) return f(tc::MapTag<SQUARE>{});
        break;
    case PRODUCT:
        if constexpr (sum && !plain32) return f(tc::MapTag<PRODUCT>{});
        break;
    default:
        if constexpr (!wide32) return f(tc::MapTag<IDENTITY>{});
        break;
    }
    return TC_BAD_ARGUMENT;  // (a combination dispatch<true> does not make)
}

// The kernel lists: every instantiation a run can launch. First passes read the input type;
// later passes read the partials (the same combinations, plus int64 sums).
#define TC_RED_FIRST(F)                                                                                          \
    F(float, float, tc::Sum, "f32,sum"), F(float, float, tc::Min, "f32,min"), F(float, float, tc::Max, "f32,max"), \
        F(double, double, tc::Sum, "f64,sum"), F(double, double, tc::Min, "f64,min"),                             \
        F(double, double, tc::Max, "f64,max"), F(int, int64_t, tc::Sum, "i32,sum"), F(int, int, tc::Min, "i32,min"), \
        F(int, int, tc::Max, "i32,max")
#define TC_RED_ALL(F) TC_RED_FIRST(F), F(int64_t, int64_t, tc::Sum, "i64,sum")
#define TC_RED_INIT(In, A, Op, N) tc::kernel("reduce_init<" N ">", reduce_init<A, Op>)
#define TC_K_RACE(In, A, Op, N) tc::kernel("reduce_race<" N ">", reduce_race<In, A, Op>)
#define TC_K_ATOMIC(In, A, Op, N) tc::kernel("reduce_atomic<" N ">", reduce_atomic<In, A, Op>)
#define TC_K_B1(In, A, Op, N) tc::kernel("reduce_b1<" N ">", reduce_b1<In, A, Op>)
#define TC_K_B1D(In, A, Op, N) tc::kernel("reduce_b1d<" N ">", reduce_b1d<In, A, Op>)
#define TC_K_BM(In, A, Op, N) tc::kernel("reduce_bm<" N ">", reduce_bm<In, A, Op>)
#define TC_K_R0(In, A, Op, N) tc::kernel("reduce_r0<" N ">", reduce_r0<In, A, Op>)
#define TC_K_R1(In, A, Op, N) tc::kernel("reduce_r1<" N ">", reduce_r1<In, A, Op>)
#define TC_K_R2(In, A, Op, N) tc::kernel("reduce_r2<" N ">", reduce_r2<In, A, Op>)
#define TC_K_R3(In, A, Op, N) tc::kernel("reduce_r3<" N ">", reduce_r3<In, A, Op>)
#define TC_K_R4(In, A, Op, N) tc::kernel("reduce_r4<" N ">", reduce_r4<In, A, Op>)
#define TC_K_R7(In, A, Op, N) tc::kernel("reduce_r7<" N ">", reduce_r7<In, A, Op>)
#define TC_K_CG(In, A, Op, N) tc::kernel("reduce_cg<" N ">", reduce_cg<In, A, Op>)
#define TC_K_BLOCKS(K, In, A, Op, N)                                                                        \
    tc::kernel(#K "<32," N ">", K<32, In, A, Op>), tc::kernel(#K "<64," N ">", K<64, In, A, Op>),           \
        tc::kernel(#K "<128," N ">", K<128, In, A, Op>), tc::kernel(#K "<256," N ">", K<256, In, A, Op>), \
        tc::kernel(#K "<512," N ">", K<512, In, A, Op>), tc::kernel(#K "<1024," N ">", K<1024, In, A, Op>)
#define TC_K_R5(In, A, Op, N) TC_K_BLOCKS(reduce_r5, In, A, Op, N)
#define TC_K_R6(In, A, Op, N) TC_K_BLOCKS(reduce_r6, In, A, Op, N)
#define TC_K_BEST(T, A, Op, M, N) tc::kernel("reduce_best<" N ">", reduce_best<T, A, Op, tc::M>)
#define TC_K_BEST32(T, Op, N) tc::kernel("reduce_best<" N ", n < 2^32>", reduce_best<T, tc::KeyValue<T>, Op, tc::IDENTITY, true>)

const tc_kernel krace[] = {TC_RED_FIRST(TC_RED_INIT), TC_RED_FIRST(TC_K_RACE)};
const tc_kernel katomic[] = {TC_RED_FIRST(TC_RED_INIT), TC_RED_FIRST(TC_K_ATOMIC)};
const tc_kernel kb1[] = {TC_RED_FIRST(TC_K_B1)};
const tc_kernel kb1d[] = {TC_RED_FIRST(TC_K_B1D)};
const tc_kernel kbm[] = {TC_RED_ALL(TC_K_BM)};
const tc_kernel kr0[] = {TC_RED_ALL(TC_K_R0)};
const tc_kernel kr1[] = {TC_RED_ALL(TC_K_R1)};
const tc_kernel kr2[] = {TC_RED_ALL(TC_K_R2)};
const tc_kernel kr3[] = {TC_RED_ALL(TC_K_R3)};
const tc_kernel kr4[] = {TC_RED_ALL(TC_K_R4)};
const tc_kernel kr5[] = {TC_RED_ALL(TC_K_R5)};
const tc_kernel kr6[] = {TC_RED_ALL(TC_K_R6)};
const tc_kernel kr7[] = {TC_RED_ALL(TC_K_R7)};
const tc_kernel kcg[] = {TC_RED_FIRST(TC_K_CG)};
const tc_kernel kbest[] = {
    TC_K_BEST(float, float, tc::Sum, IDENTITY, "f32,sum"), TC_K_BEST(float, double, tc::Sum, SQUARE, "f32,norm in f64"),
    TC_K_BEST(float, double, tc::Sum, PRODUCT, "f32,dot in f64"), TC_K_BEST(float, float, tc::Min, IDENTITY, "f32,min"),
    TC_K_BEST(float, float, tc::Max, IDENTITY, "f32,max"),
    TC_K_BEST(float, tc::KeyValue<float>, tc::ArgMin, IDENTITY, "f32,argmin"),
    TC_K_BEST(float, tc::KeyValue<float>, tc::ArgMax, IDENTITY, "f32,argmax"),
    TC_K_BEST32(float, tc::ArgMin, "f32,argmin"), TC_K_BEST32(float, tc::ArgMax, "f32,argmax"),
    TC_K_BEST(double, double, tc::Sum, IDENTITY, "f64,sum"), TC_K_BEST(double, double, tc::Sum, SQUARE, "f64,norm"),
    TC_K_BEST(double, double, tc::Sum, PRODUCT, "f64,dot"), TC_K_BEST(double, double, tc::Min, IDENTITY, "f64,min"),
    TC_K_BEST(double, double, tc::Max, IDENTITY, "f64,max"),
    TC_K_BEST(double, tc::KeyValue<double>, tc::ArgMin, IDENTITY, "f64,argmin"),
    TC_K_BEST(double, tc::KeyValue<double>, tc::ArgMax, IDENTITY, "f64,argmax"),
    TC_K_BEST(int, int64_t, tc::Sum, IDENTITY, "i32,sum"), TC_K_BEST(int, int64_t, tc::Sum, SQUARE, "i32,norm"),
    TC_K_BEST(int, int64_t, tc::Sum, PRODUCT, "i32,dot"), TC_K_BEST(int, int, tc::Min, IDENTITY, "i32,min"),
    TC_K_BEST(int, int, tc::Max, IDENTITY, "i32,max"), TC_K_BEST(int, tc::KeyValue<int>, tc::ArgMin, IDENTITY, "i32,argmin"),
    TC_K_BEST(int, tc::KeyValue<int>, tc::ArgMax, IDENTITY, "i32,argmax"),
    TC_K_BEST32(int, tc::ArgMin, "i32,argmin"), TC_K_BEST32(int, tc::ArgMax, "i32,argmax")};

constexpr int kLecture = TC_POW2_THREADS;
const char *const kAnyN = "any n; ops sum, min, max, mean, norm, dot (argmin/argmax: best, cub, cpu)";

const tc_variant variants[VARIANTS] = {
    {"race", "counter-example: every thread read-modify-writes one global result (a data race: updates are lost)",
     "n <= 2^24 (it runs; its result is wrong: that is the lesson; checked against a tree's bound); not argmin/argmax",
     "a lower bound: read n elements",
     TC_COUNTER_EXAMPLE, TC_KERNELS(krace)},
    {"atomic", "every thread combines every element atomically into one result: right, but serialised",
     "n <= 2^24 (every update waits on one address); not argmin/argmax; float32: the hardware's float atomic add "
     "flushes subnormal operands and results to zero (a sum of subnormals comes out 0, and its check fails)", "read n elements", 0, TC_KERNELS(katomic)},
    {"b1", "one block, static shared memory, the halving loop (find_min)",
     "n <= threads (one block, one element a thread); threads a power of two; larger n: bm, r0..r7, best",
     "read n elements", kLecture, TC_KERNELS(kb1)},
    {"b1d", "as b1 with dynamic shared memory (extern __shared__, sized at launch)",
     "n <= threads; threads a power of two; larger n: bm, r0..r7, best", "read n elements", kLecture, TC_KERNELS(kb1d)},
    {"bm", "many blocks fold grid-stride runs into registers, halve in shared memory; a second launch with one block finishes",
     kAnyN, "read n elements (+ the partials)", kLecture, TC_KERNELS(kbm)},
    {"r0", "Harris 1: interleaved addressing, tid % (2s): divergent warps; relaunched on the partials",
     kAnyN, "read n elements (+ the partials)", kLecture, TC_KERNELS(kr0)},
    {"r1", "Harris 2: interleaved addressing, index = 2*s*tid: no divergence, bank conflicts", kAnyN,
     "read n elements (+ the partials)", kLecture, TC_KERNELS(kr1)},
    {"r2", "Harris 3: sequential addressing (stride halving): conflict-free, half the threads idle at once", kAnyN,
     "read n elements (+ the partials)", kLecture, TC_KERNELS(kr2)},
    {"r3", "Harris 4: first add during the global load: half the blocks", kAnyN, "read n elements (+ the partials)",
     kLecture, TC_KERNELS(kr3)},
    {"r4", "Harris 5: the last warp unrolled (shuffles: warp-synchronous volatile code is a race since Volta)", kAnyN,
     "read n elements (+ the partials)", kLecture, TC_KERNELS(kr4)},
    {"r5", "Harris 6: completely unrolled, the block size a template parameter", kAnyN,
     "read n elements (+ the partials)", kLecture, TC_KERNELS(kr5)},
    {"r6", "Harris 7: many elements a thread (grid-stride, cost-optimal), one resident wave", kAnyN,
     "read n elements (+ the partials)", kLecture, TC_KERNELS(kr6)},
    {"r7", "warp shuffles instead of the shared-memory tree (__reduce_min/max_sync for int32)", kAnyN,
     "read n elements (+ the partials)", 0, TC_KERNELS(kr7)},
    {"cg", "one cooperative launch: blocks reduce grid-stride shares to partials, grid.sync(), block 0 reduces the partials",
     "blocks <= those resident at once (the occupancy query x SMs; -blocks 0 takes one resident wave, fewer where n needs "
     "fewer); a GPU with cooperative launch; any n; ops sum, min, max, mean, norm, dot (argmin/argmax: best, cub, cpu)",
     "read n elements (+ the partials)", 0, TC_KERNELS(kcg)},
    {"best", "one launch: 16-byte loads, 4 in flight, block_reduce, fixed-order combine (deterministic); norm/dot of float32 in float64",
     "any n, every op; its own grid, blocks of 256 or 512 threads (-threads 0 chooses: 512 where one block an SM covers n)", "read n elements (dot: 2n)", TC_OWN_GRID,
     TC_KERNELS(kbest)},
    {"cub", "baseline: cub::DeviceReduce::Reduce with the same operators and accumulators", "any n, every op",
     "read n elements (dot: 2n)", TC_OWN_GRID | TC_LIBRARY, nullptr, 0},
};

const tc_program program = {"redukcija", "elements", variants, VARIANTS};

// The grid of one pass over count items: one item a thread (b1, r0..r2), two (r3..r5), or a
// resident wave of grid-stride runs (bm's first launch, r6, r7); bm's second launch is one block.
int64_t pass_blocks(int v, int64_t count, int threads, int pass, const tc_device &dev) {
    switch (v) {
    case VB1: case VB1D: return 1;
    case VBM: return pass == 0 ? tc::wave_blocks(dev, threads, count) : 1;
    case VR0: case VR1: case VR2: return tc::ceil_div(count, threads);
    case VR3: case VR4: case VR5: return tc::ceil_div(count, 2 * int64_t(threads));
    default: return tc::wave_blocks(dev, threads, count, 2);  // r6, r7
    }
}

// The lecture's multi-pass driver and its count: pass 0 reads the input, later passes the
// partials (ping-pong between two halves of the scratch), the last pass writes the result.
template <typename In, typename A, typename Op>
struct Pass {
    int v, threads;
    cudaStream_t s;
    tc_status launch(Source<In, A> src, A *out, int64_t count, int64_t blocks) const {
        const unsigned g = unsigned(blocks), t = unsigned(threads);
        const size_t smem = sizeof(A) * size_t(threads);
        switch (v) {
        case VB1: reduce_b1<In, A, Op><<<1, t, 0, s>>>(src, out, count); break;
        case VB1D: reduce_b1d<In, A, Op><<<1, t, smem, s>>>(src, out, count); break;
        case VBM: reduce_bm<In, A, Op><<<g, t, smem, s>>>(src, out, count); break;
        case VR0: reduce_r0<In, A, Op><<<g, t, smem, s>>>(src, out, count); break;
        case VR1: reduce_r1<In, A, Op><<<g, t, smem, s>>>(src, out, count); break;
        case VR2: reduce_r2<In, A, Op><<<g, t, smem, s>>>(src, out, count); break;
        case VR3: reduce_r3<In, A, Op><<<g, t, smem, s>>>(src, out, count); break;
        case VR4: reduce_r4<In, A, Op><<<g, t, smem, s>>>(src, out, count); break;
        case VR7: reduce_r7<In, A, Op><<<g, t, 0, s>>>(src, out, count); break;
        case VR5: case VR6:
            switch (threads) {
#define TC_RED_SIZED(B)                                                                                     \
    case B:                                                                                                 \
        if (v == VR5) reduce_r5<B, In, A, Op><<<g, t, smem, s>>>(src, out, count);                          \
        else reduce_r6<B, In, A, Op><<<g, t, smem, s>>>(src, out, count);                                   \
        break;
                TC_RED_SIZED(32) TC_RED_SIZED(64) TC_RED_SIZED(128) TC_RED_SIZED(256) TC_RED_SIZED(512)
                TC_RED_SIZED(1024)
#undef TC_RED_SIZED
            default: return TC_BAD_ARGUMENT;
            }
            break;
        default: return TC_BAD_ARGUMENT;
        }
        TC_LAUNCHED();
        return TC_OK;
    }
};

template <typename T, typename A, typename Op>
tc_status lecture_run(const tc_redukcija_plan &p, const T *a, const T *b, A *out, void *scratch, const tc_device &dev,
                      cudaStream_t s) {
    const int v = p.launch.variant, t = p.launch.threads;
    const Source<T, A> src{a, b, map_of(p.op)};
    if (v == VCG) {  // (its plan refused a GPU without cooperative launch: tc_device says which)
        Source<T, A> source = src;
        A *partials = static_cast<A *>(scratch);
        int64_t n = p.launch.n;
        void *args[] = {&source, &partials, &out, &n};
        TC_TRY(cudaLaunchCooperativeKernel(reinterpret_cast<const void *>(reduce_cg<T, A, Op>), dim3(p.launch.blocks),
                                           dim3(t), args, 0, s));
        return TC_OK;
    }
    if (v == VRACE || v == VATOMIC) {
        reduce_init<A, Op><<<1, 1, 0, s>>>(out);
        TC_LAUNCHED();
        if (v == VRACE) reduce_race<T, A, Op><<<p.launch.blocks, t, 0, s>>>(src, out, p.launch.n);
        else reduce_atomic<T, A, Op><<<p.launch.blocks, t, 0, s>>>(src, out, p.launch.n);
        TC_LAUNCHED();
        return TC_OK;
    }
    int64_t count = p.launch.n, blocks = p.launch.blocks;
    const size_t half = tc::align256(sizeof(A) * size_t(blocks));
    A *ping = static_cast<A *>(scratch), *pong = reinterpret_cast<A *>(static_cast<unsigned char *>(scratch) + half);
    TC_TRY_STATUS((Pass<T, A, Op>{v, t, s}.launch(src, blocks == 1 ? out : ping, count, blocks)));
    for (int pass = 1; blocks > 1; ++pass) {
        count = blocks;
        blocks = pass_blocks(v, count, t, pass, dev);
        A *dst = blocks == 1 ? out : pong;
        TC_TRY_STATUS((Pass<A, A, Op>{v, t, s}.launch(Source<A, A>{ping, nullptr, IDENTITY}, dst, count, blocks)));
        A *swap = ping;
        ping = pong;
        pong = swap;
    }
    return TC_OK;
}

}  // namespace

extern "C" const tc_program *tc_redukcija_program(void) { return &program; }

extern "C" tc_status tc_redukcija_make_plan(const tc_redukcija_request *r, const tc_device *dev, tc_redukcija_plan *out) {
    if (!r) return TC_BAD_ARGUMENT;
    const int v = r->base.variant;
    TC_TRY_STATUS(tc::begin_plan(program, r, dev, 256, out));
    if (r->op < TC_SUM || r->op > TC_ARGMAX || r->type < TC_FLOAT32 || r->type > TC_INT32)
        return TC_BAD_ARGUMENT;
    tc_launch &p = out->launch;
    out->device = *dev;
    out->op = r->op;
    out->type = r->type;
    out->accumulator = accumulator_of(v, r->type, r->op);
    const int64_t n = p.n;
    const size_t element = r->type == TC_FLOAT64 ? 8 : 4, acc = accumulator_bytes(out->accumulator);
    const int threads = p.threads, tree = tc::ceil_log2(threads);
    p.out_count = 1;
    p.bytes_moved = double(element) * double(n) * (r->op == TC_DOT ? 2 : 1);
    if (is_arg(r->op) && v != VBEST && v != VCUB) return TC_OUTSIDE_DOMAIN;
    out->passes = 1;
    switch (v) {
    case VRACE: case VATOMIC:
        if (n > (int64_t(1) << 24)) return TC_OUTSIDE_DOMAIN;  // every update waits on one address
        if (p.blocks == 0) p.blocks = tc::wave_blocks(*dev, threads, n);
        p.launches = 2;  // the identity, then the race (or the atomics)
        // atomic: one running value takes every element, in any order. race: checked against the
        // bound of a correct tree over n (log2 n levels): a lost update drops a whole element, far
        // beyond it, where the loose sequential bound (n levels) could hide it
        out->depth = v == VATOMIC ? n : tc::ceil_log2(n) + 1;
        return TC_OK;
    case VBEST: {
        TC_TRY_STATUS(dispatch<true>(r->type, r->op, [&](auto t, auto acc, auto op) -> tc_status {
            using T = typename decltype(t)::type;
            using A = typename decltype(acc)::type;
            p.threads = tc::best_threads<T>(*dev, n, r->base.threads);
            if (p.threads == 0) return TC_OUTSIDE_DOMAIN;  // its blocks are 256 or 512 threads
            return with_map<T, A, decltype(op)>(r->op, [&](auto m) -> tc_status {
                return tc::with_narrow<T, decltype(op)>(n, [&](auto narrow) -> tc_status {
                    p.blocks = best_blocks<T, A, decltype(op), decltype(m)::value, decltype(narrow)::value>(*dev, n, p.threads);
                    return TC_OK;
                });
            });
        }));
        p.scratch_bytes = tc::best_scratch(p.blocks);  // the epoch, the partials (<= 16 bytes) and their tags
        out->depth = tc::best_depth(n, p.blocks, p.threads);
        return TC_OK;
    }
    case VCG: {
        // one cooperative launch: every block resident at once (the occupancy query for its
        // kernel; an emulated device: the same rules on the profile's limits), on a GPU that has it
        if (dev->no_cooperative_launch) return TC_OUTSIDE_DOMAIN;
        const void *kernel = nullptr;
        dispatch<false>(r->type, r->op, [&](auto t, auto a, auto op) -> tc_status {
            kernel = reinterpret_cast<const void *>(reduce_cg<typename decltype(t)::type, typename decltype(a)::type, decltype(op)>);
            return TC_OK;
        });
        const int64_t resident = int64_t(dev->multiprocessors) * tc::resident_blocks(*dev, threads, kernel);
        if (p.blocks > resident) {
            p.blocks = int(resident);  // (the most it takes, for the caller's message)
            return TC_OUTSIDE_DOMAIN;
        }
        if (p.blocks == 0) p.blocks = tc::wave_blocks(*dev, threads, n, 1, kernel);
        p.scratch_bytes = tc::align256(acc * size_t(p.blocks));  // the partials
        p.bytes_moved += double(acc) * double(p.blocks);
        // a thread's grid-stride run and the block's tree, then block 0's run over the partials and its tree
        out->depth = tc::ceil_div(n, int64_t(p.blocks) * threads) + tree + tc::ceil_div(p.blocks, threads) + tree;
        p.launches = 1;
        return TC_OK;
    }
    case VCUB: {
        p.threads = p.blocks = p.launches = 0;  // CUB's own
        size_t bytes = 0;
        const tc_status st = dispatch<true>(r->type, r->op, [&](auto t, auto a, auto op) -> tc_status {
            using T = typename decltype(t)::type;
            using A = typename decltype(a)::type;
            TC_TRY((cub_reduce<T, A, decltype(op)>(nullptr, bytes, nullptr, nullptr, IDENTITY, nullptr, n, nullptr)));
            return TC_OK;
        });
        TC_TRY_STATUS(st);
        p.scratch_bytes = bytes;
        // CUB's even-share reduce: assume no more than n/(multiprocessors*128) items a thread, then
        // trees over the threads and tiles (64 levels is generous)
        out->depth = tc::ceil_div(n, int64_t(dev->multiprocessors) * 128) + 64;
        return TC_OK;
    }
    default: break;
    }
    // the lecture's passes: count the launches, size the ping-pong partials, sum the depths
    if ((v == VB1 || v == VB1D) && n > threads) return TC_OUTSIDE_DOMAIN;
    if (p.blocks != 0 && v != VBM && v != VR6 && v != VR7) return TC_OUTSIDE_DOMAIN;  // their grid covers n
    int64_t count = n, blocks = p.blocks != 0 ? p.blocks : pass_blocks(v, n, threads, 0, *dev);
    if (blocks > dev->max_grid_x) return TC_OUTSIDE_DOMAIN;
    p.blocks = int(blocks);
    p.scratch_bytes = blocks > 1 ? 2 * tc::align256(acc * size_t(blocks)) : 0;
    const int per_load = v >= VR3 && v <= VR7 ? 2 : 1;
    out->depth = 0;
    int launches = 0;
    for (int pass = 0;; ++pass) {
        ++launches;
        out->depth += tc::ceil_div(count, blocks * threads * per_load) * per_load + tree;
        if (blocks == 1) break;
        count = blocks;
        blocks = pass_blocks(v, count, threads, pass + 1, *dev);
        p.bytes_moved += double(acc) * double(count);
    }
    p.launches = out->passes = launches;
    p.shared_bytes = acc * size_t(threads);  // (r5, r6 and b1 declare theirs statically: at most this)
    return TC_OK;
}

extern "C" tc_status tc_redukcija_run(const tc_redukcija_plan *p, const void *a, const void *b, void *out,
                                      void *scratch, cudaStream_t s) {
    if (!p || !a || !out || (p->op == TC_DOT && !b) || (p->launch.scratch_bytes > 0 && !scratch))
        return TC_BAD_ARGUMENT;
    const int v = p->launch.variant;
    if (v < 0 || v >= VARIANTS || p->launch.n < 1) return TC_BAD_ARGUMENT;
    const Map map = map_of(p->op);
    // every variant writes its accumulator (arg operators: a KeyValue, the index at byte 8) to out
    if (v == VCUB) {
        return dispatch<true>(p->type, p->op, [&](auto t, auto acc, auto op) -> tc_status {
            using T = typename decltype(t)::type;
            using A = typename decltype(acc)::type;
            size_t bytes = p->launch.scratch_bytes;
            TC_TRY((cub_reduce<T, A, decltype(op)>(scratch, bytes, static_cast<const T *>(a), static_cast<const T *>(b),
                                                   map, static_cast<A *>(out), p->launch.n, s)));
            return TC_OK;
        });
    }
    if (v == VBEST) {
        return dispatch<true>(p->type, p->op, [&](auto t, auto acc, auto op) -> tc_status {
            using T = typename decltype(t)::type;
            using A = typename decltype(acc)::type;
            return with_map<T, A, decltype(op)>(p->op, [&](auto m) -> tc_status {
                return tc::with_narrow<T, decltype(op)>(p->launch.n, [&](auto narrow) -> tc_status {
                    reduce_best<T, A, decltype(op), decltype(m)::value, decltype(narrow)::value>
                        <<<p->launch.blocks, p->launch.threads, 0, s>>>(static_cast<const T *>(a), static_cast<const T *>(b),
                                                                        static_cast<A *>(out),
                                                                        static_cast<unsigned char *>(scratch), p->launch.n);
                    TC_LAUNCHED();
                    return TC_OK;
                });
            });
        });
    }
    return dispatch<false>(p->type, p->op, [&](auto t, auto acc, auto op) -> tc_status {
        using T = typename decltype(t)::type;
        using A = typename decltype(acc)::type;
        return lecture_run<T, A, decltype(op)>(*p, static_cast<const T *>(a), static_cast<const T *>(b),
                                               static_cast<A *>(out), scratch, p->device, s);
    });
}

extern "C" tc_status tc_redukcija_finish(const tc_redukcija_plan *p, const void *host, tc_redukcija_result *r) {
    if (!p || !host || !r) return TC_BAD_ARGUMENT;
    const unsigned char *bytes = static_cast<const unsigned char *>(host);
    r->index = -1;
    r->exact = 0;
    const bool arg = is_arg(p->op);
    switch (p->accumulator) {
    case TC_FLOAT32: { float f; std::memcpy(&f, bytes, 4); r->value = f; break; }
    case TC_FLOAT64: { double d; std::memcpy(&d, bytes, 8); r->value = d; break; }
    case TC_INT64: { int64_t i; std::memcpy(&i, bytes, 8); r->exact = i; r->value = double(i); break; }
    default: { int32_t i; std::memcpy(&i, bytes, 4); r->exact = i; r->value = double(i); break; }
    }
    if (arg) {
        // a KeyValue<T>: the value at offset 0 in T, the index at offset 8
        if (p->type == TC_FLOAT32) { float f; std::memcpy(&f, bytes, 4); r->value = f; }
        else if (p->type == TC_FLOAT64) { double d; std::memcpy(&d, bytes, 8); r->value = d; }
        else { int32_t i; std::memcpy(&i, bytes, 4); r->value = i; r->exact = i; }
        std::memcpy(&r->index, bytes + 8, 8);
    }
    if (p->op == TC_MEAN) r->value /= double(p->launch.n);
    if (p->op == TC_NORM) r->value = std::sqrt(r->value);
    return TC_OK;
}

extern "C" tc_status tc_redukcija_combine(const tc_redukcija_plan *p, const void *parts, const int64_t *first,
                                          int count, void *out) {
    if (!p || !parts || !out || count < 1 || (is_arg(p->op) && !first)) return TC_BAD_ARGUMENT;
    return dispatch<true>(p->type, p->op, [&](auto, auto acc, auto op) -> tc_status {
        using A = typename decltype(acc)::type;
        const A sum = tc::fold_parts<A, decltype(op)>(static_cast<const unsigned char *>(parts), TC_REDUKCIJA_OUT_BYTES,
                                                      first, count, tc::identity<A, decltype(op)>());
        tc::store_part(static_cast<unsigned char *>(out), TC_REDUKCIJA_OUT_BYTES, sum);
        return TC_OK;
    });
}

extern "C" tc_status tc_redukcija_combine_device(const tc_redukcija_plan *p, const void *parts, const int64_t *first,
                                                 int count, void *out, cudaStream_t s) {
    if (!p || !parts || !out || count < 1 || (is_arg(p->op) && !first)) return TC_BAD_ARGUMENT;
    return dispatch<true>(p->type, p->op, [&](auto, auto acc, auto op) -> tc_status {
        using A = typename decltype(acc)::type;
        tc::fold_parts_kernel<A, decltype(op)><<<1, 1, 0, s>>>(static_cast<const unsigned char *>(parts),
                                                                TC_REDUKCIJA_OUT_BYTES, first, count,
                                                                tc::identity<A, decltype(op)>(),
                                                                static_cast<unsigned char *>(out), TC_REDUKCIJA_OUT_BYTES);
        TC_LAUNCHED();
        return TC_OK;
    });
}

// The bound, for finite inputs: a sum in which no element passes through more than h additions
// in a format with unit roundoff u has |error| <= gamma(h) * sum |x_i|, gamma(h) = h*u/(1-h*u)
// (Higham, Accuracy and Stability, 4.2). A square or product in the accumulator's format adds
// one rounding (none where float32 values are multiplied in float64: exact). Exact results
// (integers, min, max, arg) have bound 0.
extern "C" double tc_redukcija_tolerance(const tc_redukcija_plan *p, double sum_abs) {
    if (!p) return NAN;
    if (p->op == TC_MIN || p->op == TC_MAX || is_arg(p->op) || p->type == TC_INT32) return 0;
    const double u = p->accumulator == TC_FLOAT32 ? 0x1p-24 : 0x1p-53;
    const bool exact_products = p->type == TC_FLOAT32 && p->accumulator == TC_FLOAT64;
    const double h = double(p->depth) + (p->op == TC_NORM || p->op == TC_DOT ? (exact_products ? 0 : 1) : 0);
    // (nothing for subnormals that float32 atomics flush to zero: rounding is bounded, a flushed
    // sum of subnormals is wrong, and its row fails; docs/redukcija.md says why)
    return h * u >= 1 ? INFINITY : h * u / (1 - h * u) * sum_abs;
}
