#include "cmalloc.h"

#include <stdlib.h> /* defines __GLIBC__ when the C library is glibc */

#if defined(__GLIBC__)
#include <malloc.h>
#endif

void cm_bound_retention(size_t mmap_threshold, int arena_max) {
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, (int)mmap_threshold);
    if (arena_max > 0) mallopt(M_ARENA_MAX, arena_max);
#else
    (void)mmap_threshold;
    (void)arena_max;
#endif
}
