/*
 * cmalloc: glibc's malloc tuning (mallopt), which Swift's Glibc module does not expose.
 */
#ifndef CMALLOC_H
#define CMALLOC_H

#include <stddef.h>

/**
 * Caps the number of malloc arenas (glibc's default is 8 per core); 0 leaves
 * it. Fewer arenas let a block freed by one thread serve another.
 */
void cm_limit_arenas(int arena_max);

/**
 * Maps blocks of at least threshold bytes on their own, so that freeing one
 * returns it to the system at once, and stops glibc from raising that
 * threshold as it sees large blocks freed (which otherwise moves them into
 * arenas, where they stay).
 */
void cm_map_blocks_from(size_t threshold);

#endif /* CMALLOC_H */
