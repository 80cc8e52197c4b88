/*
 * Shared pieces of the decoders: error reporting, allocation accounting,
 * input streaming, the downscaling filter and orientation. Not public.
 */
#ifndef CT_INTERNAL_H
#define CT_INTERNAL_H

#include <stdio.h>
#include "cthumbnail.h"

/* ---- errors ---------------------------------------------------------- */

/** Fills *error (may be NULL) with status and a printf-style message; returns status. */
ct_status ct_fail(ct_error *error, ct_status status, const char *format, ...)
    __attribute__((format(printf, 3, 4)));

/**
 * Fails with CT_TOO_LARGE for a decode that needs `needed` bytes of working
 * memory (0: more than it may have, how much more not known) past
 * limits.max_decoder_memory `limit`, naming both and how to raise the limit;
 * `what` names the decoder ("JPEG", "PNG", "WebP lossy frame with alpha").
 */
ct_status ct_fail_memory_limit(ct_error *error, const char *what, uint64_t needed, uint64_t limit);

/** Like ct_fail_memory_limit, for a JPEG XL decode past limits.max_jxl_decoder_memory `limit`. */
ct_status ct_fail_jxl_memory_limit(ct_error *error, const char *what, uint64_t needed, uint64_t limit);

/* ---- allocation accounting -------------------------------------------- */

/**
 * Counts the bytes a decode holds. `current` and `peak` cover this module's
 * buffers and what the codec libraries request through their allocator hooks.
 */
typedef struct ct_alloc {
    uint64_t current;
    uint64_t peak;
} ct_alloc;

/** malloc that records the size; NULL on failure. Release with ct_alloc_free. */
void *ct_alloc_bytes(ct_alloc *alloc, size_t size);
/** calloc-like: zeroed. */
void *ct_alloc_zeroed(ct_alloc *alloc, size_t count, size_t size);
void ct_alloc_free(ct_alloc *alloc, void *pointer);
/** Records bytes allocated or freed elsewhere (negative to release). */
void ct_alloc_note(ct_alloc *alloc, int64_t delta);

/* ---- cancellation ---------------------------------------------------- */

int ct_is_cancelled(const ct_cancel_token *token);

/* ---- input ----------------------------------------------------------- */

/**
 * A byte source: either a memory range or a FILE streamed through a small
 * buffer owned by the caller. Decoders pull bytes with ct_input_read.
 */
typedef struct ct_input {
    const uint8_t *data; /* memory input: whole image */
    size_t size;
    size_t position;     /* memory input: next byte */
    FILE *file;          /* file input, or NULL */
    uint64_t file_base;  /* file input: where the image starts in the file */
    uint64_t file_length; /* file input: the image's length (UINT64_MAX: to the end) */
    uint64_t file_position; /* file input: next byte, from file_base */
    int read_error;      /* set when fread failed (not at EOF) */
} ct_input;

void ct_input_from_memory(ct_input *input, const uint8_t *data, size_t size);
/** The length bytes of file from offset on (UINT64_MAX: to the end); the file must be positioned at offset. */
void ct_input_from_file(ct_input *input, FILE *file, uint64_t offset, uint64_t length);
/** Reads up to count bytes into buffer; returns how many (0 at end or error). */
size_t ct_input_read(ct_input *input, uint8_t *buffer, size_t count);
/** Moves to an absolute offset from the start. Returns 0 on success. */
int ct_input_seek(ct_input *input, uint64_t offset);
/**
 * The input's length in bytes: a memory input's size, or what a file holds
 * from the image's start on (at most its given length). Leaves the position
 * where it was. Returns 0 on success.
 */
int ct_input_length(ct_input *input, uint64_t *length);

/* ---- geometry -------------------------------------------------------- */

/* ct_fit_size is public: see cthumbnail.h. */

