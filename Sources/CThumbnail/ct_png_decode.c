/*
 * PNG header probe and one-pass PNG-to-thumbnail decode with libpng.
 *
 * Rows come out of png_read_row one at a time, already reduced to 8-bit
 * gray, gray+alpha, RGB or RGBA, and go straight into the area filter, so
 * the decode holds one source row, libpng's and zlib's working memory and
 * the thumbnail. Adam7 images are read pass by pass without libpng's
 * interlace handling (which needs a full-image buffer): each pass row is
 * added to the sparse resampler at its own columns.
 *
 * libpng reports errors by longjmp. Every setjmp is in this file, in a
 * function that keeps all its state in a ct_png_reader owned by its caller,
 * so nothing is lost when libpng jumps back; the caller then frees whatever
 * the reader holds, on success and failure alike.
 */
#include <png.h>
#include <setjmp.h>
#include <string.h>

#include "ct_internal.h"

/* Largest chunk libpng may buffer (its own default is 8 MB); larger ones are skipped with a warning. */
#define CT_PNG_CHUNK_MALLOC_CAP (8u * 1024u * 1024u)
/* Ancillary chunks libpng may keep (text, sPLT, unknown); it keeps none of them here anyway. */
#define CT_PNG_CHUNK_CACHE_MAX 64
/* Rows between looks at the cancel token: cheap, and well under a millisecond apart. */
#define CT_PNG_CANCEL_INTERVAL 32
/*
 * For the functions a setjmp function calls: inlined, their locals would
 * become the setjmp function's, which a longjmp may clobber.
 */
#define CT_PNG_OUT_OF_LINE __attribute__((noinline))

typedef struct ct_png_reader {
    png_structp png;
    png_infop info;
    ct_input *input;
    const ct_limits *limits;
    /* everything this decode allocates, libpng and zlib included */
    ct_alloc alloc;
    /* what libpng and zlib hold now, checked against limits->max_decoder_memory */
    uint64_t library_bytes;
    /* the row buffer and the area filter's accumulators, counted against the limit beside them */
    uint64_t output_bytes;
    uint64_t bytes_read;
    /* file offset where the chunk being read ends, CRC included */
    uint64_t chunk_end;
    /* the last libpng warning: it says why libpng rejected an IHDR */
    char warning[128];
    /* the first warning about the iCCP chunk: why libpng dropped the profile */
    char icc_warning[128];
    /* a nonzero status means the failure is already recorded here */
    ct_error error;
    uint8_t *row;
    ct_row_output output;
} ct_png_reader;

/* ---- libpng callbacks ---- */

static png_voidp ct_png_malloc(png_structp png, png_alloc_size_t size) {
    ct_png_reader *r = png_get_mem_ptr(png);
    uint64_t limit = r->limits->max_decoder_memory;
    uint64_t needed = r->library_bytes + r->output_bytes + size;
    if (limit != 0 && needed > limit) {
        ct_fail_memory_limit(&r->error, "PNG", needed, limit);
        return NULL;
    }
    void *block = ct_alloc_bytes(&r->alloc, size);
    if (block == NULL) {
        ct_fail(&r->error, CT_OUT_OF_MEMORY, "out of memory in the PNG decoder (%llu bytes)",
                (unsigned long long)size);
        return NULL;
    }
    r->library_bytes += size;
    return block;
}

static void ct_png_free(png_structp png, png_voidp block) {
    ct_png_reader *r = png_get_mem_ptr(png);
    /* ct_alloc keeps the block size to itself: read it back as the change in `current`. */
    uint64_t before = r->alloc.current;
    ct_alloc_free(&r->alloc, block);
    r->library_bytes -= before - r->alloc.current;
}

