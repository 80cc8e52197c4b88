#include "cmalloc.h"

#include <limits.h>
#include <stdlib.h> /* defines __GLIBC__ when the C library is glibc */

#if defined(__GLIBC__)
#include <malloc.h>
#endif

/* Both are no-ops where the C library is not glibc. */

void cm_limit_arenas(int arena_max) {
#if defined(__GLIBC__)
    if (arena_max > 0) mallopt(M_ARENA_MAX, arena_max);
#else
    (void)arena_max;
#endif
}

void cm_map_blocks_from(size_t threshold) {
#if defined(__GLIBC__)
    if (threshold > 0 && threshold <= INT_MAX) mallopt(M_MMAP_THRESHOLD, (int)threshold);
#else
    (void)threshold;
#endif
}
