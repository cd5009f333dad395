// Several GPUs' partial results folded in GPU order: one expression, op(...op(op(init, p0), p1)...),
// compiled for the host and for the device, so that a fold on either gives the same bits. Parts
// lie stride bytes apart; an arg operator's part (a KeyValue) has its slice's first index added
// to its own (first[i]), which makes it global.
#pragma once
#include "toolbox/primitives.cuh"
#include <cstddef>

namespace tc {

template <typename A, typename Op>
__host__ __device__ A fold_parts(const unsigned char *parts, size_t stride, const int64_t *first, int count, A init) {
    A acc = init;
    for (int i = 0; i < count; ++i) {
        A part;
        memcpy(&part, parts + size_t(i) * stride, sizeof part);
        if constexpr (IsKeyValue<A>::value) part.index += first[i];
        acc = Op{}(acc, part);
    }
    return acc;
}

// Writes a fold's value as a result's out_bytes: its fields where they lie in A, every other byte
// zero (a KeyValue's padding too, so that equal results are equal bytes).
template <typename A>
__host__ __device__ void store_part(unsigned char *out, size_t out_bytes, const A &acc) {
    for (size_t i = 0; i < out_bytes; ++i) out[i] = 0;
    if constexpr (IsKeyValue<A>::value) {
        memcpy(out, &acc.value, sizeof acc.value);
        memcpy(out + offsetof(A, index), &acc.index, sizeof acc.index);
    } else {
        memcpy(out, &acc, sizeof acc);
    }
}

// The fold on the device, one thread, into out (out_bytes, as store_part writes them).
template <typename A, typename Op>
__global__ void fold_parts_kernel(const unsigned char *parts, size_t stride, const int64_t *first, int count, A init,
                                  unsigned char *out, size_t out_bytes) {
    store_part(out, out_bytes, fold_parts<A, Op>(parts, stride, first, count, init));
}

}  // namespace tc
