// Typed warp- and block-wide reductions and scans, one implementation each, for the best
// variants and everything beyond the lectures (the lecture variants write theirs out: they are
// the lesson). Shaped as CUB's block_reduce.cuh and warp_scan.cuh: typed on T and an operator,
// shared memory as a type the caller declares, preconditions stated.
//
// Operators carry their identity and their rules for NaN and signed zeros:
//   Sum  identity -0 for floating types (so a sum of only -0.0 stays -0.0; x + -0 == x for every
//        x), 0 for integers. NaN and Inf propagate as IEEE addition does. Integers wrap.
//   Min  identity +Inf (floating) or the type's largest value. NaN propagates: any NaN operand
//        gives a NaN (fminf would drop it). -0.0 counts as smaller than +0.0, so the result does
//        not depend on the order of the operands.
//   Max  identity -Inf or the type's lowest value; NaN propagates; +0.0 counts as larger than -0.0.
//   ArgMin, ArgMax on KeyValue pairs (a value and its 64-bit index): NaN wins (the first NaN, by
//        index); among equal values (-0.0 equals +0.0) the lowest index wins; identity: the
//        Min/Max identity at the largest index.
// Each is commutative and associative on the values it returns (for NaNs: which NaN's payload
// comes back is unspecified), so any tree over them gives the same value.
#pragma once
#include <cuda/std/cmath>
#include <cuda/std/limits>
#include <cuda/std/type_traits>
#include <cstdint>
#include <cstring>

