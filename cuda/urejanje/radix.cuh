// urejanje radix: an LSD radix sort in the onesweep shape (Adinets & Merrill 2022; CUB's
// DeviceRadixSort onesweep), beyond the lecture and beside its network. Included by plan.cu after
// lecture.cuh and before best.cuh (whose rank sort uses its order words and RadixIo).
#pragma once
#include "runtime/common.cuh"
#include "toolbox/primitives.cuh"
#include "toolbox/tile_state.cuh"

namespace {

// ---- radix: the lesson ----------------------------------------------------------------------
//
// A bitonic network compares; a radix sort counts. Each key becomes an unsigned order word (the
// word sorts as the key does), and the sort runs one pass a digit of the word, least significant
// first. A pass puts every key at (keys of smaller digits in its array) + (keys of its digit
// before it), so it keeps the order of equal digits: it is stable, and after the pass on the top
// digit the keys are sorted, equal keys in input order.
//   radix_histogram  one read of the keys counts every digit of every pass at once;
//   radix_scan       turns each pass's counts into each digit's first place (an exclusive scan),
//                    and marks the passes whose digit is the same for every key: they move
//                    nothing, and are skipped;
//   radix_spans      (where scratch is padded: radix_pads and radix_pad say when) each tile's
//                    runs of scratch, from the digits of the pass before of its first and last key;
//   radix_pass       one launch a pass: a tile ranks its keys by digit in shared memory (warps
//                    find their lanes of equal digits by a ballot a bit), publishes its digit
//                    counts and looks back over the tiles before it for theirs (tile_state.cuh, the protocol of
//                    prefiks best's scan: one status word a tile and digit), then writes each key
//                    (and value) to its place;
//   radix_block      arrays of at most kRadixTile (4096) keys: one block sorts an array, every
//                    pass in shared memory, one launch in all.
// Passes ping-pong between one buffer in scratch and the caller's output (CUB's DoubleBuffer over
// d_keys_out): the first reads the caller's keys, the last writes the output, and the ones before
// alternate back from it, whichever passes run.
//
// Order words: float: the sign-flip of float_order, -0.0 read as +0.0 (so the two zeros are equal
// and stay in input order) and every NaN above +Inf; int32: the sign bit flipped; descending: the
// word complemented (still stable: equal keys keep input order both ways, as the check and every
// variant have it). The word is only compared: the passes move the keys' own bits (every NaN as
// the canonical 0x7fffffff), so a -0.0 comes out as -0.0.

constexpr int kDigitBits = 8;  // a compile-time constant: 11 bits (3 passes) takes 8x the shared counters
constexpr int kRadix = 1 << kDigitBits;
constexpr int kPasses = (32 + kDigitBits - 1) / kDigitBits;
constexpr int kLookBack = 4;  // status words a look-back reads at once (one round trip, not four)

// A tile's shape: threads, keys a thread, and the blocks an SM its registers are bounded for, keys
// alone and pairs (so that while one tile waits on its loads or its look-back the SM's others rank
// or scatter). A thread counts, scans and looks back for kBins digits: threads past the 256th (a
// block of more) own none.
template <int THREADS, int ITEMS, int BLOCKS, int PAIRS_BLOCKS = BLOCKS>
struct RadixShape {
    static constexpr int kThreads = THREADS, kWarps = THREADS / 32, kItems = ITEMS, kTile = THREADS * ITEMS;
    static constexpr int kBins = (kRadix + THREADS - 1) / THREADS;
    static constexpr int blocks(bool pairs) { return pairs ? PAIRS_BLOCKS : BLOCKS; }
    static_assert(THREADS % 32 == 0 && (THREADS >= kRadix || kRadix % THREADS == 0), "each digit is one thread's");
    static_assert(2 * kTile + 32 <= (1 << 16), "a rank (and an unused item's sum) packs into half a word");
    // digit k of this thread: one of the 256 (false only where the block has more threads than digits)
    static __device__ __forceinline__ bool owns(int k) { return THREADS <= kRadix || int(threadIdx.x) * kBins + k < kRadix; }
};
// radix_block's and radix_histogram's tile (an array of at most kRadixTile keys is sorted by one block).
using BlockShape = RadixShape<256, 16, 1>;
constexpr int kRadixThreads = BlockShape::kThreads, kRadixWarps = BlockShape::kWarps, kRadixItems = BlockShape::kItems;
constexpr int kRadixTile = BlockShape::kTile, kBinsPerThread = BlockShape::kBins;
// radix_pass's tiles, one a request's threads name (0: the plan's). A bigger tile scatters longer
// runs of each digit and publishes fewer status words a key, at fewer blocks an SM:
//   256: 16 keys a thread, bounded for 4 blocks an SM;
//   384: CUB's sm_90 block size (its threads take 19 keys), 20 keys a thread: bounded for 3
//        blocks an SM with keys alone (the plan's past twice the L2), 2 with pairs;
//   512: 16 keys a thread, bounded for 2 blocks an SM (the warps of 256's 4, tiles twice as long).
using PassShape256 = RadixShape<256, 16, 4>;
using PassShape384 = RadixShape<384, 20, 3, 2>;
using PassShape512 = RadixShape<512, 16, 2>;

// A key's order word (see above), and the bits a sorted key comes out as. radix_float_word: a
// float32 key's order word, NaN aside (-0.0 as +0.0).
__device__ __forceinline__ uint32_t radix_float_word(uint32_t bits) { return tc::float_order(bits == 0x80000000u ? 0u : bits); }
__device__ __forceinline__ uint32_t radix_word(uint32_t bits, tc_dtype type, bool descending) {
    uint32_t w = bits;
    if (type == TC_FLOAT32) {
        if ((bits & 0x7fffffffu) > 0x7f800000u) w = 0xffffffffu;  // every NaN: after +Inf
        else w = radix_float_word(bits);
    } else if (type == TC_INT32) {
        w = bits ^ 0x80000000u;
    }
    return descending ? ~w : w;
}
__device__ __forceinline__ uint32_t radix_key_out(uint32_t bits, tc_dtype type) {
    return type == TC_FLOAT32 && (bits & 0x7fffffffu) > 0x7f800000u ? 0x7fffffffu : bits;
}
__device__ __forceinline__ uint32_t digit_of(uint32_t word, int pass) {
    return (word >> (pass * kDigitBits)) & uint32_t(kRadix - 1);
}

// Scratch's layout of a long array's keys (and values): the run of digit d sits pad x d words further
// on than in the caller's buffers, so that where each digit's keys fill a power of two of bytes (n
// near 2^27: 2 MiB) the 256 runs a pass writes at once do not lie a power of two apart in scratch
// (BENCHMARKS: urejanje radix, keys near 2^27). pad: 1/65536 of the array and one line more, in
// whole 128-byte lines (each run's place within a line unchanged; at a power-of-two n, not itself
// a power of two, as 255 digits' runs are not). From 3 x 2^25 keys (runs 1.5 MiB apart and more):
// below, the tiles that span two runs (key by key) cost more than the layout buys (BENCHMARKS has
// the figures, and the H200's, where padding costs a little everywhere); 0 there, and for pairs
// and float keys (pairs show no such step; float keys' kernels spill with it).
constexpr int64_t kPadFrom = int64_t(3) << 25;
__host__ __device__ __forceinline__ uint32_t radix_pad(int64_t n, bool pads) {
    return pads && n >= kPadFrom && n < (int64_t(1) << 31) ? (uint32_t(n >> 16) & ~31u) + 32u : 0u;  // (a padded array's places fit 32 bits)
}
// radix_pads: whether a sort pads its scratch: integer keys alone, and not in the 256 block's tiles
// (the plan takes them at such sizes only where an SM holds neither larger block, a T4's for one,
// or where a request names them; its integer kernel spills with padding)
__host__ __device__ __forceinline__ bool radix_pads(bool pairs, tc_dtype type, int threads) {
    return !pairs && type != TC_FLOAT32 && threads != 256;
}
// an array's words in padded scratch: n and pad words after each of its kRadix digits' runs
__host__ __device__ __forceinline__ int64_t padded_n(int64_t n, uint32_t pad) { return n + int64_t(kRadix) * pad; }

// Where the sort reads and writes: the caller's buffers, and the output's ping-pong partner in scratch.
struct RadixIo {
    const uint32_t *keys_in, *values_in;  // values_in null: each value is its key's index in its array
    uint32_t *keys_out, *values_out;      // (pairs only)
    uint32_t *keys_tmp, *values_tmp;      // scratch: the ping-pong partner of keys_out (values_out)
    int64_t n, batch;
    tc_dtype type;
    bool descending;
};

// A pass's keys as radix words, the key type fixed at compile time where it decides the code:
// float32's order needs its NaN and -0.0 rules; int32 and uint32 keys are one xor (the sign bit for
// int32, every bit for descending), so their pass computes no float rule it does not use. CANON:
// the keys were written by an earlier pass, every NaN as 0x7fffffff, whose float_order (all ones)
// is already NaN's word: the NaN test is left out.
template <bool FLOAT, bool CANON = false>
struct KeyWords {
    bool descending;
    uint32_t flip;
    __device__ __forceinline__ explicit KeyWords(const RadixIo &io)
        : descending(io.descending),
          flip((io.type == TC_INT32 ? 0x80000000u : 0u) ^ (io.descending ? 0xffffffffu : 0u)) {}
    // the key's digit of the pass: an integer key's digit is its bits' digit xor the flip's (one
    // instruction with the shift's mask, not a flip of every key's word first)
    __device__ __forceinline__ uint32_t digit(uint32_t bits, int pass) const {
        if constexpr (FLOAT && CANON) {
            const uint32_t w = radix_float_word(bits);
            return digit_of(descending ? ~w : w, pass);
        } else if constexpr (FLOAT) {
            return digit_of(radix_word(bits, TC_FLOAT32, descending), pass);
        } else {
            return digit_of(bits, pass) ^ digit_of(flip, pass);
        }
    }
    // the same digit, an integer key's byte taken by one PRMT (step 5's scatter: one instruction, not a shift and a mask)
    __device__ __forceinline__ uint32_t digit_prmt(uint32_t bits, int pass) const {
        static_assert(kDigitBits == 8, "a digit is a byte");
        if constexpr (FLOAT) return digit(bits, pass);
        else return __byte_perm(bits ^ flip, 0u, 0x4440u | uint32_t(pass));  // (byte `pass` of the word)
    }
    __device__ __forceinline__ uint32_t out(uint32_t bits) const {
        if constexpr (FLOAT) return radix_key_out(bits, TC_FLOAT32);
        else return bits;
    }
};
// The passes' state in scratch (zero-filled once; each run leaves counts zero and moves the epoch on).
struct RadixState {
    tc::tile::Epoch *epoch;  // the one epoch of every pass (each pass's launch moves it on once)
    uint32_t *counts;        // [batch][kPasses][kRadix] the histogram; radix_scan leaves it zero
    uint32_t *bases;         // [batch][kPasses][kRadix] each digit's first place in its array
    uint32_t *passes;        // [batch] the passes each array runs (bit p: pass p)
    uint64_t *status;        // [batch * tiles][kRadix] the tiles' digit counts (tile_state.cuh words)
    uint16_t *spans;         // [kPasses][batch * tiles] (padded scratch) the digits, in the pass before, of a tile's first and last key
    int64_t tiles;           // tiles a pass sorts in each array (a tile never spans two arrays)
    int64_t chunk, chunks;   // keys one histogram block counts; such chunks in each array
};
using RadixTiles = tc::tile::TileState<tc::tile::SleepGiveUp<>>;

// ---- ranking a tile by digit ----------------------------------------------------------------

// A thread's digits of its S::kItems keys, four to a word: a quarter of the registers an array
// takes (radix_pass keeps its keys, and but for the direct scatter, direct_scatter_for, their
// ranks, in registers beside them).
template <class S>
struct Digits {
    uint32_t w[(S::kItems + 3) / 4];
    __device__ __forceinline__ uint32_t get(int i) const { return (w[i / 4] >> (8 * (i % 4))) & 0xffu; }
    // the same by one PRMT (rank_tile at 384 x 20 lean: shorter there; at 512 x 16 pairs it spills)
    __device__ __forceinline__ uint32_t byte(int i) const { return __byte_perm(w[i / 4], 0u, 0x4440u | uint32_t(i % 4)); }
    __device__ __forceinline__ void set(int i, uint32_t d) { w[i / 4] = i % 4 == 0 ? d : w[i / 4] | d << (8 * (i % 4)); }
};

// A thread's ranks, two to a word (a rank, and every partial sum of one, is below 2^16): half the
// registers an array takes.
template <class S>
struct Ranks {
    uint32_t w[(S::kItems + 1) / 2];
    __device__ __forceinline__ uint32_t get(int i) const { return (w[i / 2] >> (16 * (i % 2))) & 0xffffu; }
    __device__ __forceinline__ void set(int i, uint32_t r) { w[i / 2] = i % 2 == 0 ? r : w[i / 2] | r << 16; }
};

template <class S>
struct RankStorage {
    uint32_t warp_counts[S::kWarps][kRadix];  // a warp's keys of each digit; then the tile's before its first
    uint32_t warp_sums[S::kWarps];
};

// The lanes of this warp whose digit is this lane's, the digit being bits [shift, shift + 8) of
// word (a Digits word, read in place): a ballot a bit, each keeping the lanes that agree with this
// one there (CUB's MatchAny, in place of __match_any_sync: BENCHMARKS, urejanje radix).
// Precondition: the whole warp calls it.
__device__ __forceinline__ uint32_t digit_peers(uint32_t word, int shift) {
    uint32_t peers = ~0u;
#pragma unroll
    for (int bit = 0; bit < kDigitBits; ++bit) {
        uint32_t agree;  // the lanes whose bit is this lane's: the ballot, complemented where the bit is 0
        asm("{\n\t.reg .pred p;\n\tand.b32 %0, %1, %2;\n\tsetp.ne.u32 p, %0, 0;\n\t"
            "vote.ballot.sync.b32 %0, p, 0xffffffff;\n\t@!p not.b32 %0, %0;\n\t}"
            : "=r"(agree)
            : "r"(word), "r"(1u << (shift + bit)));
        peers &= agree;
    }
    return peers;
}

// The tile position of a thread's item i (see rank_tile).
template <class S>
__device__ __forceinline__ int item_at(int i) { return (threadIdx.x >> 5) * (32 * S::kItems) + 32 * i + (threadIdx.x & 31); }

// A tile's keys ranked by digit, stably (CUB's BlockRadixRankMatchEarlyCounts). Item i of a
// thread is the tile's key warp * 32 * S::kItems + 32 i + lane (item_at), so a warp going item by
// item, lanes in order, meets its keys in input order; items at or past `valid` are ranked and
// counted nowhere. First each warp counts its keys of each digit (shared atomics): the tile's
// counts are known before any key is ranked, and counted(count) is called with them at once
// (radix_pass publishes them there, so the tiles after it wait less). The counts are scanned,
// and each warp's counter of a digit becomes the digit's first place plus the keys of that digit
// in the warps before. Then a warp's lanes with equal digits find each other item by item
// (digit_peers) and the highest of them adds their number to the counter (one shared atomic; the
// shuffle of its result, and so the next item's ballots, wait for it, as in CUB's WARP_MATCH_ANY):
// a key's place is the counter before it plus its peers in lower lanes. WHOLE: valid is
// S::kTile (no item is checked). place(i, r) is called with item i's place r in the tile ordered
// by digit (for every item: an unranked one's r means nothing), and on return count[k] is the
// tile's keys of digit threadIdx.x * S::kBins + k and first[k] that digit's first place (for a
// digit the thread does not own, count 0 and first the tile's total, which no caller reads).
// Preconditions: every thread calls it; a __syncthreads() separates it from the next write to s.
template <class S, bool WHOLE = false, bool LEAN = (S::kItems <= 16), class Place, class Counted>
__device__ __forceinline__ void rank_tile(const Digits<S> &digits, int valid, Place place, uint32_t (&count)[S::kBins],
                                          uint32_t (&first)[S::kBins], RankStorage<S> &s, Counted counted) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    // LEAN (16 keys a thread and fewer; 384 x 20 keys scattered from the ranking, which hold no
    // ranks): the zeroing unrolled, the warps' totals summed by one reduction (below). Not at 384 x 20
    // holding ranks: at its register bound these forms spill (BENCHMARKS: urejanje radix)
    constexpr bool kLean20 = LEAN && S::kItems > 16;  // (LEAN at 20 keys: the forms below marked so)
    if constexpr (LEAN) {
#pragma unroll
        for (int u = 0; u < kRadix / 32; ++u) (&s.warp_counts[0][0])[threadIdx.x + u * S::kThreads] = 0;
    } else {
        for (int j = threadIdx.x; j < S::kWarps * kRadix; j += S::kThreads) (&s.warp_counts[0][0])[j] = 0;
    }
    __syncthreads();
    uint32_t *mine = s.warp_counts[warp];
#pragma unroll
    for (int i = 0; i < S::kItems; ++i)
        if (WHOLE || item_at<S>(i) < valid) atomicAdd(&mine[kLean20 ? digits.byte(i) : digits.get(i)], 1u);
    __syncthreads();
    uint32_t sum = 0;
#pragma unroll
    for (int k = 0; k < S::kBins; ++k) {
        const int bin = threadIdx.x * S::kBins + k;
        uint32_t run = 0;
        if (S::owns(k)) {
#pragma unroll
            for (int w = 0; w < S::kWarps; ++w) {
                const uint32_t c = s.warp_counts[w][bin];
                s.warp_counts[w][bin] = run;
                run += c;
            }
        }
        count[k] = run;
        sum += run;
    }
    counted(count);
    // (LEAN: in fewer instructions, with more registers live)
    uint32_t at = LEAN ? tc::block_scan_exclusive_sum(sum, s.warp_sums) : tc::block_scan_exclusive<uint32_t, tc::Sum>(sum, s.warp_sums);
#pragma unroll
    for (int k = 0; k < S::kBins; ++k) {
        first[k] = at;
        if (S::owns(k))
#pragma unroll
            for (int w = 0; w < S::kWarps; ++w) s.warp_counts[w][threadIdx.x * S::kBins + k] += at;
        at += count[k];
    }
    __syncthreads();
    const uint32_t upto = (2u << lane) - 1u;  // this lane and the lanes below it
    // LEAN at 20 keys a thread: the digits' words shuffled from this lane (ptxas can't see they are
    // the same), so the keys' counter addresses are computed again here, not held from the counting (they spill)
    Digits<S> dg = digits;
    if constexpr (kLean20)
#pragma unroll
        for (int j = 0; j < (S::kItems + 3) / 4; ++j) dg.w[j] = __shfl_sync(tc::kFullWarp, dg.w[j], lane);
#pragma unroll
    for (int i = 0; i < S::kItems; ++i) {
        const bool ranked = WHOLE || item_at<S>(i) < valid;
        const uint32_t d = kLean20 ? dg.byte(i) : dg.get(i);
        uint32_t peers = digit_peers(dg.w[i / 4], 8 * (i % 4));
        if (!WHOLE) {  // (a partial tile's items past `valid` are nobody's peers)
            const uint32_t in = __ballot_sync(tc::kFullWarp, ranked);
            peers &= ranked ? in : ~in;
        }
        // the highest peer adds them all: its peers up to it are all of them (one count for both)
        const int leader = 31 - __clz(int(peers));
        const uint32_t here = __popc(peers & upto);  // this key's place among its peers, from 1
        uint32_t before = 0;
        if constexpr (!kLean20) {
            if (lane == leader && ranked) before = atomicAdd(&mine[d], here);
        } else {
            // LEAN at 20 keys a thread: the add predicated in PTX (ptxas then holds the warp's
            // counters' base, not computing it again a key)
            asm volatile("{\n\t.reg .pred p;\n\tsetp.eq.u32 p, %1, %2;\n\t@p atom.shared.add.u32 %0, [%3], %4;\n\t}"
                         : "+r"(before)
                         : "r"(lane), "r"(ranked ? leader : -1), "r"(uint32_t(__cvta_generic_to_shared(&mine[d]))), "r"(here)
                         : "memory");
        }
        // (the shuffle waits for the leader's add: the next item's adds come after it)
        place(i, __shfl_sync(tc::kFullWarp, before, leader) + here - 1u);
    }
}

