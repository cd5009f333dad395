// urejanje's baseline for batches: cub::DeviceSegmentedSort, stable (cub.cuh), instantiated one key
// type a unit (cub_segmented_int.cu, cub_segmented_uint.cu: the heaviest of CUB's sorts, split so
// that they build in parallel). Float keys reach it as their ordered words (the run maps them).
#pragma once
#include "cub.cuh"
#include <cub/device/device_segmented_sort.cuh>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

namespace tc::urejanje_cub {

namespace {
struct SegmentOffset {
    int64_t n;
    __host__ __device__ int64_t operator()(int64_t b) const { return b * n; }
};
}  // namespace

template <typename K>
cudaError_t segmented(void *temp, size_t &temp_bytes, bool pairs, bool descending, const K *keys_in, K *keys_out,
                      const uint32_t *values_in, uint32_t *values_out, int64_t n, int64_t segs, cudaStream_t s) {
    using cub::DeviceSegmentedSort;
    const int64_t items = n * segs;
    auto begins = thrust::make_transform_iterator(thrust::counting_iterator<int64_t>(0), SegmentOffset{n});
    auto ends = begins + 1;
    if (pairs)
        return descending ? DeviceSegmentedSort::StableSortPairsDescending(temp, temp_bytes, keys_in, keys_out, values_in,
                                                                           values_out, items, segs, begins, ends, s)
                          : DeviceSegmentedSort::StableSortPairs(temp, temp_bytes, keys_in, keys_out, values_in,
                                                                 values_out, items, segs, begins, ends, s);
    return descending ? DeviceSegmentedSort::StableSortKeysDescending(temp, temp_bytes, keys_in, keys_out, items, segs,
                                                                      begins, ends, s)
                      : DeviceSegmentedSort::StableSortKeys(temp, temp_bytes, keys_in, keys_out, items, segs, begins,
                                                            ends, s);
}

}  // namespace tc::urejanje_cub

#define TC_SEGMENTED(K)                                                                                    \
    template cudaError_t tc::urejanje_cub::segmented<K>(void *, size_t &, bool, bool, const K *, K *,          \
                                                        const uint32_t *, uint32_t *, int64_t, int64_t, cudaStream_t);
