/*
 * Hooks on libjpeg's memory manager. They count what the library asks for,
 * so a decode can report its peak, and they enforce the caller's working
 * memory limit on every request: libjpeg itself only checks
 * max_memory_to_use when it realizes virtual arrays.
 *
 * libjpeg's own helpers call its allocators directly, not through these
 * pointers, so nothing is counted twice. Virtual block arrays, where a
 * progressive file's whole-image coefficient buffer lives, are kept by
 * ct_jpeg_spill.c and counted when they are realized: whole when they fit,
 * else as the windows that stay in memory while the rest goes to a file.
 */
#include <limits.h>
#include <string.h>

#include "ct_jpeg.h"

static ct_jpeg_memory *ct_jpeg_memory_of(j_common_ptr cinfo) { return (ct_jpeg_memory *)cinfo->client_data; }

/* Checks a request against the limit and records it; longjmps when it does not fit. */
static void ct_jpeg_memory_take(j_common_ptr cinfo, int pool_id, uint64_t bytes) {
    ct_jpeg_memory *memory = ct_jpeg_memory_of(cinfo);
    uint64_t held = ct_jpeg_memory_held(memory);
    if (memory->limit != 0 && (bytes > memory->limit || held > memory->limit - bytes)) {
        ct_error failure;
        ct_fail_memory_limit(&failure, "decoding", held + bytes < held ? UINT64_MAX : held + bytes, memory->limit);
        ct_jpeg_raise(cinfo, CT_TOO_LARGE, "%s", failure.message);
    }
    /* A bad pool id is left for libjpeg to reject. */
    if (pool_id >= 0 && pool_id < JPOOL_NUMPOOLS) memory->pool_bytes[pool_id] += bytes;
    ct_alloc_note(memory->alloc, (int64_t)bytes);
}

uint64_t ct_jpeg_memory_held(const ct_jpeg_memory *memory) {
    uint64_t held = memory->outside_bytes;
    for (int pool = 0; pool < JPOOL_NUMPOOLS; pool++) held += memory->pool_bytes[pool];
    return held;
}

static uint64_t ct_jpeg_array_bytes(JDIMENSION rows, JDIMENSION columns, size_t element_size) {
    return (uint64_t)rows * columns * element_size + (uint64_t)rows * sizeof(void *);
}

static void *ct_jpeg_alloc_small(j_common_ptr cinfo, int pool_id, size_t size) {
    ct_jpeg_memory_take(cinfo, pool_id, size);
    return ct_jpeg_memory_of(cinfo)->alloc_small(cinfo, pool_id, size);
}

static void *ct_jpeg_alloc_large(j_common_ptr cinfo, int pool_id, size_t size) {
    ct_jpeg_memory_take(cinfo, pool_id, size);
    return ct_jpeg_memory_of(cinfo)->alloc_large(cinfo, pool_id, size);
}

static JSAMPARRAY ct_jpeg_alloc_sarray(j_common_ptr cinfo, int pool_id, JDIMENSION samples_per_row,
                                       JDIMENSION rows) {
    ct_jpeg_memory_take(cinfo, pool_id, ct_jpeg_array_bytes(rows, samples_per_row, sizeof(JSAMPLE)));
    return ct_jpeg_memory_of(cinfo)->alloc_sarray(cinfo, pool_id, samples_per_row, rows);
}

static JBLOCKARRAY ct_jpeg_alloc_barray(j_common_ptr cinfo, int pool_id, JDIMENSION blocks_per_row,
                                        JDIMENSION rows) {
    ct_jpeg_memory_take(cinfo, pool_id, ct_jpeg_array_bytes(rows, blocks_per_row, sizeof(JBLOCK)));
    return ct_jpeg_memory_of(cinfo)->alloc_barray(cinfo, pool_id, blocks_per_row, rows);
}

static jvirt_sarray_ptr ct_jpeg_request_virt_sarray(j_common_ptr cinfo, int pool_id, boolean pre_zero,
                                                    JDIMENSION samples_per_row, JDIMENSION rows,
                                                    JDIMENSION max_access) {
    ct_jpeg_memory_take(cinfo, pool_id, ct_jpeg_array_bytes(rows, samples_per_row, sizeof(JSAMPLE)));
    return ct_jpeg_memory_of(cinfo)->request_virt_sarray(cinfo, pool_id, pre_zero, samples_per_row, rows,
                                                          max_access);
}

/* jpeg_finish_decompress and jpeg_abort free the image pool through here. */
static void ct_jpeg_free_pool(j_common_ptr cinfo, int pool_id) {
    ct_jpeg_memory *memory = ct_jpeg_memory_of(cinfo);
    if (pool_id == JPOOL_IMAGE) ct_jpeg_spill_close(memory);
    if (pool_id >= 0 && pool_id < JPOOL_NUMPOOLS) {
        ct_alloc_note(memory->alloc, -(int64_t)memory->pool_bytes[pool_id]);
        memory->pool_bytes[pool_id] = 0;
    }
    memory->free_pool(cinfo, pool_id);
}

void ct_jpeg_memory_install(ct_jpeg_memory *memory, j_common_ptr cinfo, ct_alloc *alloc, uint64_t limit) {
    struct jpeg_memory_mgr *manager = cinfo->mem;
    memset(memory, 0, sizeof *memory);
    memory->alloc = alloc;
    memory->limit = limit;
    memory->spill_fd = -1;
    memory->alloc_small = manager->alloc_small;
    memory->alloc_large = manager->alloc_large;
    memory->alloc_sarray = manager->alloc_sarray;
    memory->alloc_barray = manager->alloc_barray;
    memory->request_virt_sarray = manager->request_virt_sarray;
    memory->realize_virt_arrays = manager->realize_virt_arrays;
    memory->free_pool = manager->free_pool;
    manager->alloc_small = ct_jpeg_alloc_small;
    manager->alloc_large = ct_jpeg_alloc_large;
    manager->alloc_sarray = ct_jpeg_alloc_sarray;
    manager->alloc_barray = ct_jpeg_alloc_barray;
    manager->request_virt_sarray = ct_jpeg_request_virt_sarray;
    manager->request_virt_barray = ct_jpeg_spill_request;
    manager->realize_virt_arrays = ct_jpeg_spill_realize;
    manager->access_virt_barray = ct_jpeg_spill_access;
    manager->free_pool = ct_jpeg_free_pool;
    /* Also tell libjpeg, whose own accounting (with pool overhead) guards realize_virt_arrays. */
    if (limit != 0) manager->max_memory_to_use = limit > (uint64_t)LONG_MAX ? LONG_MAX : (long)limit;
    cinfo->client_data = memory;
}

void ct_jpeg_memory_release(ct_jpeg_memory *memory) {
    if (memory->alloc == NULL) return;
    ct_jpeg_spill_close(memory);
    for (int pool = 0; pool < JPOOL_NUMPOOLS; pool++) {
        ct_alloc_note(memory->alloc, -(int64_t)memory->pool_bytes[pool]);
        memory->pool_bytes[pool] = 0;
    }
}