/**
 * The pre-orientation size of the thumbnail the decoders make for a source of
 * width × height stored with EXIF orientation `orientation`: the oriented
 * picture fitted in options' box, or for a fill the size that covers it
 * (ct_cover_size), which ct_crop_to_fill then cuts to the box.
 */
void ct_thumbnail_size(uint32_t width, uint32_t height, uint8_t orientation, const ct_decode_options *options,
                       uint32_t *out_width, uint32_t *out_height);

/**
 * For a fill, cuts a finished (oriented) thumbnail of the cover size to its
 * centred ct_fill_size, in place; does nothing for a fit. On failure the
 * thumbnail is freed and zeroed.
 */
ct_status ct_crop_to_fill(const ct_decode_options *options, ct_thumbnail *thumbnail, ct_error *error);

/** Checks width/height/pixel limits. */
ct_status ct_check_limits(uint32_t width, uint32_t height, const ct_limits *limits, ct_error *error);

/* ---- downscaling filter ---------------------------------------------- */

/** Layout of the rows fed to the resampler: samples per pixel, 8 bits each. */
typedef enum ct_layout {
    CT_LAYOUT_GRAY = 1,
    CT_LAYOUT_GRAY_ALPHA = 2,
    CT_LAYOUT_RGB = 3,
    CT_LAYOUT_RGBA = 4,
    /**
     * CMYK inks, 4 samples a pixel and none of them alpha: filtered plainly
     * (never premultiplied) and written as they came, for the colour stage
     * to turn into RGBA with the file's profile.
     */
    CT_LAYOUT_CMYK = 5
} ct_layout;

/**
 * An area (box) filter from src_width × src_height to dst_width × dst_height
 * (dst ≤ src in both dimensions), fed one source row at a time in order.
 * Each source pixel contributes in proportion to the area it covers in the
 * output pixel, so the result is exact for any ratio, not only integers.
 * Layouts with alpha are filtered premultiplied and written straight; CMYK
 * is written as its four inks.
 *
 * Rows are summed vertically at source width (one multiply-add per sample),
 * then each finished output row is reduced horizontally.
 * Memory: two source-width rows of 64-bit accumulators, plus
 * the destination (dst_width × dst_height × 4), which the caller owns.
 * Interlaced input uses ct_resampler_init_sparse, which keeps accumulators
 * for the whole (small) output instead.
 */
typedef struct ct_resampler {
    ct_alloc *alloc;
    uint32_t src_width, src_height, dst_width, dst_height;
    ct_layout layout;
    uint8_t *dst;
    /* horizontal: per output column, first/last source column and edge weights */
    uint32_t *col_first, *col_last, *col_first_weight, *col_last_weight;
    /* source-width vertical sums for the current output row and the next one */
    uint64_t *acc_current, *acc_next;
    uint32_t next_src_row;
    uint32_t current_dst_row;
    /* sparse (interlaced) mode: accumulators for the whole output */
    uint64_t *acc_all;
    uint32_t *col_split_target, *col_split_weight; /* per source column */
} ct_resampler;

/**
 * The bytes a resampler for these sizes allocates (its accumulators and
 * column tables; not dst): 16 per sample of a source row (two 64-bit rows)
 * when streaming, 8 per sample of the whole output when sparse, so an RGBA
 * thumbnail of an interlaced image costs 32 bytes a pixel on top of its own 4.
 */
uint64_t ct_resampler_working_bytes(uint32_t src_width, uint32_t src_height, uint32_t dst_width,
                                    uint32_t dst_height, ct_layout layout, int sparse);

/**
 * Fails with CT_TOO_LARGE, naming the bytes, when a decoder holding `used`
 * bytes of working memory would pass `limit` (0: none) by adding the
 * resampler for these sizes; call before allocating it.
 */
ct_status ct_resampler_check_limit(const char *decoder, uint64_t used, uint64_t limit, uint32_t src_width,
                                   uint32_t src_height, uint32_t dst_width, uint32_t dst_height, ct_layout layout,
                                   int sparse, ct_error *error);