static void ct_png_warning(png_structp png, png_const_charp message) {
    /* Warnings are expected (bad ancillary CRCs, palette index overflow): keep them quiet. */
    ct_png_reader *r = png_get_error_ptr(png);
    snprintf(r->warning, sizeof r->warning, "%s", message);
    if (r->icc_warning[0] == 0 && strstr(message, "iCCP") != NULL)
        snprintf(r->icc_warning, sizeof r->icc_warning, "%s", message);
}

/* Turns a libpng error message into a status and message, unless a callback already recorded one. */
static void ct_png_record_error(ct_png_reader *r, const char *message) {
    if (r->error.status != CT_OK) return;
    const char *crc = strstr(message, ": CRC error");
    if (crc != NULL) {
        ct_fail(&r->error, CT_CORRUPT, "PNG %.*s CRC mismatch", (int)(crc - message), message);
    } else if (strcmp(message, "Invalid IHDR data") == 0) {
        /* png_check_IHDR explains the problem in a warning just before this error. */
        if (strstr(r->warning, "width exceeds user limit") != NULL)
            ct_fail(&r->error, CT_TOO_LARGE, "PNG image is wider than the limit of %u px", r->limits->max_width);
        else if (strstr(r->warning, "height exceeds user limit") != NULL)
            ct_fail(&r->error, CT_TOO_LARGE, "PNG image is higher than the limit of %u px", r->limits->max_height);
        else
            ct_fail(&r->error, CT_CORRUPT, "PNG header is invalid: %s", r->warning);
    } else {
        ct_fail(&r->error, CT_CORRUPT, "PNG is corrupt: %s", message);
    }
}

static void ct_png_error(png_structp png, png_const_charp message) {
    ct_png_record_error(png_get_error_ptr(png), message);
    png_longjmp(png, 1);
}

/* Says where in the file the input ran out, for a truncation message. */
static void ct_png_record_truncation(ct_png_reader *r, png_structp png) {
    png_uint_32 type = png_get_io_chunk_type(png);
    char name[5] = {(char)(type >> 24), (char)(type >> 16), (char)(type >> 8), (char)type, 0};
    unsigned long long got = r->bytes_read;
    switch (png_get_io_state(png) & PNG_IO_MASK_LOC) {
    case PNG_IO_SIGNATURE:
        ct_fail(&r->error, CT_TRUNCATED, "PNG data ends after %llu bytes, inside the signature", got);
        break;
    case PNG_IO_CHUNK_DATA:
    case PNG_IO_CHUNK_CRC:
        ct_fail(&r->error, CT_TRUNCATED, "PNG data ends after %llu of %llu bytes expected, inside the %s chunk", got,
                (unsigned long long)r->chunk_end, name);
        break;
    default:
        if (type == 0)
            ct_fail(&r->error, CT_TRUNCATED, "PNG data ends after %llu bytes, before the IHDR chunk", got);
        else
            ct_fail(&r->error, CT_TRUNCATED, "PNG data ends after %llu bytes, where a chunk should follow %s", got,
                    name);
        break;
    }
}

static void ct_png_read_input(png_structp png, png_bytep data, size_t length) {
    ct_png_reader *r = png_get_io_ptr(png);
    size_t got = ct_input_read(r->input, data, length);
    r->bytes_read += got;
    if (got == length) {
        /* libpng reads each 8-byte chunk header alone: note where its chunk and CRC end. */
        if (length == 8 && (png_get_io_state(png) & PNG_IO_MASK_LOC) == PNG_IO_CHUNK_HDR)
            r->chunk_end = r->bytes_read + png_get_uint_32(data) + 4;
        return;
    }
    if (r->input->read_error)
        ct_fail(&r->error, CT_IO_ERROR, "could not read the PNG input after %llu bytes",
                (unsigned long long)r->bytes_read);
    else
        ct_png_record_truncation(r, png);
    png_error(png, r->error.message);
}

/* ---- setup and teardown ---- */

