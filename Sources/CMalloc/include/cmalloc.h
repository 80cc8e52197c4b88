/*
 * cmalloc: glibc's malloc tuning (mallopt), which Swift's Glibc module does not expose.
 */
#ifndef CMALLOC_H
#define CMALLOC_H

#include <stddef.h>

/**
 * Makes glibc return large freed blocks to the system at once: allocations of
 * mmap_threshold bytes or more are mapped and unmapped on their own (which also
 * stops glibc from raising that threshold as it sees large blocks freed), and
 * at most arena_max malloc arenas exist (0 keeps glibc's default of 8 per core).
 * A no-op where the C library is not glibc. Call it early, before threads start.
 */
void cm_bound_retention(size_t mmap_threshold, int arena_max);

#endif /* CMALLOC_H */