/** Sets up a streaming resampler. dst receives dst_width × dst_height × 4 bytes. */
ct_status ct_resampler_init(ct_resampler *resampler, ct_alloc *alloc, uint32_t src_width,
                            uint32_t src_height, uint32_t dst_width, uint32_t dst_height,
                            ct_layout layout, uint8_t *dst, ct_error *error);

/** Feeds the next source row (src_width pixels in the resampler's layout). */
void ct_resampler_push_row(ct_resampler *resampler, const uint8_t *row);

/**
 * Sets up a resampler that accepts pixels in any order (Adam7 passes): its
 * accumulators cover the whole output. Feed with ct_resampler_add_pixels,
 * then call ct_resampler_finish_sparse.
 */
ct_status ct_resampler_init_sparse(ct_resampler *resampler, ct_alloc *alloc, uint32_t src_width,
                                   uint32_t src_height, uint32_t dst_width, uint32_t dst_height,
                                   ct_layout layout, uint8_t *dst, ct_error *error);

/**
 * Adds count pixels of source row y, at columns first_column, first_column +
 * column_step, … (an Adam7 pass row).
 */
void ct_resampler_add_pixels(ct_resampler *resampler, uint32_t y, uint32_t first_column,
                             uint32_t column_step, uint32_t count, const uint8_t *pixels);

/** Writes the sparse accumulators to dst. */
void ct_resampler_finish_sparse(ct_resampler *resampler);

void ct_resampler_free(ct_resampler *resampler);

/* ---- the row decoders' thumbnail (PNG, GIF) -------------------------- */

/**
 * The thumbnail a row-by-row decoder fills and the resampler that fills it,
 * both counted in the decoder's ct_alloc.
 */
typedef struct ct_row_output {
    ct_resampler resampler;
    uint8_t *pixels;
    size_t pixel_bytes;
} ct_row_output;

/**
 * Allocates a transparent (zeroed) dst_width × dst_height RGBA thumbnail and a
 * resampler to it from src_width × src_height rows in `layout`: the sparse one
 * when the rows come interlaced.
 */
ct_status ct_row_output_init(ct_row_output *output, ct_alloc *alloc, uint32_t src_width, uint32_t src_height,
                             int interlaced, ct_layout layout, uint32_t dst_width, uint32_t dst_height,
                             ct_error *error);

/**
 * A row decoder's last step, once its library state is released. On success
 * hands *result to *thumbnail with the pixels, scale 8/8 and the peak; on
 * failure zeroes *thumbnail and copies *failure to *error. Frees whatever of
 * the output is left either way.
 */
ct_status ct_row_output_deliver(ct_row_output *output, ct_alloc *alloc, ct_status status, const ct_error *failure,
                                ct_thumbnail *result, ct_thumbnail *thumbnail, ct_error *error);

/* ---- orientation ----------------------------------------------------- */

/**
 * Returns a new malloc'd RGBA8 buffer with `pixels` (width × height) rotated
 * or flipped by EXIF orientation 2…8 and writes its size; NULL when out of
 * memory. The caller frees both buffers.
 */
uint8_t *ct_orient(const uint8_t *pixels, uint32_t width, uint32_t height, uint8_t orientation,
                   uint32_t *out_width, uint32_t *out_height);

/** Parses an EXIF (APP1 payload after "Exif\0\0") TIFF block; returns 1…8, 1 when absent or invalid. */
uint8_t ct_exif_orientation(const uint8_t *tiff, size_t size);

/* ---- colour management (ct_color.c) ------------------------------------ */

/** Largest ICC profile the colour stage takes: real ones are kilobytes; a few carry megabytes of tables. */
#define CT_COLOR_PROFILE_MAX (4u * 1024u * 1024u)

