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

/** A virtual block array (ct_jpeg_spill.c); jpeglib.h leaves the type opaque. */
struct jvirt_barray_control;

/**
 * Wraps cinfo->mem so that every request libjpeg makes is counted in `alloc`
 * and checked against `limit` (0: none). Virtual block arrays (a progressive
 * file's whole-image coefficient buffer) are ours (ct_jpeg_spill.c): whole in
 * memory when they fit under the limit, else a window each and a temporary file.
 */
typedef struct ct_jpeg_memory {
    ct_alloc *alloc;
    uint64_t limit;
    uint64_t pool_bytes[JPOOL_NUMPOOLS];
    /** Working memory of this decode outside libjpeg (the area filter), counted against the limit too. */
    uint64_t outside_bytes;
    void *(*alloc_small)(j_common_ptr, int, size_t);
    void *(*alloc_large)(j_common_ptr, int, size_t);
    JSAMPARRAY (*alloc_sarray)(j_common_ptr, int, JDIMENSION, JDIMENSION);
    JBLOCKARRAY (*alloc_barray)(j_common_ptr, int, JDIMENSION, JDIMENSION);
    jvirt_sarray_ptr (*request_virt_sarray)(j_common_ptr, int, boolean, JDIMENSION, JDIMENSION, JDIMENSION);
    void (*realize_virt_arrays)(j_common_ptr);
    void (*free_pool)(j_common_ptr, int);
    /** The image's virtual block arrays, newest first. */
    struct jvirt_barray_control *arrays;
    /** The temporary file spilled arrays live in (-1: none), and its size. */
    int spill_fd;
    uint64_t spill_bytes;
} ct_jpeg_memory;

/** Call right after jpeg_create_*; uses cinfo->client_data. */
void ct_jpeg_memory_install(ct_jpeg_memory *memory, j_common_ptr cinfo, ct_alloc *alloc, uint64_t limit);
/** The bytes counted against the limit now: libjpeg's pools and outside_bytes. */
uint64_t ct_jpeg_memory_held(const ct_jpeg_memory *memory);
/** Call after jpeg_destroy_*: records the release of whatever the pools still held. */
void ct_jpeg_memory_release(ct_jpeg_memory *memory);
/* ---- virtual block arrays that spill to a file (ct_jpeg_spill.c) ------- */

/** The memory manager's request_virt_barray: the array's size only; nothing is allocated yet. */
jvirt_barray_ptr ct_jpeg_spill_request(j_common_ptr cinfo, int pool_id, boolean pre_zero, JDIMENSION blocks_per_row,
                                       JDIMENSION rows, JDIMENSION max_access);
/**
 * realize_virt_arrays: the library's arrays, then ours, whole in memory when
 * they all fit under the limit beside what is held, else each a window of
 * at most 1 MiB (and half the room left under the limit) and a place in a
 * temporary file.
 */
void ct_jpeg_spill_realize(j_common_ptr cinfo);
/** access_virt_barray, with jmemmgr.c's semantics; moves the window through the file when it must. */
JBLOCKARRAY ct_jpeg_spill_access(j_common_ptr cinfo, jvirt_barray_ptr array, JDIMENSION start_row,
                                 JDIMENSION num_rows, boolean writable);
/** Forgets the arrays (the image pool frees them) and closes the file. */
void ct_jpeg_spill_close(ct_jpeg_memory *memory);

/* ---- the ICC profile (ct_jpeg_icc.c) ---------------------------------- */

/**
 * The ICC profile of a JPEG's APP2 "ICC_PROFILE" markers, in the pieces the
 * markers carry until the header is read, then joined. Its memory is counted
 * in `alloc`; free it with ct_jpeg_icc_free.
 */
typedef struct ct_jpeg_icc {
    ct_alloc *alloc;
    /** Each marker's bytes by sequence number (1…count), until joined. */
    uint8_t *chunks[256];
    uint16_t chunk_sizes[256];
    /** The number of markers the profile is split over; 0 before the first. */
    int count;
    size_t total;
    /** An ICC_PROFILE marker was met. */
    int seen;
    /** The header was read: later markers are passed over. */
    int closed;
    /** The joined profile once closed; NULL when there is none or it cannot be used. */
    uint8_t *profile;
    size_t size;
    /** Why the markers give no usable profile; empty when they do (or there are none). */
    char problem[128];
} ct_jpeg_icc;

void ct_jpeg_icc_init(ct_jpeg_icc *icc, ct_alloc *alloc);
/**
 * libjpeg's APP2 marker processor's work: reads one APP2 segment from
 * cinfo's source (which must not suspend) and keeps it when it is a piece of
 * an ICC profile. Never raises an error: a bad piece is recorded in `problem`.
 */
void ct_jpeg_icc_read_marker(ct_jpeg_icc *icc, j_decompress_ptr cinfo);
/** Called once the header is read: joins the pieces in order (or says in `problem` why not). */
void ct_jpeg_icc_close(ct_jpeg_icc *icc);
/** Frees the pieces and the profile. Safe on a zeroed struct. */
void ct_jpeg_icc_free(ct_jpeg_icc *icc);

/* ---- reading the stream without libjpeg ------------------------------ */

/** Bytes of a ct_input, a window at a time: the whole input in memory, or a buffer's worth of a file. */
typedef struct ct_jpeg_reader {
    ct_input *input;
    uint8_t *buffer; /* file input only */
    size_t capacity;
    const uint8_t *next;
    const uint8_t *end;
    uint64_t end_offset; /* stream offset of `end` */
} ct_jpeg_reader;