static void ct_png_apply_limits(png_structp png, const ct_limits *limits) {
    /* Zero means "no limit" to us but "nothing fits" to libpng, whose own default is 1e6 px. */
    png_uint_32 width = limits->max_width != 0 && limits->max_width < PNG_UINT_31_MAX ? limits->max_width
                                                                                      : PNG_UINT_31_MAX;
    png_uint_32 height = limits->max_height != 0 && limits->max_height < PNG_UINT_31_MAX ? limits->max_height
                                                                                         : PNG_UINT_31_MAX;
    png_set_user_limits(png, width, height);
    uint64_t chunk_max = CT_PNG_CHUNK_MALLOC_CAP;
    if (limits->max_decoder_memory != 0 && limits->max_decoder_memory < chunk_max)
        chunk_max = limits->max_decoder_memory;
    png_set_chunk_malloc_max(png, (png_alloc_size_t)chunk_max);
    png_set_chunk_cache_max(png, CT_PNG_CHUNK_CACHE_MAX);
}

/* The chunks that describe the colour space, in the order they take precedence. */
static const png_byte ct_png_color_chunks[] = "iCCP\0sRGB\0gAMA\0cHRM";

/* read_color: libpng also reads the chunks that describe the colour space. */
static ct_status ct_png_open(ct_png_reader *r, ct_input *input, const ct_limits *limits, int read_color) {
    memset(r, 0, sizeof *r);
    r->input = input;
    r->limits = limits;
    r->png = png_create_read_struct_2(PNG_LIBPNG_VER_STRING, r, ct_png_error, ct_png_warning, r, ct_png_malloc,
                                      ct_png_free);
    if (r->png != NULL) r->info = png_create_info_struct(r->png);
    if (r->info == NULL) {
        if (r->error.status == CT_OK) ct_fail(&r->error, CT_OUT_OF_MEMORY, "cannot create the PNG decoder");
        return r->error.status;
    }
    png_set_read_fn(r->png, r, ct_png_read_input);
    ct_png_apply_limits(r->png, limits);
    /*
     * Only IHDR, PLTE, tRNS and IDAT matter for the pixels: libpng skips every
     * other chunk unparsed (no text decompression, nothing stored), so
     * defects in them cannot stop the decode. The colour stage adds iCCP,
     * sRGB, gAMA and cHRM, which libpng checks and drops with a warning when
     * they are damaged.
     */
    png_set_keep_unknown_chunks(r->png, PNG_HANDLE_CHUNK_NEVER, NULL, -1);
    if (read_color) png_set_keep_unknown_chunks(r->png, PNG_HANDLE_CHUNK_AS_DEFAULT, ct_png_color_chunks, 4);
    /* A bad CRC stops the decode in a critical chunk; an ancillary chunk is dropped with a warning. */
    png_set_crc_action(r->png, PNG_CRC_DEFAULT, PNG_CRC_WARN_DISCARD);
    /* Defects libpng calls benign (an out-of-range palette index, for one) are warnings, not errors. */
    png_set_benign_errors(r->png, 1);
    return CT_OK;
}

/* Releases libpng and the row; the output is ct_row_output_deliver's to release. */
static void ct_png_close(ct_png_reader *r) {
    ct_alloc_free(&r->alloc, r->row);
    r->row = NULL;
    if (r->png != NULL) png_destroy_read_struct(&r->png, r->info != NULL ? &r->info : NULL, NULL);
}

/* ---- header ---- */

