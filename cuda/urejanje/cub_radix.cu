// urejanje's baseline for one array: cub::DeviceRadixSort (cub.cuh).
#include "cub.cuh"
#include <cub/device/device_radix_sort.cuh>

namespace tc::urejanje_cub {

template <typename K>
cudaError_t radix(void *temp, size_t &temp_bytes, bool pairs, bool descending, const K *keys_in, K *keys_out,
                  const uint32_t *values_in, uint32_t *values_out, int64_t items, cudaStream_t s) {
    using cub::DeviceRadixSort;
    if (pairs)
        return descending ? DeviceRadixSort::SortPairsDescending(temp, temp_bytes, keys_in, keys_out, values_in, values_out,
                                                                 items, 0, 32, s)
                          : DeviceRadixSort::SortPairs(temp, temp_bytes, keys_in, keys_out, values_in, values_out, items, 0,
                                                       32, s);
    return descending ? DeviceRadixSort::SortKeysDescending(temp, temp_bytes, keys_in, keys_out, items, 0, 32, s)
                      : DeviceRadixSort::SortKeys(temp, temp_bytes, keys_in, keys_out, items, 0, 32, s);
}

#define TC_RADIX(K)                                                                                                     \
    template cudaError_t radix<K>(void *, size_t &, bool, bool, const K *, K *, const uint32_t *, uint32_t *, int64_t, \
                                  cudaStream_t);
TC_RADIX(float)
TC_RADIX(int)
TC_RADIX(unsigned)

}  // namespace tc::urejanje_cub
