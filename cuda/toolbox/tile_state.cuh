// The one inter-block protocol of the best variants (reduce_best's partials, prefiks best's
// look-back), CUB's ScanTileState in shape: a block publishes a 32-bit value in one 64-bit status
// word beside its status and the run's epoch, and a reader waits until the word is published in
// this run, by a wait policy. Words are stored and loaded relaxed, one word a value, so a reader
// needs nothing else ordered before it (CUB's single-word tile states). Scratch is zero-filled
// once (kInvalid, epoch 0); each run moves the epoch on (Epoch), so no run clears it.
// Every load and store of these words and of the epoch goes through this file.
#pragma once
#include <cstdint>
#include <cuda/atomic>

namespace tc::tile {

enum : uint32_t { kInvalid = 0, kAggregate = 1, kInclusive = 2 };

// A status word: value (low 32 bits), then its tag: status (2 bits) and epoch (30 bits: a word
// left by an earlier run passes for this run's only if it is a multiple of 2^30 runs old). A run keeps its epoch as its tag
// base (epoch << 2), so a word's tag is one add of the status and a wanted tag one compare.
constexpr uint32_t kEpochStep = 1u << 2;
__host__ __device__ __forceinline__ uint32_t value_of(uint64_t w) { return uint32_t(w); }
__host__ __device__ __forceinline__ uint32_t status_of(uint64_t w) { return uint32_t(w >> 32) & 3u; }

// Wait policies: a reader's Polls says after each unpublished read whether to read again.
// Spin: a bare spin, for readers that wait only for blocks that wait for nothing (reduce_best's
// last block); no count, which in reduce_best's loop made the compiler reorder the read loop above
// it (BENCHMARKS.md: redukcija best).
struct Spin {
    struct Polls {
        __device__ __forceinline__ bool again() { return true; }
    };
};
// SleepGiveUp: sleep 64 ns between polls, give up after MaxPolls (the default about a second:
// never expected, but a lost word must not hang the device; the result then fails its check).
template <uint32_t MaxPolls = (1u << 24)>
struct SleepGiveUp {
    struct Polls {
        uint32_t polls = 0;
        __device__ __forceinline__ bool again() {
            if (++polls > MaxPolls) return false;
            __nanosleep(64);
            return true;
        }
    };
};

// The run's epoch: one 8-byte word of scratch, the run's tag base (low half) and the blocks done
// publishing (high half; counted runs only). A run reads it once a block and moves it on once, by
// one of two rules: advance, by a block that knows every block has read it (reduce_best's last
// block has every partial); or count_done and advance_if_last, where no block knows that (a
// look-back stops at the nearest inclusive prefix), at one atomic a block.
struct Epoch {
    unsigned long long word;

    // Each rule keeps its accesses to the word one width, as the memory model wants of accesses
    // that race: advance's the low half (32 bits), the counted rule's the whole word (64).
    // the run's tag base, under advance's rule (one 32-bit load)
    __device__ __forceinline__ uint32_t read() const {
        return cuda::atomic_ref<const unsigned, cuda::thread_scope_device>(*reinterpret_cast<const unsigned *>(&word))
            .load(cuda::memory_order_relaxed);
    }
    // the next run's epoch (the low half)
    __device__ __forceinline__ void advance(uint32_t run) {
        cuda::atomic_ref<unsigned, cuda::thread_scope_device>(*reinterpret_cast<unsigned *>(&word))
            .store(run + kEpochStep, cuda::memory_order_relaxed);
    }
    // the run's tag base, under the counted rule: the low half of a whole load
    __device__ __forceinline__ uint32_t read_counted() const {
        return uint32_t(cuda::atomic_ref<const unsigned long long, cuda::thread_scope_device>(word)
                            .load(cuda::memory_order_relaxed));
    }
    // this block has read the epoch and published: the word before it (its answer is needed only
    // by advance_if_last, so a block may look at it last)
    __device__ __forceinline__ uint64_t count_done() { return atomicAdd(&word, 1ull << 32); }
    // the block that counted last moves the epoch on and the count back to 0
    __device__ __forceinline__ void advance_if_last(uint64_t done, int64_t blocks) {
        if (int64_t(done >> 32) == blocks - 1)
            cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(word).store(
                uint64_t(uint32_t(done) + kEpochStep), cuda::memory_order_relaxed);
    }
};

// The status words of one run: words[i] is item i's (a tile's, a group's, a partial's 32-bit word).
// Wait is the wait policy of wait and wait_inclusive (and of a caller's own loop: Polls).
template <class Wait>
struct TileState {
    using Polls = typename Wait::Polls;
    uint64_t *words;
    uint32_t run;        // the run's tag base (Epoch::read)
    uint32_t inclusive;  // the tag of this run's inclusive words, made once where the state is (not
                         // again on each path that publishes or waits)

    __host__ __device__ __forceinline__ TileState(uint64_t *words, uint32_t run)
        : words(words), run(run), inclusive(run + kInclusive) {}

    // the word publish stores (also what a reader may take for an item before the first)
    __host__ __device__ __forceinline__ uint64_t make(uint32_t value, uint32_t status) const {
        return uint64_t(value) | uint64_t(run + status) << 32;
    }
    // published in this run (either status)
    __host__ __device__ __forceinline__ bool published(uint64_t w) const { return (uint32_t(w >> 32) ^ run) - 1u < 3u; }
    // published in this run as inclusive
    __host__ __device__ __forceinline__ bool published_inclusive(uint64_t w) const { return uint32_t(w >> 32) == inclusive; }

    __device__ __forceinline__ void publish(int64_t i, uint32_t value, uint32_t status) const { store(i, make(value, status)); }
    __device__ __forceinline__ void publish_aggregate(int64_t i, uint32_t value) const { publish(i, value, kAggregate); }
    __device__ __forceinline__ void publish_inclusive(int64_t i, uint32_t value) const {
        store(i, uint64_t(value) | uint64_t(inclusive) << 32);
    }
    __device__ __forceinline__ uint64_t load(int64_t i) const {
        return cuda::atomic_ref<uint64_t, cuda::thread_scope_device>(words[i]).load(cuda::memory_order_relaxed);
    }

    // Word i once published in this run (either status) into w; false: the policy gave up.
    __device__ __forceinline__ bool wait(int64_t i, uint64_t &w) const {
        w = load(i);
        for (Polls polls; !published(w);) {
            if (!polls.again()) return false;
            w = load(i);
        }
        return true;
    }
    // Words first..first+K-1 once each is published in this run as inclusive, into w; the stale
    // ones reloaded together (one at a time put a round trip a word behind the last one's
    // arrival); false: the policy gave up.
    template <int K>
    __device__ __forceinline__ bool wait_inclusive(int64_t first, uint64_t (&w)[K]) const {
#pragma unroll
        for (int q = 0; q < K; ++q) w[q] = load(first + q);
        for (Polls polls;;) {
            bool stale = false;
#pragma unroll
            for (int q = 0; q < K; ++q) stale |= !published_inclusive(w[q]);
            if (!stale) return true;
            if (!polls.again()) return false;
#pragma unroll
            for (int q = 0; q < K; ++q)
                if (!published_inclusive(w[q])) w[q] = load(first + q);
        }
    }

  private:
    __device__ __forceinline__ void store(int64_t i, uint64_t w) const {
        cuda::atomic_ref<uint64_t, cuda::thread_scope_device>(words[i]).store(w, cuda::memory_order_relaxed);
    }
};

}  // namespace tc::tile