// The keys of digit `bin` in the tiles of its array before tile g (the array's tile t > 0):
// kLookBack status words read at once, then summed in order back to the nearest inclusive one
// (the array's tile 0 publishes inclusive, so the walk ends there). false: a wait gave up (never
// expected: the result then fails its check).
__device__ __forceinline__ bool look_back(const RadixTiles &words, int64_t g, int64_t t, int bin, uint32_t &earlier) {
    const int64_t stop = g - t;  // the array's tile 0
    earlier = 0;
    for (int64_t j = g - 1;; j -= kLookBack) {
        uint64_t w[kLookBack];
#pragma unroll
        for (int q = 0; q < kLookBack; ++q) w[q] = j - q >= stop ? words.load((j - q) * kRadix + bin) : 0;
#pragma unroll
        for (int q = 0; q < kLookBack; ++q) {
            if (j - q < stop) return true;  // (not reached: tile 0's word is inclusive)
            for (RadixTiles::Polls polls; !words.published(w[q]);) {
                if (!polls.again()) return false;
                w[q] = words.load((j - q) * kRadix + bin);
            }
            earlier += tc::tile::value_of(w[q]);
            if (tc::tile::status_of(w[q]) == tc::tile::kInclusive) return true;
        }
    }
}

// ---- the kernels ----------------------------------------------------------------------------

