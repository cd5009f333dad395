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
// a word's high half: its status and the run's epoch (a reader expecting one status compares it once)
__device__ __forceinline__ uint32_t tag(uint32_t status, uint32_t epoch) { return status | (epoch & kEpochMask) << 2; }
__device__ __forceinline__ uint64_t word(uint32_t value, uint32_t status, uint32_t epoch) {
    return uint64_t(value) | uint64_t(tag(status, epoch)) << 32;
}
__device__ __forceinline__ uint32_t status_of(uint64_t w) { return uint32_t(w >> 32) & 3u; }
__device__ __forceinline__ uint32_t value_of(uint64_t w) { return uint32_t(w); }
// published in this run: a status, and this run's epoch
__device__ __forceinline__ bool published(uint64_t w, uint32_t epoch) {
    return status_of(w) != kInvalid && uint32_t(w >> 34) == (epoch & kEpochMask);
}
// published in this run with the status that tag names
__device__ __forceinline__ bool published_as(uint64_t w, uint32_t tag) { return uint32_t(w >> 32) == tag; }

// The one rule for waiting: poll at once kSpinPolls times (a word that is about to land costs no
// sleep's wake-up), then once every 64 ns; give up after kMaxPolls (seconds: never expected, but a
// lost word must not hang the device; the result then fails its check). poll_again counts a poll
// and sleeps where the rule says, or says to give up.
constexpr uint32_t kSpinPolls = 32;
constexpr uint32_t kMaxPolls = 1u << 24;
__device__ __forceinline__ bool poll_again(uint32_t &polls) {
    if (++polls > kMaxPolls) return false;
    if (polls > kSpinPolls) __nanosleep(64);
    return true;
}

}  // namespace tc::tile