namespace tc {

constexpr unsigned kFullWarp = 0xffffffffu;

template <typename T>
__host__ __device__ __forceinline__ bool is_nan(T x) {
    if constexpr (cuda::std::is_floating_point<T>::value) return x != x;
    else return false;
}
template <typename T>
__host__ __device__ __forceinline__ bool is_negative_zero_or_less(T x) {  // the sign bit, for equal floats
    if constexpr (cuda::std::is_floating_point<T>::value) return cuda::std::signbit(x);
    else return false;
}

struct Sum {
    template <typename T>
    __host__ __device__ static constexpr T identity() {
        if constexpr (cuda::std::is_floating_point<T>::value) return T(-0.0);
        else return T(0);
    }
    template <typename T>
    __host__ __device__ __forceinline__ T operator()(T a, T b) const { return a + b; }
};

// Min's (Less) and Max's rule: a NaN operand wins (a's first); otherwise the smaller (larger);
// of equal values -0.0 is the smaller zero. Selects, no branches: a chain of ifs compiled to
// branches that diverge in a warp's reduction steps, each step a reconvergence.
// On sm_80+ a float32 pair is one instruction: PTX min.NaN / max.NaN keep the same rules (a NaN
// operand gives a NaN, the canonical one; -0.0 is the smaller zero), where the selects are
// about eight instructions an element (BENCHMARKS: redukcija best).
template <bool Less, typename T>
__host__ __device__ __forceinline__ T extreme(T a, T b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    if constexpr (cuda::std::is_same<T, float>::value) {
        float r;
        if constexpr (Less) asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
        else asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
        return r;
    } else
#endif
    {
        T r = (Less ? b < a : b > a) ? b : a;                              // equal: a
        r = (a == b) & is_negative_zero_or_less(Less ? b : a) ? b : r;      // the zero the rule picks
        r = is_nan(b) ? b : r;
        return is_nan(a) ? a : r;
    }
}

struct Min {
    template <typename T>
    __host__ __device__ static constexpr T identity() {
        if constexpr (cuda::std::numeric_limits<T>::has_infinity) return cuda::std::numeric_limits<T>::infinity();
        else return cuda::std::numeric_limits<T>::max();
    }
    template <typename T>
    __host__ __device__ __forceinline__ T operator()(T a, T b) const { return extreme<true>(a, b); }
};

struct Max {
    template <typename T>
    __host__ __device__ static constexpr T identity() {
        if constexpr (cuda::std::numeric_limits<T>::has_infinity) return -cuda::std::numeric_limits<T>::infinity();
        else return cuda::std::numeric_limits<T>::lowest();
    }
    template <typename T>
    __host__ __device__ __forceinline__ T operator()(T a, T b) const { return extreme<false>(a, b); }
};

// A value and its index, for ArgMin and ArgMax.
template <typename V>
struct KeyValue {
    V value;
    int64_t index;
};

// Whether a comes before b for argmin (Less) or argmax (!Less): NaN first, then the smaller
// (larger) value, then the lower index.
template <bool Less, typename V>
__host__ __device__ __forceinline__ bool arg_before(const KeyValue<V> &a, const KeyValue<V> &b) {
    // (bitwise, not short-circuit: predicates and selects, no branches; see Min)
    const bool na = is_nan(a.value), nb = is_nan(b.value), lower = a.index < b.index;
    const bool better = Less ? a.value < b.value : a.value > b.value;
    const bool worse = Less ? b.value < a.value : b.value > a.value;
    return (na | nb) ? na & (!nb | lower) : better | (!worse & lower);
}

struct ArgMin {
    template <typename T>
    __host__ __device__ static constexpr T identity() {
        return T{Min::identity<decltype(T::value)>(), INT64_MAX};
    }
    template <typename V>
    __host__ __device__ __forceinline__ KeyValue<V> operator()(KeyValue<V> a, KeyValue<V> b) const {
        return arg_before<true>(a, b) ? a : b;
    }
};

struct ArgMax {
    template <typename T>
    __host__ __device__ static constexpr T identity() {
        return T{Max::identity<decltype(T::value)>(), INT64_MAX};
    }
    template <typename V>
    __host__ __device__ __forceinline__ KeyValue<V> operator()(KeyValue<V> a, KeyValue<V> b) const {
        return arg_before<false>(a, b) ? a : b;
    }
};

// An operator's identity for T. __host__ too: host code makes start values (CUB's init), and a
// __device__-only function reached from host template code compiles there to a silent exit(1).
template <typename T, typename Op>
__host__ __device__ __forceinline__ T identity() {
    return Op::template identity<T>();
}

// The kernel's dynamic shared memory as an array of T (one declaration serves every type).
template <typename T>
__device__ __forceinline__ T *dynamic_shared() {
    extern __shared__ __align__(16) unsigned char tc_dynamic_shared_bytes[];
    return reinterpret_cast<T *>(tc_dynamic_shared_bytes);
}

// ---- warp ---------------------------------------------------------------------------------

// Shuffles of any value the primitives take: built-in types, and KeyValue pairs member by member.
// A program's own pair type takes the scans by overloading shfl_up and shfl beside it (found by
// argument-dependent lookup), as prefiks's segmented pairs do.
template <typename T>
__device__ __forceinline__ T shfl_xor(T v, int offset) { return __shfl_xor_sync(kFullWarp, v, offset); }
template <typename T>
__device__ __forceinline__ T shfl_up(T v, int offset) { return __shfl_up_sync(kFullWarp, v, offset); }
template <typename T>
__device__ __forceinline__ T shfl(T v, int lane) { return __shfl_sync(kFullWarp, v, lane); }
template <typename V>
__device__ __forceinline__ KeyValue<V> shfl_xor(KeyValue<V> v, int offset) {
    return {__shfl_xor_sync(kFullWarp, v.value, offset), __shfl_xor_sync(kFullWarp, v.index, offset)};
}

// float32 bits as an unsigned word in the numbers' order (-Inf ... -0.0, +0.0 ... +Inf; a NaN
// by its sign bit, below -Inf or above +Inf), and back: the arg operators' keys (arg_key,
// arg_unpack). urejanje's to_ordered/from_ordered write the same two lines out: calling these
// instead rescheduled its block sort and made best slower (BENCHMARKS: urejanje best).
__host__ __device__ __forceinline__ uint32_t float_order(uint32_t bits) {
    return (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);
}
__host__ __device__ __forceinline__ uint32_t float_from_order(uint32_t word) {
    return (word & 0x80000000u) ? (word & 0x7fffffffu) : ~word;
}

// argmin/argmax of a warp's pairs with 4-byte values by the warp's min-reduction instruction
// (warp_min_u32) instead of five rounds of three shuffles and a pair compare: the
// value as an unsigned key that orders as the operator does (a NaN first, -0.0 as +0.0, the
// larger first for argmax), then the lowest index among the lanes holding the smallest key, in
// 32-bit halves; the value comes from the winning lane (its payload, its zero's sign). The pair
// that wins is unique (the lowest index among the best values), so this is the butterfly's answer.
template <bool Less, typename V>
__host__ __device__ __forceinline__ uint32_t arg_key(V x) {
    uint32_t u;
    if constexpr (cuda::std::is_floating_point<V>::value) {
        if (x != x) return 0u;
        const float z = x + 0.0f;  // -0.0 + 0.0 is +0.0
        uint32_t b;
        memcpy(&b, &z, 4);
        u = float_order(b);  // ascending with the value; -Inf above 0
    } else {
        u = uint32_t(x) ^ 0x80000000u;
    }
    return Less ? u : ~u;  // (NaN's 0 is below both: the largest float's ~u is 0x007fffff)
}
// The warp's minimum of an unsigned word, in every lane: one instruction from sm_80 on
// (__reduce_min_sync), a butterfly of five shuffles before it.
// Precondition: all 32 lanes of the warp call it, converged.
__device__ __forceinline__ uint32_t warp_min_u32(uint32_t v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
#pragma unroll
    for (int offset = 16; offset > 0; offset >>= 1) {
        const uint32_t u = __shfl_xor_sync(kFullWarp, v, offset);
        v = u < v ? u : v;
    }
    return v;
#else
    return __reduce_min_sync(kFullWarp, v);
#endif
}
template <bool Less, typename V>
__device__ __forceinline__ KeyValue<V> warp_arg_reduce(KeyValue<V> v) {
    static_assert(sizeof(V) == 4, "4-byte values");
    const uint32_t key = arg_key<Less>(v.value), best = warp_min_u32(key);
    const uint32_t hi = uint32_t(uint64_t(v.index) >> 32), lo = uint32_t(uint64_t(v.index));
    const uint32_t best_hi = warp_min_u32(key == best ? hi : ~0u);
    const bool in = key == best && hi == best_hi;
    const uint32_t best_lo = warp_min_u32(in ? lo : ~0u);
    const int from = __ffs(int(__ballot_sync(kFullWarp, in && lo == best_lo))) - 1;
    return {__shfl_sync(kFullWarp, v.value, from), int64_t(uint64_t(best_hi) << 32 | best_lo)};
}
// The minimum of a warp's 64-bit unsigned values by two of the warp's min-reductions: the high halves, then the low halves of the lanes holding the smallest high half
// (the packed arg keys of reduce_best: a key above an index).
__device__ __forceinline__ uint64_t warp_min_u64(uint64_t v) {
    const uint32_t hi = uint32_t(v >> 32), best_hi = warp_min_u32(hi);
    const uint32_t best_lo = warp_min_u32(hi == best_hi ? uint32_t(v) : ~0u);
    return uint64_t(best_hi) << 32 | best_lo;
}
template <typename T>
struct IsKeyValue : cuda::std::false_type {};
template <typename V>
struct IsKeyValue<KeyValue<V>> : cuda::std::true_type {};
// KeyValue pairs of 4-byte values, which warp_arg_reduce packs into one 64-bit word
template <typename T>
constexpr bool kPackedArg = false;
template <typename V>
constexpr bool kPackedArg<KeyValue<V>> = sizeof(V) == 4;

// The warp's reduction of v, in every lane (a butterfly of shuffles: the order of the
// operations is fixed, so the result is the same from run to run; argmin/argmax of 4-byte
// values: warp_arg_reduce).
// Precondition: all 32 lanes of the warp call it, converged.
template <typename T, typename Op>
__device__ __forceinline__ T warp_reduce(T v, Op op = Op()) {
    if constexpr (kPackedArg<T> && cuda::std::is_same<Op, ArgMin>::value) {
        return warp_arg_reduce<true>(v);
    } else if constexpr (kPackedArg<T> && cuda::std::is_same<Op, ArgMax>::value) {
        return warp_arg_reduce<false>(v);
    } else if constexpr (cuda::std::is_same<T, uint64_t>::value && cuda::std::is_same<Op, Min>::value) {
        return warp_min_u64(v);
    } else {
#pragma unroll
        for (int offset = 16; offset > 0; offset >>= 1) v = op(v, shfl_xor(v, offset));
        return v;
    }
}

// The warp's scan of v over lanes 0..31 (Kogge-Stone: five shuffle steps). Inclusive: lane i gets
// v_0 op ... op v_i; exclusive: lane i gets v_0 op ... op v_{i-1}, and lane 0 the identity
// (computed directly, not by undoing an inclusive scan). warp_total, if given, receives the
// whole warp's reduction in every lane.
// Precondition: all 32 lanes of the warp call it, converged.
template <typename T, typename Op, bool Exclusive = false>
__device__ __forceinline__ T warp_scan(T v, Op op = Op(), T *warp_total = nullptr) {
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int offset = 1; offset < 32; offset <<= 1) {
        const T u = shfl_up(v, offset);
        if (lane >= offset) v = op(u, v);
    }
    if (warp_total) *warp_total = shfl(v, 31);
    if constexpr (Exclusive) {
        const T before = shfl_up(v, 1);
        return lane == 0 ? Op::template identity<T>() : before;
    } else {
        return v;
    }
}