/** Starts at the stream's first byte (seek a file input to 0 first); file input is read through `buffer`. */
void ct_jpeg_reader_init(ct_jpeg_reader *r, ct_input *input, uint8_t *buffer, size_t capacity);
/** Reads the next window of a file input. Returns 0 at the end (or for memory input). */
int ct_jpeg_reader_fill(ct_jpeg_reader *r);
/** The stream offset of the next byte. */
uint64_t ct_jpeg_reader_offset(const ct_jpeg_reader *r);
/** Skips count bytes. Returns 0 if the input ends first. */
int ct_jpeg_reader_skip(ct_jpeg_reader *r, size_t count);
/** A big-endian 16-bit value, or -1 at the end of the input. */
int ct_jpeg_read16(ct_jpeg_reader *r);
/**
 * Like libjpeg's next_marker: skips garbage and FF00 up to a marker, returns
 * its code (-1 at the end of the input) and sets the offset of its FF.
 */
int ct_jpeg_next_marker(ct_jpeg_reader *r, uint64_t *marker_offset);
/**
 * Reads entropy-coded data up to the marker that ends it (not RSTn, FF00 or
 * fill bytes) and returns its code (-1 at the end of the input), with the
 * offset of the first FF before it.
 */
int ct_jpeg_entropy_end(ct_jpeg_reader *r, uint64_t *marker_offset);

/* The next byte, or -1 at the end of the input. */
static inline int ct_jpeg_reader_byte(ct_jpeg_reader *r) {
    if (r->next == r->end && !ct_jpeg_reader_fill(r)) return -1;
    return *r->next++;
}

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

/* ---- DC-only decoding of progressive files at 1/8 (ct_jpeg_dc.c, ct_jpeg_dc_output.c) ---- */

/** A frame component, as libjpeg's header parse found it. */
typedef struct ct_jpeg_dc_component {
    int id;
    int h, v; /* sampling factors */
    int quant_table;
    /** libjpeg's DCT_scaled_size at 1/8: 1 when its own decode also uses the DC coefficient alone. */
    int scaled_size;
    uint32_t width_in_blocks, height_in_blocks;
} ct_jpeg_dc_component;

/** What the DC-only decoder needs to know about the frame, copied from libjpeg after its header parse. */
typedef struct ct_jpeg_dc_frame {
    uint32_t width, height;
    /** The 1/8 image: libjpeg's output size at that scale. */
    uint32_t output_width, output_height;
    /** Interleaved scans' MCU grid. */
    uint32_t mcus_per_row, mcu_rows;
    int component_count;
    int max_h, max_v;
    J_COLOR_SPACE color_space;
    /** An Adobe marker was seen: CMYK values are stored inverted. */
    int inverted_cmyk;
    /** Output the luma alone, as gray. */
    int luma_only;
    /** Output CMYK as it is (CT_LAYOUT_CMYK), for the colour stage, instead of converting it to RGB. */
    int keeps_cmyk;
    ct_jpeg_dc_component components[4];
} ct_jpeg_dc_frame;

/** One DC coefficient per block, per component, and each component's DC quantisation value. */
typedef struct ct_jpeg_dc_planes {
    int16_t *plane[4];
    /** Blocks per row and rows of blocks, MCU padding included. */
    uint32_t stride[4], rows[4];
    uint16_t quant[4];
    uint8_t quant_latched[4];
} ct_jpeg_dc_planes;

typedef enum ct_jpeg_dc_result {
    CT_JPEG_DC_DONE,
    /** Something the DC path leaves to libjpeg: nothing was output; decode the file the usual way. */
    CT_JPEG_DC_FALLBACK,
    /** A failure libjpeg would share (out of memory, a read error, cancellation): *status says which. */
    CT_JPEG_DC_FAILED
} ct_jpeg_dc_result;

/**
 * Reads the whole stream from its start (file input through `buffer`, which
 * libjpeg must not be holding bytes in) and fills `planes` with every
 * block's DC coefficient. Planes larger than memory_limit (0: none) fall
 * back. Free the planes with ct_jpeg_dc_planes_free whatever the result.
 */
ct_jpeg_dc_result ct_jpeg_dc_decode(const ct_jpeg_dc_frame *frame, ct_input *input, uint8_t *buffer,
                                    size_t capacity, ct_alloc *alloc, uint64_t memory_limit,
                                    const ct_cancel_token *cancel, ct_jpeg_dc_planes *planes, ct_status *status,
                                    ct_error *error);
void ct_jpeg_dc_planes_free(ct_jpeg_dc_planes *planes, ct_alloc *alloc);

/**
 * Makes the 1/8 image's rows from the planes, converted to the resampler's
 * layout (gray, RGB, or CMYK when the frame keeps it), and pushes them into it. Luma, and every component
 * libjpeg also decodes from its DC alone, come out as libjpeg's 1×1 IDCT and
 * upsampling make them; components libjpeg reconstructs with a larger IDCT
 * (4:2:0 chroma at 1/8) are interpolated from their DC values.
 */
ct_status ct_jpeg_dc_render(const ct_jpeg_dc_frame *frame, const ct_jpeg_dc_planes *planes, ct_alloc *alloc,
                            const ct_cancel_token *cancel, ct_resampler *resampler, ct_error *error);

/** CMYK to RGB in place (4 bytes in, 3 out per pixel); `inverted` for Adobe files. */
void ct_jpeg_cmyk_to_rgb(uint8_t *row, uint32_t width, int inverted);

#endif /* CT_JPEG_H */
