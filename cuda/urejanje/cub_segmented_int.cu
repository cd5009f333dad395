// urejanje's baseline for batches of int32 keys (cub_segmented.cuh).
#include "cub_segmented.cuh"

TC_SEGMENTED(int)