// ---- block --------------------------------------------------------------------------------

// Shared memory of block_reduce: declare `__shared__ tc::BlockReduceStorage<T> s;`.
template <typename T>
struct BlockReduceStorage {
    T warp[32];
};

// The block's reduction of v. The result is valid in thread 0 only (the other threads return
// partial values).
// Preconditions: blockDim.x is a multiple of 32 from 32 to 1024 (1-D block); every thread of the
// block calls it; a __syncthreads() separates two uses of the same storage.
template <typename T, typename Op>
__device__ __forceinline__ T block_reduce(T v, BlockReduceStorage<T> &s, Op op = Op()) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    v = warp_reduce<T, Op>(v, op);
    if (lane == 0) s.warp[warp] = v;
    __syncthreads();
    if (warp == 0) v = warp_reduce<T, Op>(lane < warps ? s.warp[lane] : Op::template identity<T>(), op);
    return v;
}

// The block's exclusive scan of v in thread order (thread 0: the identity): the warps' scans, then
// each warp's total folded in after those of the warps before it. warp_totals: shared memory of
// one word a warp of the block.
// Preconditions: blockDim.x is 32 x WARPS; every thread of the block calls it; a __syncthreads()
// separates two uses of the same warp_totals.
template <typename T, typename Op, int WARPS>
__device__ __forceinline__ T block_scan_exclusive(T v, T (&warp_totals)[WARPS], Op op = Op()) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    T total;
    const T before = warp_scan<T, Op, true>(v, op, &total);
    if (lane == 0) warp_totals[warp] = total;
    __syncthreads();
    T warps_before = Op::template identity<T>();
    for (int w = 0; w < warp; ++w) warps_before = op(warps_before, warp_totals[w]);
    return op(warps_before, before);
}