// radix_histogram: block (array b, chunk c) counts the digits of every pass of its chunk's keys in
// shared memory, then adds them to the array's counts: one read of the keys for all passes. A
// thread issues the loads of kRadixItems keys before it counts any (a tile of the chunk at a
// time), so the loads are in flight together.
__global__ void __launch_bounds__(kRadixThreads) radix_histogram(RadixIo io, RadixState st) {
    __shared__ uint32_t h[kPasses * kRadix];
    for (int j = threadIdx.x; j < kPasses * kRadix; j += kRadixThreads) h[j] = 0;
    __syncthreads();
    const int64_t b = blockIdx.x / st.chunks, c = blockIdx.x % st.chunks;
    const uint32_t *keys = io.keys_in + b * io.n;
    const int64_t end = (c + 1) * st.chunk < io.n ? (c + 1) * st.chunk : io.n;
    const auto add = [&](uint32_t key) {
        const uint32_t w = radix_word(key, io.type, io.descending);
#pragma unroll
        for (int p = 0; p < kPasses; ++p) atomicAdd(&h[p * kRadix + digit_of(w, p)], 1u);
    };
    for (int64_t at = c * st.chunk + threadIdx.x; at < end; at += kRadixTile) {
        uint32_t key[kRadixItems];
        if (at - threadIdx.x + kRadixTile <= end) {  // a whole tile
#pragma unroll
            for (int i = 0; i < kRadixItems; ++i) key[i] = __ldg(keys + at + i * kRadixThreads);
#pragma unroll
            for (int i = 0; i < kRadixItems; ++i) add(key[i]);
        } else {
#pragma unroll
            for (int i = 0; i < kRadixItems; ++i)
                if (at + i * kRadixThreads < end) key[i] = __ldg(keys + at + i * kRadixThreads);
#pragma unroll
            for (int i = 0; i < kRadixItems; ++i)
                if (at + i * kRadixThreads < end) add(key[i]);
        }
    }
    __syncthreads();
    uint32_t *counts = st.counts + b * (kPasses * kRadix);
    for (int j = threadIdx.x; j < kPasses * kRadix; j += kRadixThreads)
        if (h[j]) atomicAdd(&counts[j], h[j]);
}