/* Reads every chunk up to the first IDAT, describes the image and applies the limits. */
static CT_PNG_OUT_OF_LINE ct_status ct_png_read_header(ct_png_reader *r, ct_image_info *info) {
    png_read_info(r->png, r->info);
    png_uint_32 width, height;
    int bit_depth, color_type, interlace;
    png_get_IHDR(r->png, r->info, &width, &height, &bit_depth, &color_type, &interlace, NULL, NULL);
    memset(info, 0, sizeof *info);
    info->format = CT_FORMAT_PNG;
    info->width = width;
    info->height = height;
    info->orientation = 1;
    info->has_alpha = (color_type & PNG_COLOR_MASK_ALPHA) != 0 || png_get_valid(r->png, r->info, PNG_INFO_tRNS) != 0;
    info->progressive = interlace == PNG_INTERLACE_ADAM7;
    /* A palette holds colours, so it counts as three components, like RGB. */
    switch (color_type) {
    case PNG_COLOR_TYPE_GRAY: info->components = 1; break;
    case PNG_COLOR_TYPE_GRAY_ALPHA: info->components = 2; break;
    case PNG_COLOR_TYPE_RGB_ALPHA: info->components = 4; break;
    default: info->components = 3; break;
    }
    info->bit_depth = (uint8_t)bit_depth;
    return ct_check_limits(width, height, r->limits, &r->error);
}

/*
 * Checks the size in IHDR against the limits before libpng reads on: libpng
 * reads every chunk up to the first IDAT before it reports the size, so a
 * hostile header followed by nothing would otherwise look merely truncated.
 * Leaves the input at its start; anything malformed is left for libpng to name.
 */
static ct_status ct_png_precheck_size(ct_input *input, const ct_limits *limits, ct_error *error) {
    uint8_t head[24];
    size_t got = ct_input_read(input, head, sizeof head);
    if (ct_input_seek(input, 0) != 0) return ct_fail(error, CT_IO_ERROR, "cannot rewind the PNG input");
    if (got < sizeof head || memcmp(head + 12, "IHDR", 4) != 0) return CT_OK;
    uint32_t width = (uint32_t)head[16] << 24 | (uint32_t)head[17] << 16 | (uint32_t)head[18] << 8 | head[19];
    uint32_t height = (uint32_t)head[20] << 24 | (uint32_t)head[21] << 16 | (uint32_t)head[22] << 8 | head[23];
    if (width == 0 || height == 0) return CT_OK;
    return ct_check_limits(width, height, limits, error);
}

/* setjmp lives here, with no locals: the reader holds all the state, so a longjmp loses nothing. */
static ct_status ct_png_probe_header(ct_png_reader *r, ct_image_info *info) {
    if (setjmp(png_jmpbuf(r->png))) return r->error.status;
    return ct_png_read_header(r, info);
}

ct_status ct_png_probe(ct_input *input, const ct_limits *limits, ct_image_info *info, ct_error *error) {
    ct_status status = ct_png_precheck_size(input, limits, error);
    if (status != CT_OK) {
        memset(info, 0, sizeof *info);
        return status;
    }
    ct_png_reader reader;
    status = ct_png_open(&reader, input, limits, 0);
    if (status == CT_OK) status = ct_png_probe_header(&reader, info);
    ct_png_close(&reader);
    if (status != CT_OK) {
        memset(info, 0, sizeof *info);
        if (error != NULL) *error = reader.error;
    }
    return status;
}

/* ---- rows ---- */

/*
 * Asks libpng for 8-bit samples with as little work as possible: palette and
 * low-bit gray expand, tRNS becomes an alpha channel, 16-bit rounds to 8.
 * Gray stays gray; the resampler widens it to RGBA for free. Returns the
 * samples per pixel of the rows libpng will deliver, 0 when the resampler
 * cannot take them.
 */
static int ct_png_set_transforms(ct_png_reader *r) {
    png_structp png = r->png;
    int bit_depth = png_get_bit_depth(png, r->info);
    if (png_get_color_type(png, r->info) == PNG_COLOR_TYPE_PALETTE || bit_depth < 8
        || png_get_valid(png, r->info, PNG_INFO_tRNS) != 0)
        png_set_expand(png);
    if (bit_depth == 16) png_set_scale_16(png);
    png_read_update_info(png, r->info);

    png_byte channels = png_get_channels(png, r->info);
    png_uint_32 width = png_get_image_width(png, r->info);
    if (png_get_bit_depth(png, r->info) != 8 || channels < 1 || channels > 4
        || png_get_rowbytes(png, r->info) != (size_t)width * channels)
        return 0;
    return channels;
}