// block_scan_exclusive's sum of 32-bit integers in fewer instructions: each warp's inclusive scan
// less v, and the earlier warps' totals summed by one __reduce_add_sync (sm_80 on; a loop before).
// It keeps more registers live across its barrier, so a kernel at its register bound may spill
// with it where block_scan_exclusive does not (urejanje's radix: BENCHMARKS). Preconditions: those
// of block_scan_exclusive.
template <typename T, int WARPS>
__device__ __forceinline__ T block_scan_exclusive_sum(T v, T (&warp_totals)[WARPS]) {
    static_assert(cuda::std::is_integral<T>::value && sizeof(T) == 4, "32-bit integers");
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    T at = warp_scan<T, Sum>(v);
    if (lane == 31) warp_totals[warp] = at;
    __syncthreads();
    at -= v;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    return at + T(__reduce_add_sync(kFullWarp, lane < warp ? uint32_t(warp_totals[lane]) : 0u));
#else
    for (int w = 0; w < warp; ++w) at += warp_totals[w];
    return at;
#endif
}

// ---- memory -------------------------------------------------------------------------------

// A bulk prefetch of bytes (a multiple of 16, 16-byte aligned) into L2: sm_90's
// cp.async.bulk.prefetch, no registers and no shared memory. A streaming best issues one for the
// data a block tc::prefetch_ahead blocks later will read, so its reads overlap this block's work.
// Before sm_90 there is none; a prefetch is only a hint, so nothing is issued and the data are
// read when their block comes.
__device__ __forceinline__ void prefetch_l2(const void *p, unsigned bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(p), "r"(bytes) : "memory");
#else
    (void)p, (void)bytes;
#endif
}

}  // namespace tc