// radix_scan: block b scans array b's counts of each pass into each digit's first place, and
// leaves the counts zero for the next run. A pass where one digit holds all n keys moves nothing
// and is skipped, but one pass at least runs, so that the result reaches the output. Where the
// output is the input (in place), an even number run: the first pass then writes scratch, never
// the keys it reads, which other tiles are still reading (radix_pass's ping-pong).
__global__ void __launch_bounds__(kRadixThreads) radix_scan(RadixIo io, RadixState st, bool in_place) {
    __shared__ uint32_t warp_sums[kRadixWarps];
    const int64_t b = blockIdx.x;
    uint32_t passes = 0;
    for (int p = 0; p < kPasses; ++p) {
        uint32_t *counts = st.counts + (b * kPasses + p) * kRadix, *bases = st.bases + (b * kPasses + p) * kRadix;
        uint32_t count[kBinsPerThread], sum = 0;
        bool one_digit = false;
#pragma unroll
        for (int k = 0; k < kBinsPerThread; ++k) {
            const int bin = threadIdx.x * kBinsPerThread + k;
            count[k] = counts[bin];
            counts[bin] = 0;
            sum += count[k];
            one_digit |= int64_t(count[k]) == io.n;
        }
        uint32_t first = tc::block_scan_exclusive<uint32_t, tc::Sum>(sum, warp_sums);
#pragma unroll
        for (int k = 0; k < kBinsPerThread; ++k) {
            bases[threadIdx.x * kBinsPerThread + k] = first;
            first += count[k];
        }
        if (!__syncthreads_or(one_digit)) passes |= 1u << p;  // (also: warp_sums is free again)
    }
    if (threadIdx.x == 0) {
        // (a skipped pass run after all moves the keys in their order: the lowest skipped one)
        while (passes == 0 || (in_place && __popc(passes) % 2 != 0)) passes |= ~passes & (passes + 1);
        st.passes[b] = passes;
    }
}

// radix_pass's shared memory: the ranking's counters, then in their place the tile's keys in digit
// order, then (pairs) its values in digit order in the same words; each digit's place, and (pairs)
// each sorted slot's digit for the values' places. DIRECT (keys alone at 384 x 20, where the SM's
// shared memory holds three such blocks): the keys' words beside the counters, not over them.
template <bool PAIRS, class S, bool DIRECT = false>
struct PassStorage {
    union {
        RankStorage<S> rank;
        uint32_t sorted[DIRECT ? 1 : S::kTile];
    } u;
    uint32_t direct_sorted[DIRECT ? S::kTile : 1];
    uint32_t bin_start[kRadix];  // the place in its array of the tile's digit-sorted position 0
    uint8_t slot_digit[PAIRS ? S::kTile : 4];
    uint32_t run;
    __device__ __forceinline__ uint32_t *sorted() { return DIRECT ? direct_sorted : u.sorted; }
};
// Whether radix_pass scatters its keys to shared memory from the ranking itself, holding no ranks
// (keys alone at 384 x 20, whose registers then fit rank_tile's lean forms): only in machine code
// for the architectures (cc: compute capability x 10) whose SM holds three blocks of the larger
// storage. The kernel asks it of the architecture it is compiled for (direct_scatter), the plan of
// the device's (an emulated one's too).
template <class S>
__host__ __device__ constexpr bool direct_scatter_for(bool pairs, int cc) {
    return !pairs && S::kItems > 16 && (cc == 80 || cc == 87 || cc == 90 || cc == 100 || cc == 103);
}
template <bool PAIRS, class S>
__device__ constexpr bool direct_scatter() {
#if defined(__CUDA_ARCH__)
    return direct_scatter_for<S>(PAIRS, __CUDA_ARCH__ / 10);
#else
    return false;
#endif
}