/** What a finished thumbnail's pixels hold, for the colour stage. */
typedef enum ct_color_model {
    /** RGBA8 with R = G = B, from a gray source. */
    CT_COLOR_MODEL_GRAY,
    /** RGBA8. */
    CT_COLOR_MODEL_RGB,
    /** CMYK inks, 4 bytes a pixel (CT_LAYOUT_CMYK), turned into opaque RGBA8 by the stage. */
    CT_COLOR_MODEL_CMYK,
    /** As CMYK, stored inverted (JPEGs with an Adobe marker: 0 is full ink). */
    CT_COLOR_MODEL_CMYK_INVERTED
} ct_color_model;

/**
 * Converts a finished thumbnail (width × height pixels in `model`, straight
 * alpha, which is never touched) in place from the ICC profile icc[0…size)
 * to sRGB, relative colorimetric, and fills *report. Never fails: a profile
 * that cannot be used (unparsable, over CT_COLOR_PROFILE_MAX, for another
 * colour space, no transform) leaves the pixels as they are with
 * CT_COLOR_IGNORED and a note; a profile equal to sRGB leaves them with
 * CT_COLOR_SRGB. CMYK pixels always come out RGBA: without a usable profile,
 * by ct_cmyk_ink_to_rgb. LittleCMS runs in a context of this call's own, so
 * calls on many threads are independent; its allocations are counted in alloc
 * and its error messages end up in the note, never on stderr.
 */
void ct_color_to_srgb(ct_alloc *alloc, uint8_t *pixels, uint32_t width, uint32_t height, ct_color_model model,
                      const uint8_t *icc, size_t size, ct_color_report *report);

/** CIE xy chromaticities of a white point and three primaries (a PNG cHRM chunk). */
typedef struct ct_color_chromaticities {
    double white_x, white_y, red_x, red_y, green_x, green_y, blue_x, blue_y;
} ct_color_chromaticities;

/**
 * Like ct_color_to_srgb for a file that gives its colour space as an
 * encoding gamma (PNG gAMA: 1/2.2 for sRGB-like files; 0 when absent) and
 * chromaticities (PNG cHRM; NULL when absent), for gray or RGB pixels.
 * Only what differs from sRGB costs anything: a gamma within 5% of 1/2.2 and
 * chromaticities within 0.001 of sRGB's leave the pixels as they are with
 * CT_COLOR_NONE. Gray takes the gamma alone. `description` names the source
 * in the report.
 */
void ct_color_gamma_to_srgb(ct_alloc *alloc, uint8_t *pixels, uint32_t width, uint32_t height, ct_color_model model,
                            double gamma, const ct_color_chromaticities *chromaticities, const char *description,
                            ct_color_report *report);

/** Records that the colour information was not used: status CT_COLOR_IGNORED and a printf-style note. */
void ct_color_ignore(ct_color_report *report, const char *format, ...) __attribute__((format(printf, 2, 3)));

/* Rounded a·b/255 for a, b in 0…255. */
static inline unsigned ct_mul255(unsigned a, unsigned b) {
    unsigned t = a * b + 128;
    return (t + (t >> 8)) >> 8;
}

/*
 * One CMYK pixel to RGB without a profile. Files with an Adobe marker
 * (Photoshop, Pillow, ImageMagick: nearly every CMYK JPEG) store inverted
 * values, so there R = C·K/255 on the stored bytes; without one the values
 * are taken as plain ink, R = (255−C)(255−K)/255.
 */
static inline void ct_cmyk_ink_to_rgb(const uint8_t ink[4], int inverted, uint8_t rgb[3]) {
    unsigned flip = inverted ? 0 : 255;
    unsigned c = ink[0] ^ flip, m = ink[1] ^ flip, y = ink[2] ^ flip, k = ink[3] ^ flip;
    rgb[0] = (uint8_t)ct_mul255(c, k);
    rgb[1] = (uint8_t)ct_mul255(m, k);
    rgb[2] = (uint8_t)ct_mul255(y, k);
}

/* ---- YUV rows (ct_yuv.c): AV1 and HEVC pictures into the area filter ------ */

