// urejanje's baseline, CUB as a user calls it, in translation units of their own (cub_radix.cu,
// cub_segmented_*.cu): CUB's sorts are most of the library's build, and apart they compile in
// parallel with the rest. Each is instantiated for the key types the runs use.
#pragma once
#include <cuda_runtime.h>
#include <cstdint>

namespace tc::urejanje_cub {

// cub::DeviceRadixSort over one array of items keys (pairs: with their 32-bit values); temp
// nullptr: the bytes it needs, in temp_bytes
template <typename K>
cudaError_t radix(void *temp, size_t &temp_bytes, bool pairs, bool descending, const K *keys_in, K *keys_out,
                  const uint32_t *values_in, uint32_t *values_out, int64_t items, cudaStream_t s);

// cub::DeviceSegmentedSort (stable) over segs arrays of n keys each, one after another
template <typename K>
cudaError_t segmented(void *temp, size_t &temp_bytes, bool pairs, bool descending, const K *keys_in, K *keys_out,
                      const uint32_t *values_in, uint32_t *values_out, int64_t n, int64_t segs, cudaStream_t s);

}  // namespace tc::urejanje_cub