static int ct_png_cancel_point(uint32_t rows_done, const ct_cancel_token *cancel) {
    return rows_done % CT_PNG_CANCEL_INTERVAL == 0 && ct_is_cancelled(cancel);
}

static ct_status ct_png_read_rows(ct_png_reader *r, uint32_t height, const ct_cancel_token *cancel) {
    for (uint32_t y = 0; y < height; y++) {
        if (ct_png_cancel_point(y, cancel)) return ct_fail(&r->error, CT_CANCELLED, "PNG decode cancelled");
        png_read_row(r->png, r->row, NULL);
        ct_resampler_push_row(&r->output.resampler, r->row);
    }
    return CT_OK;
}

/*
 * Reads the seven Adam7 passes in file order. libpng skips passes with no
 * rows or no columns, so this loop must skip the same ones. png_read_row
 * copies a full image width of bytes even for a pass row, which is why the
 * row buffer is a full row.
 */
static ct_status ct_png_read_passes(ct_png_reader *r, uint32_t width, uint32_t height,
                                    const ct_cancel_token *cancel) {
    uint32_t rows_done = 0;
    for (int pass = 0; pass < 7; pass++) {
        uint32_t columns = PNG_PASS_COLS(width, pass), rows = PNG_PASS_ROWS(height, pass);
        if (columns == 0 || rows == 0) continue;
        uint32_t first_column = PNG_PASS_START_COL(pass), column_step = 1u << PNG_PASS_COL_SHIFT(pass);
        for (uint32_t i = 0; i < rows; i++, rows_done++) {
            if (ct_png_cancel_point(rows_done, cancel))
                return ct_fail(&r->error, CT_CANCELLED, "PNG decode cancelled");
            png_read_row(r->png, r->row, NULL);
            ct_resampler_add_pixels(&r->output.resampler, PNG_ROW_FROM_PASS_ROW(i, pass), first_column,
                                    column_step, columns, r->row);
        }
    }
    ct_resampler_finish_sparse(&r->output.resampler);
    return CT_OK;
}

/*
 * Allocates the row buffer, the thumbnail and the resampler for a source of
 * info's size, once the row and the resampler are known to fit the limit
 * beside what libpng holds (an Adam7 image's resampler covers the whole output).
 */
static ct_status ct_png_prepare_output(ct_png_reader *r, const ct_image_info *info, ct_layout layout,
                                       uint32_t dst_width, uint32_t dst_height) {
    size_t row_bytes = png_get_rowbytes(r->png, r->info);
    ct_status status = ct_resampler_check_limit("PNG", r->library_bytes + row_bytes, r->limits->max_decoder_memory,
                                                info->width, info->height, dst_width, dst_height, layout,
                                                info->progressive, &r->error);
    if (status != CT_OK) return status;
    r->output_bytes = row_bytes + ct_resampler_working_bytes(info->width, info->height, dst_width, dst_height, layout,
                                                             info->progressive);
    r->row = ct_alloc_bytes(&r->alloc, row_bytes);
    if (r->row == NULL) return ct_fail(&r->error, CT_OUT_OF_MEMORY, "out of memory for a PNG row");
    return ct_row_output_init(&r->output, &r->alloc, info->width, info->height, info->progressive, layout, dst_width,
                              dst_height, &r->error);
}

/*
 * The colour stage on the finished thumbnail, from the first chunk that
 * applies: iCCP, then sRGB, then gAMA and cHRM. A profile libpng dropped
 * (damaged, or for gray on a colour image) is reported with its warning,
 * not replaced by the chunks after it.
 */