// The buffers a pass reads and writes in an array that runs it (passes: the array's, from
// radix_scan): the last pass writes the output, the one before it scratch, and so on back, so
// each reads what the pass before it wrote.
struct PassBuffers {
    const uint32_t *keys_in, *values_in;
    uint32_t *keys_out, *values_out;
    bool first;  // the array's first pass: it reads the caller's keys
    bool in_scratch, out_scratch;  // it reads (writes) scratch's keys and values
};
__device__ __forceinline__ PassBuffers pass_buffers(const RadixIo &io, uint32_t passes, int pass) {
    const int before = __popc(passes & ((1u << pass) - 1u)), last = __popc(passes) - 1;
    const bool to_out = ((last - before) & 1) == 0;
    return {before == 0 ? io.keys_in : to_out ? io.keys_tmp : io.keys_out,
            before == 0 ? io.values_in : to_out ? io.values_tmp : io.values_out, to_out ? io.keys_out : io.keys_tmp,
            to_out ? io.values_out : io.values_tmp, before == 0, before != 0 && to_out, !to_out};
}

// Each digit's first place in array b in the last pass that runs before `pass` (one does).
__device__ __forceinline__ const uint32_t *bases_before(const RadixState &st, int64_t b, uint32_t passes, int pass) {
    return st.bases + (b * kPasses + (31 - __clz(int(passes & ((1u << pass) - 1u))))) * kRadix;
}

// radix_spans (padded scratch, radix_pad): for each pass that reads scratch, the digits in the
// pass before of each tile's first and last key (the runs of scratch its keys lie in), a thread a
// tile and pass: where they differ the tile reads key by key (TileLoads::spanned).
__global__ void __launch_bounds__(kRadixThreads) radix_spans(RadixIo io, RadixState st, int tile) {
    const int64_t tiles = io.batch * st.tiles, at = int64_t(blockIdx.x) * kRadixThreads + threadIdx.x;
    if (at >= kPasses * tiles) return;
    const int pass = int(at / tiles);
    const int64_t g = at - pass * tiles, b = g / st.tiles, t = g - b * st.tiles;
    const uint32_t passes = st.passes[b];
    if (!((passes >> pass) & 1u) || !pass_buffers(io, passes, pass).in_scratch) return;  // (no tile reads it)
    const uint32_t *run_first = bases_before(st, b, passes, pass);
    const auto digit_at = [&](uint32_t p) {  // the last digit whose run starts at or before p
        int lo = 0;
        for (int step = kRadix / 2; step > 0; step /= 2)
            if (__ldg(run_first + lo + step) <= p) lo += step;
        return uint32_t(lo);
    };
    const int64_t first = t * tile, last = (first + tile < io.n ? first + tile : io.n) - 1;
    st.spans[at] = uint16_t(digit_at(uint32_t(first)) | digit_at(uint32_t(last)) << 8);
}

// A tile's loads in radix_pass: the keys from global memory as the tile starts, the values after
// its ranking (waiting in registers behind the look-back). Its pointers are set before the kernel
// chooses between whole and short tiles, which keeps them out of both paths' registers.
template <bool PAIRS, class S>
struct TileLoads {
    const uint32_t *tile_keys, *values_in;  // this thread's first key; the pass's values (null: each its key's index)
    int64_t at, first;                      // the tile's first key: in all (scratch: its word), in its array
    // a tile of padded scratch whose keys span runs of more than one digit of the pass before (at
    // most 255 tiles an array a pass): each key's place from those digits' first places (else null)
    const uint32_t *run_first;
    const uint32_t *run_keys, *run_values;  // the array's first key and value in scratch
    uint32_t pad, digit, last_digit;
    uint32_t value[PAIRS ? S::kItems : 1];

    __device__ __forceinline__ TileLoads(const PassBuffers &in, int64_t at, int64_t first)
        : tile_keys(in.keys_in + at + item_at<S>(0)), values_in(in.values_in), at(at), first(first), run_first(nullptr) {}
    // item i's word in its buffer, the tile spanning runs (see above): only in a short tile's path
    __device__ __forceinline__ uint32_t spanned(int i) const {
        const uint32_t p = uint32_t(first) + uint32_t(item_at<S>(i));
        uint32_t d = digit;
        while (d < last_digit && __ldg(run_first + d + 1) <= p) ++d;
        return p + pad * d;
    }
    // (a pass never writes the buffer it reads: the read-only path)
    template <bool WHOLE>
    __device__ __forceinline__ uint32_t key(int i) const {
        if constexpr (!WHOLE)
            if (run_first) return __ldg(run_keys + spanned(i));
        return __ldg(tile_keys + 32 * i);
    }
    template <bool WHOLE>
    __device__ __forceinline__ void load_values(int count) {
        if constexpr (PAIRS) {
            const uint32_t *tile_values = values_in ? values_in + at + item_at<S>(0) : nullptr;
#pragma unroll
            for (int i = 0; i < S::kItems; ++i) {
                if (!WHOLE && item_at<S>(i) >= count) value[i] = 0u;
                else if (!WHOLE && run_first) value[i] = __ldg(run_values + spanned(i));
                else value[i] = tile_values ? __ldg(tile_values + 32 * i) : uint32_t(first + item_at<S>(i));
            }
        }
    }
    __device__ __forceinline__ uint32_t value_of(int i) const { return value[i]; }
};