/**
 * A decoded picture as AV1 and HEVC decoders hand it out: a luma plane, two
 * chroma planes subsampled by 2^chroma_shift (none when monochrome) and an
 * optional alpha plane, 8-bit samples in uint8_t, deeper ones in uint16_t.
 * The planes belong to the library; this only describes them.
 */
typedef struct ct_yuv_frame {
    uint32_t width, height;
    /** Bits per sample, 8…16, the same for every plane (alpha included). */
    uint8_t depth;
    /** 4:2:0 is 1, 1; 4:2:2 is 1, 0; 4:4:4 is 0, 0. */
    uint8_t chroma_shift_x, chroma_shift_y;
    /** 4:0:0: planes[1] and planes[2] are unused. */
    uint8_t monochrome;
    /** Nonzero: samples use the whole range (JPEG-style); zero: video ("limited") range. */
    uint8_t full_range;
    /** ITU-T H.273 matrix_coefficients: 0 identity (GBR), 1 BT.709, 5 and 6 BT.601, 9 and 10 BT.2020; others as BT.601. */
    uint16_t matrix;
    const uint8_t *planes[3];
    size_t row_bytes[3];
    /** NULL when the picture has no alpha. */
    const uint8_t *alpha;
    size_t alpha_row_bytes;
    uint8_t alpha_full_range;
} ct_yuv_frame;

/** Converts row y of frame to width × 4 bytes of RGBA8 (alpha 255 without an alpha plane). */
void ct_yuv_row_to_rgba(const ct_yuv_frame *frame, uint32_t y, uint8_t *rgba);

/* ---- the decoders (same contract as ct_probe_memory / ct_decode_memory) */

ct_status ct_jpeg_probe(ct_input *input, const ct_limits *limits, ct_image_info *info, ct_error *error);
ct_status ct_jpeg_decode(ct_input *input, const ct_decode_options *options, ct_thumbnail *thumbnail,
                         ct_error *error);
ct_status ct_png_probe(ct_input *input, const ct_limits *limits, ct_image_info *info, ct_error *error);
ct_status ct_png_decode(ct_input *input, const ct_decode_options *options, ct_thumbnail *thumbnail,
                        ct_error *error);
ct_status ct_webp_probe(ct_input *input, const ct_limits *limits, ct_image_info *info, ct_error *error);
ct_status ct_webp_decode(ct_input *input, const ct_decode_options *options, ct_thumbnail *thumbnail,
                         ct_error *error);
ct_status ct_gif_probe(ct_input *input, const ct_limits *limits, ct_image_info *info, ct_error *error);
ct_status ct_gif_decode(ct_input *input, const ct_decode_options *options, ct_thumbnail *thumbnail,
                        ct_error *error);
ct_status ct_avif_probe(ct_input *input, const ct_limits *limits, ct_image_info *info, ct_error *error);
ct_status ct_avif_decode(ct_input *input, const ct_decode_options *options, ct_thumbnail *thumbnail,
                         ct_error *error);
ct_status ct_heic_probe(ct_input *input, const ct_limits *limits, ct_image_info *info, ct_error *error);
ct_status ct_heic_decode(ct_input *input, const ct_decode_options *options, ct_thumbnail *thumbnail,
                         ct_error *error);
ct_status ct_jxl_probe(ct_input *input, const ct_limits *limits, ct_image_info *info, ct_error *error);
ct_status ct_jxl_decode(ct_input *input, const ct_decode_options *options, ct_thumbnail *thumbnail,
                        ct_error *error);

/**
 * Shared tail of the decoders: applies orientation to a finished
 * pre-orientation thumbnail held in *pixels (tracked in alloc), replacing it.
 */
ct_status ct_finish_orientation(ct_alloc *alloc, uint8_t **pixels, uint32_t *width, uint32_t *height,
                                uint8_t orientation, ct_error *error);

#endif /* CT_INTERNAL_H */