static CT_PNG_OUT_OF_LINE void ct_png_manage_color(ct_png_reader *r, int gray, ct_thumbnail *result) {
    png_structp png = r->png;
    png_infop info = r->info;
    ct_color_model model = gray ? CT_COLOR_MODEL_GRAY : CT_COLOR_MODEL_RGB;
    png_charp name;
    int compression;
    png_bytep profile;
    png_uint_32 length;
    if (png_get_iCCP(png, info, &name, &compression, &profile, &length) != 0) {
        ct_color_to_srgb(&r->alloc, r->output.pixels, result->width, result->height, model, profile, length, &result->color);
    } else if (r->icc_warning[0] != 0) {
        ct_color_ignore(&result->color, "libpng dropped the iCCP chunk (%s)", r->icc_warning);
    } else if (png_get_valid(png, info, PNG_INFO_sRGB) != 0) {
        result->color.status = CT_COLOR_SRGB;
        snprintf(result->color.profile, sizeof result->color.profile, "PNG sRGB chunk");
    } else {
        double gamma = 0;
        if (png_get_gAMA(png, info, &gamma) == 0) gamma = 0;
        ct_color_chromaticities c;
        int has_chromaticities = png_get_cHRM(png, info, &c.white_x, &c.white_y, &c.red_x, &c.red_y, &c.green_x,
                                              &c.green_y, &c.blue_x, &c.blue_y) != 0;
        char description[64];
        if (gamma > 0)
            snprintf(description, sizeof description, "PNG gAMA %.5f%s", gamma, has_chromaticities ? ", cHRM" : "");
        else
            snprintf(description, sizeof description, "PNG cHRM");
        ct_color_gamma_to_srgb(&r->alloc, r->output.pixels, result->width, result->height, model, gamma,
                               has_chromaticities ? &c : NULL, description, &result->color);
    }
}

static CT_PNG_OUT_OF_LINE ct_status ct_png_decode_steps(ct_png_reader *r, const ct_decode_options *options,
                                                        ct_thumbnail *result) {
    ct_status status = ct_png_read_header(r, &result->source);
    if (status != CT_OK) return status;
    int channels = ct_png_set_transforms(r);
    if (channels == 0)
        return ct_fail(&r->error, CT_UNSUPPORTED_FEATURE,
                       "PNG rows do not come out as 8-bit gray, gray+alpha, RGB or RGBA");

    const ct_image_info *info = &result->source;
    ct_thumbnail_size(info->width, info->height, 1, options, &result->width, &result->height);
    status = ct_png_prepare_output(r, info, (ct_layout)channels, result->width, result->height);
    if (status != CT_OK) return status;
    status = info->progressive ? ct_png_read_passes(r, info->width, info->height, options->cancel)
                               : ct_png_read_rows(r, info->height, options->cancel);
    if (status != CT_OK) return status;
    /* Reads to IEND: checks the last IDAT's CRC and refuses a file cut short after the pixels. */
    png_read_end(r->png, r->info);
    if (options->convert_to_srgb) ct_png_manage_color(r, channels <= 2, result);
    return CT_OK;
}

/* setjmp lives here, with no locals: the reader holds all the state, so a longjmp loses nothing. */
static ct_status ct_png_decode_image(ct_png_reader *r, const ct_decode_options *options, ct_thumbnail *result) {
    if (setjmp(png_jmpbuf(r->png))) return r->error.status;
    return ct_png_decode_steps(r, options, result);
}

ct_status ct_png_decode(ct_input *input, const ct_decode_options *options, ct_thumbnail *thumbnail,
                        ct_error *error) {
    ct_status status = ct_png_precheck_size(input, &options->limits, error);
    if (status != CT_OK) {
        memset(thumbnail, 0, sizeof *thumbnail);
        return status;
    }
    ct_png_reader reader;
    ct_thumbnail result;
    memset(&result, 0, sizeof result);
    status = ct_png_open(&reader, input, &options->limits, options->convert_to_srgb);
    if (status == CT_OK) status = ct_png_decode_image(&reader, options, &result);
    ct_png_close(&reader);
    return ct_row_output_deliver(&reader.output, &reader.alloc, status, &reader.error, &result, thumbnail, error);
}