// One tile of radix_pass (its steps 1 to 5, below), its keys and values from `loads`; WHOLE: the tile has S::kTile keys.
// pad_out: the pass writes padded scratch (radix_pad), else 0.
template <bool PAIRS, class S, bool FLOAT, bool WHOLE, bool CANON, bool DIRECT>
__device__ __forceinline__ void sort_tile(const RadixIo &io, const RadixState &st, int pass, PassStorage<PAIRS, S, DIRECT> &s, int64_t g,
                                          int64_t b, int64_t t, uint32_t *keys_out, uint32_t *values_out, TileLoads<PAIRS, S> &loads,
                                          uint32_t pad_out) {
    const int64_t first = t * S::kTile;  // the tile's first key in its array
    const int count = WHOLE ? S::kTile : int(io.n - first < S::kTile ? io.n - first : S::kTile);
    const KeyWords<FLOAT, CANON> kw(io);
    static_assert(!(DIRECT && PAIRS), "a direct scatter holds no ranks for the values");

    // 1. the keys, every load in flight before the first digit
    uint32_t key[S::kItems];
#pragma unroll
    for (int i = 0; i < S::kItems; ++i) key[i] = WHOLE || item_at<S>(i) < count ? loads.template key<WHOLE>(i) : 0u;
    // each digit's first place in the array, loaded with the keys (loaded after the ranking, its
    // address would be held across the barrier and spill)
    uint32_t base_of[S::kBins];
#pragma unroll
    for (int k = 0; k < S::kBins; ++k)
        base_of[k] = S::owns(k) ? __ldg(st.bases + (b * kPasses + pass) * kRadix + threadIdx.x * S::kBins + k) : 0u;
    Digits<S> digits;
#pragma unroll
    for (int i = 0; i < S::kItems; ++i) digits.set(i, kw.digit(key[i], pass));

    // 2. ranks, and the counts published as soon as they are known
    // (DIRECT: each key to its place in shared memory as it is ranked; else its rank held for step 3)
    Ranks<S> rank;
    uint32_t count_of[S::kBins], first_of[S::kBins];
    const auto place = [&](int i, uint32_t r) {
        if constexpr (DIRECT) {
            if (WHOLE || item_at<S>(i) < count) s.direct_sorted[r] = key[i];
        } else {
            rank.set(i, r);
        }
    };
    rank_tile<S, WHOLE, DIRECT || S::kItems <= 16>(digits, count, place, count_of, first_of, s.u.rank, [&](const uint32_t (&c)[S::kBins]) {
        const RadixTiles words{st.status, s.run};  // (rank_tile's first barrier published s.run)
#pragma unroll
        for (int k = 0; k < S::kBins; ++k) {
            const int64_t word = g * kRadix + threadIdx.x * S::kBins + k;
            if (!S::owns(k)) continue;
            if (t == 0) words.publish_inclusive(word, c[k]);
            else words.publish_aggregate(word, c[k]);
        }
    });
    // each digit's first place in the array (padded: pad_out x digit on) less its first place in
    // the tile; step 4 adds its keys in the tiles before
#pragma unroll
    for (int k = 0; k < S::kBins; ++k) {
        const int bin = threadIdx.x * S::kBins + k;
        if (S::owns(k)) s.bin_start[bin] = base_of[k] - first_of[k] + pad_out * uint32_t(bin);  // (mod 2^32)
    }
    if constexpr (!DIRECT) {
        __syncthreads();  // the ranking's counters read: their words take the keys

        // 3. the keys in digit order; the values' loads issued
#pragma unroll
        for (int i = 0; i < S::kItems; ++i)
            if (WHOLE || item_at<S>(i) < count) s.u.sorted[rank.get(i)] = key[i];
        loads.template load_values<WHOLE>(count);
    }

    // 4. the tiles before: each thread's digits
    const RadixTiles words{st.status, s.run};
#pragma unroll
    for (int k = 0; k < S::kBins; ++k) {
        const int bin = threadIdx.x * S::kBins + k;
        if (!S::owns(k)) continue;
        uint32_t earlier = 0;  // this digit's keys in the array's tiles before this one
        if (t > 0) {
            look_back(words, g, t, bin, earlier);  // (gave up: the places are wrong, the check fails)
            words.publish_inclusive(g * kRadix + bin, earlier + count_of[k]);
        }
        s.bin_start[bin] += earlier;
    }
    __syncthreads();
    unsigned long long done = 0;
    if (threadIdx.x == 0) done = st.epoch->count_done();

    // 5. the keys out, then the values. A place past the array's end (counts that scratch did not
    // hold zeroed) is written at the array's last slot (padded scratch: its last word, unread), so
    // that a key goes missing and the check fails; nothing is written outside the array (a clamp,
    // cheaper than a branch)
    const int64_t array_words = padded_n(io.n, pad_out);
    const uint32_t last_place = uint32_t(array_words - 1);  // (radix: n < 2^32, and then its padded length too)
    uint32_t *out = keys_out + b * array_words;
    asm("" : "+l"(out));  // (the array's offset added once, not folded into every store's 64-bit address)
#pragma unroll
    for (int u = 0; u < S::kItems; ++u) {
        const int j = threadIdx.x + u * S::kThreads;
        if (WHOLE || j < count) {
            const uint32_t k = s.sorted()[j], d = kw.digit_prmt(k, pass);
            const uint32_t place = s.bin_start[d] + uint32_t(j);
            if constexpr (PAIRS) s.slot_digit[j] = uint8_t(d);
            out[min(place, last_place)] = kw.out(k);
        }
    }
    if constexpr (PAIRS) {
        __syncthreads();  // the keys read: the same words take the values
#pragma unroll
        for (int i = 0; i < S::kItems; ++i)
            if (WHOLE || item_at<S>(i) < count) s.u.sorted[rank.get(i)] = loads.value_of(i);
        __syncthreads();
        uint32_t *vout = values_out + b * array_words;
        asm("" : "+l"(vout));
#pragma unroll
        for (int u = 0; u < S::kItems; ++u) {
            const int j = threadIdx.x + u * S::kThreads;
            if (WHOLE || j < count) {
                const uint32_t place = s.bin_start[s.slot_digit[j]] + uint32_t(j);
                vout[min(place, last_place)] = s.u.sorted[j];
            }
        }
    }
    if (threadIdx.x == 0) st.epoch->advance_if_last(done, gridDim.x);
}

