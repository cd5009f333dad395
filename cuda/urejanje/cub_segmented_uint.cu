// urejanje's baseline for batches of uint32 keys and of floats as their ordered words
// (cub_segmented.cuh).
#include "cub_segmented.cuh"

TC_SEGMENTED(unsigned)
