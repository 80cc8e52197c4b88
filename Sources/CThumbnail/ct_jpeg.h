/*
 * Private pieces shared by the JPEG decoder and encoder: the error manager
 * (libjpeg's longjmp stays inside these files), the source manager over a
 * ct_input, the memory-manager hooks that count libjpeg's allocations, and
 * the progressive scan planner. The only header besides the .c files that
 * includes jpeglib.h.
 */
#ifndef CT_JPEG_H
#define CT_JPEG_H

#include <setjmp.h>
#include <stdio.h> /* jpeglib.h needs FILE and size_t first */

#include <jpeglib.h>
#include <jerror.h> /* after jpeglib.h: its arithmetic-coding messages depend on jconfig.h */

#include "ct_internal.h"

/* ---- errors ---------------------------------------------------------- */

/**
 * libjpeg's error manager plus where to jump. Every function that calls into
 * libjpeg sets `jump` with setjmp first; error_exit, and any hook that must
 * stop the library, longjmps there.
 */
typedef struct ct_jpeg_error {
    struct jpeg_error_mgr pub; /* first member: cinfo->err points here */
    jmp_buf jump;
    /** Called for each libjpeg warning; NULL: warnings are ignored. */
    void (*emit_warning)(j_common_ptr cinfo);
    /** CT_OK when libjpeg raised the error itself (see msg_code); else our own reason. */
    ct_status status;
    /** "JPEG: " and the library's (or our) message. */
    char message[JMSG_LENGTH_MAX + 64];
} ct_jpeg_error;

/**
 * Sets up the error manager: errors longjmp, nothing is printed. Warnings go
 * to emit_warning (NULL: ignored); it may call ct_jpeg_raise.
 */
void ct_jpeg_error_init(ct_jpeg_error *error, void (*emit_warning)(j_common_ptr cinfo));

/** Records status and a printf-style message, then longjmps to error->jump. */
_Noreturn void ct_jpeg_raise(j_common_ptr cinfo, ct_status status, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/** The library's text for the message currently in cinfo->err (msg_code, msg_parm). */
void ct_jpeg_format_current(j_common_ptr cinfo, char *buffer);

/* ---- source ---------------------------------------------------------- */

/** A half-open byte range [start, end) of the JPEG stream. */
typedef struct ct_jpeg_range {
    uint64_t start;
    uint64_t end;
} ct_jpeg_range;

/**
 * Feeds libjpeg from a ct_input. Memory input is handed over in place; file
 * input goes through a small buffer. Byte ranges listed in `skip` (sorted,
 * disjoint) are never delivered: that is how dropped progressive scans
 * disappear without copying the stream.
 */
typedef struct ct_jpeg_source {
    struct jpeg_source_mgr pub; /* first member: cinfo->src points here */
    ct_input *input;
    uint8_t *buffer; /* file input only */
    size_t capacity;
    uint64_t offset; /* stream offset of the next byte to fetch */
    const ct_jpeg_range *skip;
    size_t skip_count;
    size_t skip_next;
    /** Set when the decoder asked for bytes past the end of the input. */
    int eof;
} ct_jpeg_source;

/**
 * Prepares the source (allocating the file buffer from alloc) and installs it
 * in cinfo. The input must be at its start.
 */
ct_status ct_jpeg_source_init(ct_jpeg_source *source, j_decompress_ptr cinfo, ct_input *input, ct_alloc *alloc,
                              ct_error *error);
/** Moves back to the start of the stream, now leaving out the `skip` ranges. Returns 0 on success. */
int ct_jpeg_source_rewind(ct_jpeg_source *source, const ct_jpeg_range *skip, size_t skip_count);
void ct_jpeg_source_free(ct_jpeg_source *source, ct_alloc *alloc);

/* ---- memory accounting ----------------------------------------------- */

/**
 * Wraps cinfo->mem so that every request libjpeg makes is counted in `alloc`
 * and checked against `limit` (0: none). Virtual arrays (a progressive
 * file's whole-image coefficient buffer) count at request time with the size
 * they take once realized.
 */
typedef struct ct_jpeg_memory {
    ct_alloc *alloc;
    uint64_t limit;
    uint64_t pool_bytes[JPOOL_NUMPOOLS];
    void *(*alloc_small)(j_common_ptr, int, size_t);
    void *(*alloc_large)(j_common_ptr, int, size_t);
    JSAMPARRAY (*alloc_sarray)(j_common_ptr, int, JDIMENSION, JDIMENSION);
    JBLOCKARRAY (*alloc_barray)(j_common_ptr, int, JDIMENSION, JDIMENSION);
    jvirt_sarray_ptr (*request_virt_sarray)(j_common_ptr, int, boolean, JDIMENSION, JDIMENSION, JDIMENSION);
    jvirt_barray_ptr (*request_virt_barray)(j_common_ptr, int, boolean, JDIMENSION, JDIMENSION, JDIMENSION);
    void (*free_pool)(j_common_ptr, int);
} ct_jpeg_memory;

/** Call right after jpeg_create_*; uses cinfo->client_data. */
void ct_jpeg_memory_install(ct_jpeg_memory *memory, j_common_ptr cinfo, ct_alloc *alloc, uint64_t limit);
/** Call after jpeg_destroy_*: records the release of whatever the pools still held. */
void ct_jpeg_memory_release(ct_jpeg_memory *memory);
/** The message for an exceeded limit, shared with the decoder's error mapping. */
void ct_jpeg_memory_limit_message(uint64_t limit, char *buffer, size_t size);

/* ---- progressive scan planning --------------------------------------- */

/** A frame component: its id and the zig-zag coefficients its IDCT reads (bit k = index k). */
typedef struct ct_jpeg_component_need {
    int id;
    uint64_t coefficients;
} ct_jpeg_component_need;

/** The coefficients the IDCT for a DCT_scaled_size of `scaled_size` reads. */
uint64_t ct_jpeg_coefficients_read(int scaled_size);

/** Scans a progressive stream can do without, as byte ranges. */
typedef struct ct_jpeg_scan_plan {
    ct_jpeg_range *drop;
    size_t count;
    size_t capacity;
    /** 0 when the marker structure was unusual and the plan must not be used. */
    int understood;
} ct_jpeg_scan_plan;

/**
 * Walks the whole stream's markers (reading file input through `buffer`, so
 * libjpeg must not be holding bytes in it) and lists every scan that only
 * carries coefficients no component's IDCT reads. CT_TRUNCATED when the
 * stream ends before EOI; CT_OK otherwise, with plan->understood telling
 * whether the plan may be used.
 */
ct_status ct_jpeg_plan_scans(ct_input *input, uint8_t *buffer, size_t capacity,
                             const ct_jpeg_component_need *components, int component_count, ct_alloc *alloc,
                             ct_jpeg_scan_plan *plan, ct_error *error);
void ct_jpeg_scan_plan_free(ct_jpeg_scan_plan *plan, ct_alloc *alloc);

#endif /* CT_JPEG_H */