// radix_pass: tile blockIdx.x of the pass (array b's tile t), in CUB's onesweep order:
//   1. every key's load is issued at once, then each key's digit is packed (Digits);
//   2. the tile ranks its keys by digit (rank_tile) and publishes its digit counts as soon as they
//      are counted (tile_state.cuh: the array's tile 0 as inclusive, the others as aggregates);
//   3. the keys go to shared memory in digit order, and (pairs) the values' loads are issued: a
//      value is needed only at the scatter, so its load waits for nothing and its latency hides
//      behind the look-back (keys alone at 384 x 20 where direct_scatter: no step 3, each key is
//      placed there as step 2 ranks it);
//   4. each thread looks back over the tiles before for its digit (look_back), down to the nearest
//      inclusive count, and publishes its inclusive count;
//   5. the keys go out from shared memory, each thread writing every S::kThreads-th sorted slot, so that a
//      warp writes 32 consecutive slots and a run of one digit lands on consecutive places; then
//      the values, through the same shared words.
// Tiles are taken in launch order (blockIdx.x), as prefiks best's scan takes them: blocks are
// dispatched in index order, so every tile a look-back waits for is running or done (no ticket
// needed). Every block counts itself done (tile::Epoch's counted rule), skipping or not, so each
// launch moves the epoch on once. Its registers are bounded for S::blocks(PAIRS) blocks an SM (where
// the architecture's SM holds so many threads: an sm_75 SM two of 384).
// PAD: the kernel of padded scratch (radix_pad), its own, so that the others carry none of its code.
template <bool PAIRS, class S, bool FLOAT, bool PAD = false>
__global__ void __launch_bounds__(S::kThreads, tc::bound_blocks(S::kThreads, S::blocks(PAIRS)))
    radix_pass(RadixIo io, RadixState st, int pass) {
    constexpr bool kDirect = direct_scatter<PAIRS, S>();
    __shared__ PassStorage<PAIRS, S, kDirect> s;
    // (one array: no 64-bit division)
    const int64_t g = blockIdx.x, b = st.tiles == int64_t(gridDim.x) ? 0 : g / st.tiles, t = g - b * st.tiles;
    const uint32_t passes = st.passes[b];
    if (!((passes >> pass) & 1u)) {  // this array skips the pass
        if (threadIdx.x == 0) st.epoch->advance_if_last(st.epoch->count_done(), gridDim.x);
        return;
    }
    if (threadIdx.x == 0) s.run = st.epoch->read_counted();
    const PassBuffers buf = pass_buffers(io, passes, pass);
    // padded scratch (radix_pad): the tile's first key's word from its digit in the pass before;
    // a tile whose keys span more than one such digit takes the short tiles' path, key by key
    static_assert(!PAD || (!PAIRS && !FLOAT), "padded scratch: integer keys alone");
    const uint32_t pad = PAD ? radix_pad(io.n, true) : 0u, pad_out = buf.out_scratch ? pad : 0u;
    const uint32_t span = PAD && buf.in_scratch ? st.spans[int64_t(pass) * gridDim.x + g] : 0u;
    const int64_t array_at = b * padded_n(io.n, buf.in_scratch ? pad : 0u);
    TileLoads<PAIRS, S> loads(buf, array_at + t * S::kTile + int64_t(pad) * (span & 0xffu), t * S::kTile);
    if (PAD && (span & 0xffu) != (span >> 8)) {
        loads.run_first = bases_before(st, b, passes, pass);
        loads.run_keys = buf.keys_in + array_at;
        loads.run_values = buf.values_in + array_at;
        loads.pad = pad;
        loads.digit = span & 0xffu;
        loads.last_digit = span >> 8;
    }
    // a whole tile ((t + 1) x the tile <= n: every tile but a short last one and, padded, the
    // tiles that span two runs) checks no item against the array's end; float keys after the
    // first pass skip the NaN test (KeyWords)
    const bool whole = (t + 1) * S::kTile <= io.n && loads.run_first == nullptr;
    if (FLOAT && !buf.first) {
        if (whole) sort_tile<PAIRS, S, FLOAT, true, FLOAT, kDirect>(io, st, pass, s, g, b, t, buf.keys_out, buf.values_out, loads, pad_out);
        else sort_tile<PAIRS, S, FLOAT, false, FLOAT, kDirect>(io, st, pass, s, g, b, t, buf.keys_out, buf.values_out, loads, pad_out);
    } else if (whole) {
        sort_tile<PAIRS, S, FLOAT, true, false, kDirect>(io, st, pass, s, g, b, t, buf.keys_out, buf.values_out, loads, pad_out);
    } else {
        sort_tile<PAIRS, S, FLOAT, false, false, kDirect>(io, st, pass, s, g, b, t, buf.keys_out, buf.values_out, loads, pad_out);
    }
}

// The pass kernel of shape S for keys alone or pairs, float32 keys or integer ones; padded: its
// scratch padded (radix_pad: integer keys alone, not the 256 block).
template <class S>
auto radix_pass_kernel(bool pairs, bool float32, bool padded = false) {
    if constexpr (S::kThreads != 256)
        if (padded && !pairs && !float32) return radix_pass<false, S, false, true>;
    return pairs ? (float32 ? radix_pass<true, S, true> : radix_pass<true, S, false>)
                 : (float32 ? radix_pass<false, S, true> : radix_pass<false, S, false>);
}

// radix_block: arrays of at most one tile (n <= kRadixTile), one block an array (arrays past the
// grid: the next round). Every pass ranks the array's keys (rank_tile) and moves them to their
// ranks in shared memory; a pass whose digit is the same for every key moves nothing. The keys
// never leave the block between passes: one launch, no scratch. Its shared memory: the ranking's
// counters, or in their place the array's keys (and values) in digit order.
template <bool PAIRS>
struct BlockStorage {
    union {
        RankStorage<BlockShape> rank;
        struct {
            uint32_t keys[kRadixTile];
            uint32_t values[PAIRS ? kRadixTile : 1];
        } tile;
    } u;
};
template <bool PAIRS>
__global__ void __launch_bounds__(kRadixThreads) radix_block(RadixIo io) {
    __shared__ BlockStorage<PAIRS> s;
    const int count = int(io.n);
    for (int64_t b = blockIdx.x; b < io.batch; b += gridDim.x) {
        const int64_t at = b * io.n;
        uint32_t key[kRadixItems], value[kRadixItems];
#pragma unroll
        for (int i = 0; i < kRadixItems; ++i) {
            const int p = item_at<BlockShape>(i);
            key[i] = p < count ? io.keys_in[at + p] : 0u;
            if (PAIRS) value[i] = p >= count ? 0u : io.values_in ? io.values_in[at + p] : uint32_t(p);
        }
        for (int pass = 0; pass < kPasses; ++pass) {
            Digits<BlockShape> digits;
#pragma unroll
            for (int i = 0; i < kRadixItems; ++i) digits.set(i, digit_of(radix_word(key[i], io.type, io.descending), pass));
            Ranks<BlockShape> rank;
            uint32_t count_of[kBinsPerThread], first_of[kBinsPerThread];
            rank_tile(digits, count, [&](int i, uint32_t r) { rank.set(i, r); }, count_of, first_of, s.u.rank,
                      [](const uint32_t (&)[kBinsPerThread]) {});
            bool one_digit = false;
#pragma unroll
            for (int k = 0; k < kBinsPerThread; ++k) one_digit |= int(count_of[k]) == count;
            if (__syncthreads_or(one_digit)) continue;  // (the barrier also ends rank_tile's reads)
#pragma unroll
            for (int i = 0; i < kRadixItems; ++i)
                if (item_at<BlockShape>(i) < count) {
                    s.u.tile.keys[rank.get(i)] = key[i];
                    if (PAIRS) s.u.tile.values[rank.get(i)] = value[i];
                }
            __syncthreads();
#pragma unroll
            for (int i = 0; i < kRadixItems; ++i) {
                const int p = item_at<BlockShape>(i);
                if (p < count) {
                    key[i] = s.u.tile.keys[p];
                    if (PAIRS) value[i] = s.u.tile.values[p];
                }
            }
            __syncthreads();
        }
#pragma unroll
        for (int i = 0; i < kRadixItems; ++i) {
            const int p = item_at<BlockShape>(i);
            if (p < count) {
                io.keys_out[at + p] = radix_key_out(key[i], io.type);
                if (PAIRS) io.values_out[at + p] = value[i];
            }
        }
    }
}

// ---- the launches ---------------------------------------------------------------------------

// Scratch: the epoch, counts, bases, passes, status words, then the ping-pong keys and values
// (padded: radix_pad) and, where padded, the tiles' spans (each 256-byte aligned). Arrays of at
// most kRadixTile keys (radix_tiles 0: the block sort) need none.
struct RadixScratch {
    size_t counts, bases, passes, status, keys, values, spans, total;
};
inline RadixScratch radix_scratch(const tc_urejanje_plan &p) {
    RadixScratch s{};
    if (p.radix_tiles == 0) return s;
    const size_t digits = size_t(p.batch) * kPasses * kRadix;
    size_t at = 256;  // (the epoch word)
    const auto take = [&at](size_t bytes) {
        const size_t here = at;
        at += tc::align256(bytes);
        return here;
    };
    s.counts = take(4 * digits);
    s.bases = take(4 * digits);
    s.passes = take(4 * size_t(p.batch));
    s.status = take(8 * size_t(p.batch) * size_t(p.radix_tiles) * kRadix);
    const uint32_t pad = radix_pad(p.launch.n, radix_pads(p.pairs != 0, p.type, p.launch.threads));
    const size_t words = size_t(p.batch) * size_t(padded_n(p.launch.n, pad));  // (padded: radix_pad)
    s.keys = take(4 * words);
    if (p.pairs) s.values = take(4 * words);
    if (pad) s.spans = take(2 * size_t(kPasses) * size_t(p.batch) * size_t(p.radix_tiles));
    s.total = at;
    return s;
}

