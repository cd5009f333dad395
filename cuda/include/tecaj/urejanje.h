/* urejanje: sort of batch arrays of n 32-bit keys each (bitonic networks; radix: an LSD radix
 * sort), ascending or descending, keys only or with uint32 values (cuda/urejanje/). Floats: -0.0
 * and +0.0 compare equal (and keep their bits), NaNs of either sign and any payload go last
 * (ascending; first descending: descending is the exact reverse of the keys' order) and come out
 * as the canonical NaN 0x7fffffff. Stable where the values are indices (values_in NULL): equal
 * keys keep their input order in either direction (radix and CUB's one-array sort: -0.0 and +0.0
 * too; the networks and CUB's batches put -0.0 first). With the caller's values, radix and cub
 * keep input order too; the networks order equal keys by value. best is its rank sort, the network
 * or radix's sort by each array's length, pairs and batch (the plan's rank, radix and radix_above),
 * and behaves as the one it runs (the rank sort as radix): its ties and zeros can differ between
 * two requests that differ only there. */
#ifndef TECAJ_UREJANJE_H
#define TECAJ_UREJANJE_H
#include "../tecaj.h"
#ifdef __cplusplus
extern "C" {
#endif

const tc_program *tc_urejanje_program(void);

/* radix's block sort's tile: one block sorts an array of at most this many keys in one launch. */
#define TC_UREJANJE_BLOCK_TILE 4096

/* Key types: TC_FLOAT32, TC_INT32, TC_UINT32. */

/* base.threads: 0 (the variant's choice), or what the variant's domain names (the networks: a
 * power of two from 32 to 1024; radix: its passes' block, 256, 384 or 512); base.blocks must be 0
 * (every variant sizes its own grids). */
typedef struct {
    tc_request base;
    int64_t batch;  /* independent arrays of n keys */
    int pairs;      /* key-value pairs */
    tc_dtype type;  /* the keys: TC_FLOAT32 (0, the default), TC_INT32 or TC_UINT32 */
    int descending; /* nonzero: descending */
} tc_urejanje_request;

typedef struct {
    tc_launch launch; /* out_count = items = n x batch keys */
    int64_t batch;
    int64_t padded;   /* each array's length in the network: the next power of two >= n */
    int pairs;
    tc_dtype type;
    int descending;
    int block_log, rest_log; /* best: log2 of the first pass's block and of the later passes' (from the device) */
    int64_t radix_tiles;     /* radix: tiles a pass sorts in each array (0: each array has at most 4096 keys, one block sorts it) */
    int64_t radix_chunk;     /* radix: keys one block of its histogram counts */
    int64_t radix_above;     /* best, past rank_most or in a batch: arrays longer than this and than
                              * TC_UREJANJE_BLOCK_TILE run radix's sort (from the device: its SMs x
                              * 256 keys), shorter ones the network; arrays of 2049 to 4096 keys radix's block sort with pairs,
                              * or with keys in a batch of at least the SMs */
    int radix;               /* 1: the run is radix's sort (radix; best where it chose it), 0: a network
                              * (or best's rank sort: rank) */
    int rank;                /* best: 1 where it chose its rank sort (every pair of keys compared), 0 not */
    int64_t rank_most;       /* best: one array of at most this many keys takes the rank sort (from the
                              * device: its n^2 comparisons at most the SMs x 2^19, its words in a
                              * block's shared memory); stable, as radix is */
} tc_urejanje_plan;

tc_status tc_urejanje_make_plan(const tc_urejanje_request *request, const tc_device *device, tc_urejanje_plan *out);
/* keys_in/keys_out: batch*n keys (float, int32_t or uint32_t); values_in may be NULL (then each
 * value is its key's index within its array: the result is also an argsort); values_out is
 * required with pairs and ignored without. keys_out may equal keys_in. */
tc_status tc_urejanje_run(const tc_urejanje_plan *plan, const void *keys_in, const uint32_t *values_in, void *keys_out,
                          uint32_t *values_out, void *scratch, cudaStream_t stream);

#ifdef __cplusplus
}
#endif
#endif
