// The one inter-block protocol of the best variants (reduce_best's partials, prefiks best's
// look-back): a block publishes a 32-bit value in one 64-bit word beside its status and the run's
// epoch; a reader waits until the word is published in this run. Words are stored and loaded
// relaxed, one word a value, so a reader needs nothing else ordered before it (CUB's single-word
// tile states). Scratch is zero-filled once (kInvalid); each run moves the epoch on, so no run
// clears it.
#pragma once
#include <cstdint>

namespace tc::tile {

enum : uint32_t { kInvalid = 0, kAggregate = 1, kInclusive = 2 };  // (a reduction's partials: kInclusive)

// value (low 32 bits), status (2 bits), epoch (30 bits: a word left by a run 2^30 runs before
// cannot pass for this run's)
constexpr uint32_t kEpochMask = (1u << 30) - 1u;
// a word from its value and its high half, the tag: status | epoch << 2 (a reader expecting one
// status compares the tag once: published_as)
__device__ __forceinline__ uint64_t tagged(uint32_t value, uint32_t tag) { return uint64_t(value) | uint64_t(tag) << 32; }
__device__ __forceinline__ uint64_t word(uint32_t value, uint32_t status, uint32_t epoch) {
    return uint64_t(value) | uint64_t(status) << 32 | uint64_t(epoch & kEpochMask) << 34;
}
__device__ __forceinline__ uint32_t status_of(uint64_t w) { return uint32_t(w >> 32) & 3u; }
__device__ __forceinline__ uint32_t value_of(uint64_t w) { return uint32_t(w); }
// published in this run: a status, and this run's epoch
__device__ __forceinline__ bool published(uint64_t w, uint32_t epoch) {
    return status_of(w) != kInvalid && uint32_t(w >> 34) == (epoch & kEpochMask);
}
// published in this run with the status that tag names
__device__ __forceinline__ bool published_as(uint64_t w, uint32_t tag) { return uint32_t(w >> 32) == tag; }
// A run counter kept as a tag without its status (reduce_best's header, zero-filled: epoch 0): the
// run's tag is then one add of the status, and the next run's counter one add of kEpochStep
constexpr uint32_t kEpochStep = 1u << 2;

// The rule for waiting on words that may come late (prefiks' look-back): poll, sleep 64 ns, poll
// again; give up after kMaxPolls (about a second: never expected, but a lost word must not hang the
// device; the result then fails its check). poll_again counts a poll and sleeps, or says to give up.
// (reduce_best's last block spins without a count: it waits only for blocks that wait for nothing,
// and any count in its loop made the compiler reorder the read loop above it, which slowed
// razdalja best; BENCHMARKS.md: redukcija best.)
constexpr uint32_t kMaxPolls = 1u << 24;
__device__ __forceinline__ bool poll_again(uint32_t &polls) {
    if (++polls > kMaxPolls) return false;
    __nanosleep(64);
    return true;
}

}  // namespace tc::tile