// f(tc::Tag<S>{}) for the pass shape S of `threads` (radix's plan: the request's threads, or its
// choice); TC_OUTSIDE_DOMAIN where no shape has that many.
template <class F>
inline tc_status with_pass_shape(int threads, F &&f) {
    switch (threads) {
    case PassShape256::kThreads: return f(tc::Tag<PassShape256>{});
    case PassShape384::kThreads: return f(tc::Tag<PassShape384>{});
    case PassShape512::kThreads: return f(tc::Tag<PassShape512>{});
    default: return TC_OUTSIDE_DOMAIN;
    }
}
// The keys of a pass's tile with `threads` (0: none of that many).
inline int pass_tile(int threads) {
    int tile = 0;
    with_pass_shape(threads, [&](auto shape) -> tc_status {
        tile = decltype(shape)::type::kTile;
        return TC_OK;
    });
    return tile;
}

// Every launch of a radix sort, counted through L (the plan's dry run) or made: the block sort
// (arrays of one tile), or the histogram, the scan, the spans where scratch is padded, and one
// launch a pass. block_grid: the block sort's grid (the plan's).
inline tc_status radix_launches(tc::LaunchCounter &L, const tc_urejanje_plan &p, RadixIo io, unsigned char *scratch,
                                unsigned block_grid, cudaStream_t s) {
    if (p.radix_tiles == 0) {
        if (p.pairs) TC_COUNTED_LAUNCH(L.next(block_grid), radix_block<true><<<block_grid, kRadixThreads, 0, s>>>(io));
        else TC_COUNTED_LAUNCH(L.next(block_grid), radix_block<false><<<block_grid, kRadixThreads, 0, s>>>(io));
        return TC_OK;
    }
    const int tile = pass_tile(p.launch.threads);
    if (tile == 0 || p.radix_tiles != tc::ceil_div(p.launch.n, tile)) return TC_BAD_ARGUMENT;  // (not radix's plan)
    const RadixScratch at = radix_scratch(p);
    RadixState st{};
    st.tiles = p.radix_tiles;
    st.chunk = p.radix_chunk;
    st.chunks = tc::ceil_div(p.launch.n, p.radix_chunk);
    if (scratch) {
        st.epoch = reinterpret_cast<tc::tile::Epoch *>(scratch);
        st.counts = reinterpret_cast<uint32_t *>(scratch + at.counts);
        st.bases = reinterpret_cast<uint32_t *>(scratch + at.bases);
        st.passes = reinterpret_cast<uint32_t *>(scratch + at.passes);
        st.status = reinterpret_cast<uint64_t *>(scratch + at.status);
        st.spans = at.spans ? reinterpret_cast<uint16_t *>(scratch + at.spans) : nullptr;
        io.keys_tmp = reinterpret_cast<uint32_t *>(scratch + at.keys);
        io.values_tmp = p.pairs ? reinterpret_cast<uint32_t *>(scratch + at.values) : nullptr;
    }
    // the output over the input: an even number of passes (radix_scan)
    const bool aliased = io.keys_in == io.keys_out || (p.pairs && io.values_in && io.values_in == io.values_out);
    const unsigned counting = unsigned(p.batch * st.chunks), arrays = unsigned(p.batch), tiles = unsigned(p.batch * st.tiles);
    TC_COUNTED_LAUNCH(L.next(counting, false), radix_histogram<<<counting, kRadixThreads, 0, s>>>(io, st));
    TC_COUNTED_LAUNCH(L.next(arrays, false), radix_scan<<<arrays, kRadixThreads, 0, s>>>(io, st, aliased));
    if (at.spans) {
        const unsigned spans = unsigned(tc::ceil_div(int64_t(kPasses) * p.batch * st.tiles, kRadixThreads));
        TC_COUNTED_LAUNCH(L.next(spans, false), radix_spans<<<spans, kRadixThreads, 0, s>>>(io, st, tile));
    }
    return with_pass_shape(p.launch.threads, [&](auto shape) -> tc_status {
        using S = typename decltype(shape)::type;
        const auto kernel = radix_pass_kernel<S>(p.pairs != 0, p.type == TC_FLOAT32, at.spans != 0);
        for (int pass = 0; pass < kPasses; ++pass)
            TC_COUNTED_LAUNCH(L.next(tiles), kernel<<<tiles, S::kThreads, 0, s>>>(io, st, pass));
        return TC_OK;
    });
}

#define TC_RADIX_KERNELS                                                                                          \
    tc::kernel("radix_block<keys>", radix_block<false>), tc::kernel("radix_block<pairs>", radix_block<true>),     \
        tc::kernel("radix_histogram", radix_histogram), tc::kernel("radix_scan", radix_scan),                     \
        tc::kernel("radix_spans", radix_spans),                                                                   \
        tc::kernel("radix_pass<keys,256x16,int>", radix_pass<false, PassShape256, false>),                        \
        tc::kernel("radix_pass<keys,256x16,float32>", radix_pass<false, PassShape256, true>),                     \
        tc::kernel("radix_pass<pairs,256x16,int>", radix_pass<true, PassShape256, false>),                        \
        tc::kernel("radix_pass<pairs,256x16,float32>", radix_pass<true, PassShape256, true>),                     \
        tc::kernel("radix_pass<keys,384x20,int>", radix_pass<false, PassShape384, false>),                        \
        tc::kernel("radix_pass<keys,384x20,int,padded>", radix_pass<false, PassShape384, false, true>),            \
        tc::kernel("radix_pass<keys,384x20,float32>", radix_pass<false, PassShape384, true>),                     \
        tc::kernel("radix_pass<pairs,384x20,int>", radix_pass<true, PassShape384, false>),                        \
        tc::kernel("radix_pass<pairs,384x20,float32>", radix_pass<true, PassShape384, true>),                     \
        tc::kernel("radix_pass<keys,512x16,int>", radix_pass<false, PassShape512, false>),                        \
        tc::kernel("radix_pass<keys,512x16,int,padded>", radix_pass<false, PassShape512, false, true>),            \
        tc::kernel("radix_pass<keys,512x16,float32>", radix_pass<false, PassShape512, true>),                     \
        tc::kernel("radix_pass<pairs,512x16,int>", radix_pass<true, PassShape512, false>),                        \
        tc::kernel("radix_pass<pairs,512x16,float32>", radix_pass<true, PassShape512, true>)

}  // namespace
