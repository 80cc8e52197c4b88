/*
 * JPEG header probe and JPEG-to-thumbnail decode with libjpeg-turbo.
 *
 * The decode picks the smallest DCT scale (1/8, 1/4, 1/2 or 1/1) whose output
 * still covers the thumbnail (and keeps a block's worth of pixels on each
 * side, see ct_jpeg_scale_covers), reads scanlines a batch at a time and feeds them
 * to the area filter, so neither a full-size bitmap nor the compressed file
 * (for file input) is ever held whole. Progressive files decoded at a reduced
 * scale can skip the scans the reduced IDCT never reads (ct_jpeg_scans.c).
 * An ICC profile in the header's APP2 markers is gathered as libjpeg reads
 * them (ct_jpeg_icc.c) and converts the finished thumbnail (ct_color.c).
 *
 * Each function here that calls into libjpeg sets the error manager's jump
 * point first: libjpeg's errors, our warning policy, the memory limit and
 * cancellation all longjmp back into that function, which returns a status.
 * Everything those functions touch after setjmp lives in ct_jpeg_decoder, so
 * nothing depends on locals surviving the jump, and ct_jpeg_close frees it
 * all on every path.
 */
#include <stdlib.h>
#include <string.h>

#include "ct_jpeg.h"

/* Output rows per jpeg_read_scanlines call: one iMCU row of a 4:2:0 file at full scale. */
#define CT_JPEG_BATCH_ROWS 16

typedef struct ct_jpeg_decoder {
    struct jpeg_decompress_struct cinfo; /* first member: the progress and warning hooks find the decoder from cinfo */
    ct_jpeg_error error;
    ct_jpeg_source source;
    ct_jpeg_memory memory;
    struct jpeg_progress_mgr progress;
    ct_alloc alloc;
    ct_input *input;
    const ct_cancel_token *cancel;
    ct_image_info info;
    /* the decode plan */
    uint8_t orientation; /* applied: the EXIF value, or 1 when not applying it */
    uint32_t thumb_width, thumb_height; /* before orientation */
    ct_layout layout;
    int multi_scan; /* libjpeg buffers the whole image's coefficients */
    ct_jpeg_scan_plan plan;
    ct_jpeg_path path;
    ct_jpeg_dc_planes planes; /* the DC-only path's coefficients */
    ct_jpeg_icc icc; /* the embedded ICC profile (collected only when converting to sRGB) */
    /* libjpeg's first complaint about damaged entropy data in a file that may still be whole; "" when none */
    char damage[sizeof ((ct_thumbnail *)0)->damage];
    /* buffers */
    uint8_t *pixels; /* malloc'd, handed to the caller */
    uint8_t *rows;
    JSAMPROW row_pointers[CT_JPEG_BATCH_ROWS];
    ct_resampler resampler;
} ct_jpeg_decoder;

/* ---- errors and warnings ---- */

static ct_status ct_jpeg_status_for_error(const struct jpeg_error_mgr *err) {
    switch (err->msg_code) {
    case JERR_OUT_OF_MEMORY:
    case JERR_NO_BACKING_STORE: /* libjpeg's max_memory_to_use was exceeded */
    case JERR_IMAGE_TOO_BIG:
    case JERR_WIDTH_OVERFLOW:
        return CT_TOO_LARGE;
    case JERR_BAD_PRECISION: /* 12- and 16-bit need another build of the library; other values are invalid */
        return err->msg_parm.i[0] == 12 || err->msg_parm.i[0] == 16 ? CT_UNSUPPORTED_FEATURE : CT_CORRUPT;
    case JERR_SOF_UNSUPPORTED: /* lossless, hierarchical */
    case JERR_ARITH_NOTIMPL:
    case JERR_NOTIMPL:
    case JERR_NOT_COMPILED:
    case JERR_CONVERSION_NOTIMPL:
        return CT_UNSUPPORTED_FEATURE;
    default:
        return CT_CORRUPT;
    }
}

/* Turns what the error manager recorded into the caller's status and message. */
static ct_status ct_jpeg_failure(ct_jpeg_decoder *d, ct_error *error) {
    if (d->error.status != CT_OK) return ct_fail(error, d->error.status, "%s", d->error.message);
    ct_status status = ct_jpeg_status_for_error(&d->error.pub);
    const char *text = d->error.message + strlen("JPEG: ");
    if (status == CT_CORRUPT && d->source.eof)
        return ct_fail(error, CT_TRUNCATED, "JPEG: the file is truncated (%s)", text);
    if (status == CT_TOO_LARGE && d->memory.limit != 0
        && (d->error.pub.msg_code == JERR_OUT_OF_MEMORY || d->error.pub.msg_code == JERR_NO_BACKING_STORE)) {
        return ct_fail_memory_limit(error, "JPEG", 0, d->memory.limit);
    }
    return ct_fail(error, status, "%s", d->error.message);
}

/* The warnings that mean the entropy-coded data is damaged: libjpeg draws the damaged part grey and goes on. */
static int ct_jpeg_warning_is_damage(int code) {
    switch (code) {
    case JWRN_HIT_MARKER:       /* a scan's data ends early */
    case JWRN_HUFF_BAD_CODE:
    case JWRN_ARITH_BAD_CODE:
    case JWRN_MUST_RESYNC:      /* a restart marker out of place */
    case JWRN_BOGUS_PROGRESSION: /* a progressive scan out of order, or one missing */
    case JWRN_NOT_SEQUENTIAL:
        return 1;
    default:                    /* extraneous bytes before a marker, unknown JFIF/Adobe versions, a bad ICC marker */
        return 0;
    }
}

/*
 * Damaged entropy data is drawn as browsers draw it (libjpeg fills grey),
 * and the first complaint is kept for the report, but only in a file that
 * is whole: one that runs out of bytes is a cut download, and that is
 * truncated, whether the damage shows before the end (here) or the end
 * turns up later (ct_jpeg_ran_short).
 */
static void ct_jpeg_warning(j_common_ptr common) {
    if (!ct_jpeg_warning_is_damage(common->err->msg_code)) return;
    ct_jpeg_decoder *d = (ct_jpeg_decoder *)common;
    char text[JMSG_LENGTH_MAX];
    ct_jpeg_format_current(common, text);
    if (d->source.eof) ct_jpeg_raise(common, CT_TRUNCATED, "the file is truncated (%s)", text);
    if (d->damage[0] == '\0') snprintf(d->damage, sizeof d->damage, "JPEG: %s", text);
}

/* libjpeg calls this once per iMCU row while absorbing a multi-scan file and once per jpeg_read_scanlines. */
static void ct_jpeg_progress(j_common_ptr common) {
    const ct_jpeg_decoder *d = (const ct_jpeg_decoder *)common;
    if (ct_is_cancelled(d->cancel)) ct_jpeg_raise(common, CT_CANCELLED, "decode cancelled");
}

/* ---- header ---- */

static uint8_t ct_jpeg_exif_orientation(j_decompress_ptr cinfo) {
    static const char exif_header[6] = {'E', 'x', 'i', 'f', 0, 0};
    for (jpeg_saved_marker_ptr marker = cinfo->marker_list; marker != NULL; marker = marker->next) {
        if (marker->marker == JPEG_APP0 + 1 && marker->data_length >= sizeof exif_header
            && memcmp(marker->data, exif_header, sizeof exif_header) == 0)
            return ct_exif_orientation(marker->data + sizeof exif_header, marker->data_length - sizeof exif_header);
    }
    return 1;
}

static void ct_jpeg_describe(ct_jpeg_decoder *d) {
    j_decompress_ptr cinfo = &d->cinfo;
    d->info.format = CT_FORMAT_JPEG;
    d->info.width = cinfo->image_width;
    d->info.height = cinfo->image_height;
    d->info.orientation = ct_jpeg_exif_orientation(cinfo);
    d->info.has_alpha = 0;
    d->info.progressive = cinfo->progressive_mode ? 1 : 0;
    d->info.components = (uint8_t)cinfo->num_components;
    d->info.bit_depth = (uint8_t)cinfo->data_precision;
}

/*
 * Whether a scaled side of `scaled` px, from `side` source px, serves a
 * thumbnail side of `thumb` px: it covers the thumbnail, and it keeps at
 * least a block's worth of pixels (8, or the whole side when that is
 * shorter). Below that, the last block's padding rows (which the encoder
 * invents) weigh as much as real ones: a 9000×5 strip at 1/8 is one row,
 * averaged over 5 real rows and 3 of padding.
 */
static int ct_jpeg_scale_covers(JDIMENSION scaled, uint32_t side, uint32_t thumb) {
    uint32_t least = side < 8 ? side : 8;
    return scaled >= thumb && scaled >= least;
}

/* Chooses colour output, thumbnail size and DCT scale. */
static ct_status ct_jpeg_configure(ct_jpeg_decoder *d, const ct_decode_options *options, ct_error *error) {
    j_decompress_ptr cinfo = &d->cinfo;
    switch (cinfo->jpeg_color_space) {
    case JCS_GRAYSCALE:
        cinfo->out_color_space = JCS_GRAYSCALE;
        d->layout = CT_LAYOUT_GRAY;
        break;
    case JCS_YCbCr:
        if (options->jpeg_luma_only) {
            cinfo->out_color_space = JCS_GRAYSCALE;
            d->layout = CT_LAYOUT_GRAY;
            break;
        }
        /* fall through */
    case JCS_RGB:
        cinfo->out_color_space = JCS_EXT_RGB; /* 3 bytes: less to write and filter than RGBA */
        d->layout = CT_LAYOUT_RGB;
        break;
    case JCS_CMYK:
    case JCS_YCCK:
        /*
         * libjpeg cannot convert these to RGB. With a profile the inks go
         * through the filter as they are and the colour stage converts the
         * thumbnail; without one we convert each row by formula.
         */
        cinfo->out_color_space = JCS_CMYK;
        d->layout = options->convert_to_srgb && d->icc.profile != NULL ? CT_LAYOUT_CMYK : CT_LAYOUT_RGB;
        break;
    default:
        return ct_fail(error, CT_UNSUPPORTED_FEATURE, "JPEG: unsupported colour space (%d components)",
                       cinfo->num_components);
    }
    cinfo->dct_method = JDCT_ISLOW;
    /*
     * Block smoothing only acts when AC coefficients are missing, which is
     * what skipped scans look like; off, a skipped-scan decode matches the
     * full one exactly (and a complete file decodes the same either way).
     */
    cinfo->do_block_smoothing = FALSE;

    d->orientation = options->apply_orientation ? d->info.orientation : 1;
    /* for a fill, the cover size: the DCT scale below is the smallest that covers it */
    ct_thumbnail_size(cinfo->image_width, cinfo->image_height, d->orientation, options, &d->thumb_width,
                      &d->thumb_height);
    static const int scales[] = {1, 2, 4, 8};
    for (size_t i = 0; i < sizeof scales / sizeof scales[0]; i++) {
        cinfo->scale_num = (unsigned)scales[i];
        cinfo->scale_denom = 8;
        jpeg_calc_output_dimensions(cinfo);
        if (ct_jpeg_scale_covers(cinfo->output_width, cinfo->image_width, d->thumb_width)
            && ct_jpeg_scale_covers(cinfo->output_height, cinfo->image_height, d->thumb_height))
            break;
    }
    return CT_OK;
}

/* Reads the header, applies the limits, and (options given) plans the output. */
static ct_status ct_jpeg_read_header(ct_jpeg_decoder *d, const ct_limits *limits, const ct_decode_options *options,
                                     ct_error *error) {
    if (setjmp(d->error.jump)) return ct_jpeg_failure(d, error);
    jpeg_read_header(&d->cinfo, TRUE);
    if (!d->icc.closed) ct_jpeg_icc_close(&d->icc); /* the header is where a profile belongs */
    ct_status status = ct_check_limits(d->cinfo.image_width, d->cinfo.image_height, limits, error);
    if (status != CT_OK) return status;
    ct_jpeg_describe(d);
    return options == NULL ? CT_OK : ct_jpeg_configure(d, options, error);
}

/* libjpeg's APP2 marker processor: the decoder starts with cinfo, so cinfo finds it. */
static boolean ct_jpeg_read_app2(j_decompress_ptr cinfo) {
    ct_jpeg_decoder *d = (ct_jpeg_decoder *)cinfo;
    ct_jpeg_icc_read_marker(&d->icc, cinfo);
    return TRUE;
}

/*
 * Creates the libjpeg object with our error, memory, source and progress
 * managers; with read_icc, APP2 markers are read for an ICC profile.
 */
static ct_status ct_jpeg_open(ct_jpeg_decoder *d, ct_input *input, const ct_limits *limits,
                              const ct_cancel_token *cancel, int read_icc, ct_error *error) {
    memset(d, 0, sizeof *d);
    d->input = input;
    d->cancel = cancel;
    ct_jpeg_icc_init(&d->icc, &d->alloc);
    ct_jpeg_error_init(&d->error, ct_jpeg_warning);
    d->cinfo.err = &d->error.pub;
    if (setjmp(d->error.jump)) return ct_jpeg_failure(d, error);
    jpeg_create_decompress(&d->cinfo);
    ct_jpeg_memory_install(&d->memory, (j_common_ptr)&d->cinfo, &d->alloc, limits->max_decoder_memory);
    ct_status status = ct_jpeg_source_init(&d->source, &d->cinfo, input, &d->alloc, error);
    if (status != CT_OK) return status;
    d->progress.progress_monitor = ct_jpeg_progress;
    d->cinfo.progress = &d->progress;
    jpeg_save_markers(&d->cinfo, JPEG_APP0 + 1, 0xFFFF);
    if (read_icc) jpeg_set_marker_processor(&d->cinfo, JPEG_APP0 + 2, ct_jpeg_read_app2);
    return CT_OK;
}

/* Frees everything but the pixels. Safe after any failure (the decoder starts zeroed). */
static void ct_jpeg_close(ct_jpeg_decoder *d) {
    jpeg_destroy_decompress(&d->cinfo);
    ct_jpeg_memory_release(&d->memory);
    ct_resampler_free(&d->resampler);
    ct_alloc_free(&d->alloc, d->rows);
    d->rows = NULL;
    ct_jpeg_scan_plan_free(&d->plan, &d->alloc);
    ct_jpeg_dc_planes_free(&d->planes, &d->alloc);
    ct_jpeg_icc_free(&d->icc);
    ct_jpeg_source_free(&d->source, &d->alloc);
}

/* ---- progressive scan skipping ---- */

/* Whether some component's IDCT at the chosen scale leaves coefficients unread. */
static int ct_jpeg_may_skip_scans(ct_jpeg_decoder *d, const ct_decode_options *options) {
    j_decompress_ptr cinfo = &d->cinfo;
    if (!options->progressive_scan_skipping || !cinfo->progressive_mode || cinfo->scale_num >= 8) return 0;
    for (int i = 0; i < cinfo->num_components; i++)
        if (ct_jpeg_coefficients_read(cinfo->comp_info[i].DCT_scaled_size) != ~0ull) return 1;
    return 0;
}

/*
 * Puts libjpeg back to its start state, plans which scans to leave out and
 * rewinds the source with those ranges. The caller reads the header again
 * (microseconds) and decodes as usual.
 */
static ct_status ct_jpeg_plan_skipping(ct_jpeg_decoder *d, ct_error *error) {
    j_decompress_ptr cinfo = &d->cinfo;
    ct_jpeg_component_need needs[MAX_COMPONENTS];
    for (int i = 0; i < cinfo->num_components; i++) {
        needs[i].id = cinfo->comp_info[i].component_id;
        needs[i].coefficients = ct_jpeg_coefficients_read(cinfo->comp_info[i].DCT_scaled_size);
    }
    if (setjmp(d->error.jump)) return ct_jpeg_failure(d, error);
    jpeg_abort_decompress(cinfo); /* frees the image pool; libjpeg no longer holds bytes of the source buffer */
    ct_status status = ct_jpeg_plan_scans(d->input, d->source.buffer, d->source.capacity, needs,
                                          cinfo->num_components, &d->alloc, &d->plan, error);
    if (status != CT_OK) return status;
    if (!d->plan.understood) ct_jpeg_scan_plan_free(&d->plan, &d->alloc);
    if (ct_jpeg_source_rewind(&d->source, d->plan.drop, d->plan.count) != 0)
        return ct_fail(error, CT_IO_ERROR, "cannot seek in the input file");
    return CT_OK;
}

/* ---- scanlines ---- */

/* CMYK to RGB in place (4 bytes in, 3 out per pixel), by formula (ct_cmyk_ink_to_rgb). */
void ct_jpeg_cmyk_to_rgb(uint8_t *row, uint32_t width, int inverted) {
    for (uint32_t x = 0; x < width; x++) ct_cmyk_ink_to_rgb(row + (size_t)x * 4, inverted, row + (size_t)x * 3);
}

/*
 * The thumbnail's pixels, and the area filter into them from a width × height
 * image, once the filter is known to fit the limit beside what libjpeg holds;
 * libjpeg's later requests then count it too.
 */
static ct_status ct_jpeg_prepare_thumbnail(ct_jpeg_decoder *d, uint32_t width, uint32_t height, ct_error *error) {
    ct_status status = ct_resampler_check_limit("JPEG", ct_jpeg_memory_held(&d->memory), d->memory.limit, width,
                                                height, d->thumb_width, d->thumb_height, d->layout, 0, error);
    if (status != CT_OK) return status;
    d->memory.outside_bytes = ct_resampler_working_bytes(width, height, d->thumb_width, d->thumb_height, d->layout, 0);
    size_t pixel_bytes = (size_t)d->thumb_width * d->thumb_height * 4;
    d->pixels = malloc(pixel_bytes);
    if (d->pixels == NULL) return ct_fail(error, CT_OUT_OF_MEMORY, "out of memory for a %ux%u thumbnail",
                                          d->thumb_width, d->thumb_height);
    ct_alloc_note(&d->alloc, (int64_t)pixel_bytes);
    return ct_resampler_init(&d->resampler, &d->alloc, width, height, d->thumb_width, d->thumb_height, d->layout,
                             d->pixels, error);
}

/* The thumbnail and libjpeg's scanline batch. */
static ct_status ct_jpeg_prepare_output(ct_jpeg_decoder *d, ct_error *error) {
    j_decompress_ptr cinfo = &d->cinfo;
    ct_status status = ct_jpeg_prepare_thumbnail(d, cinfo->output_width, cinfo->output_height, error);
    if (status != CT_OK) return status;
    size_t stride = (size_t)cinfo->output_width * (size_t)cinfo->output_components;
    d->rows = ct_alloc_bytes(&d->alloc, stride * CT_JPEG_BATCH_ROWS);
    if (d->rows == NULL) return ct_fail(error, CT_OUT_OF_MEMORY, "out of memory for JPEG scanlines");
    for (int i = 0; i < CT_JPEG_BATCH_ROWS; i++) d->row_pointers[i] = d->rows + stride * (size_t)i;
    return CT_OK;
}

/*
 * Whether running out of input means image data is missing. It always does
 * for a multi-scan file (further scans may have followed), for arithmetic
 * coding, whose decoder pads missing data with zeros without a warning, and
 * for a file that was damaged before it ran out. An undamaged single-scan
 * Huffman file warns when bits are missing (ct_jpeg_warning), so if it only
 * ran out while libjpeg looked for EOI, every MCU was decoded from real data
 * and it is accepted.
 */
static int ct_jpeg_ran_short(ct_jpeg_decoder *d) {
    return d->source.eof && (d->multi_scan || d->cinfo.arith_code || d->damage[0] != '\0');
}

static ct_status ct_jpeg_truncated(ct_error *error) {
    return ct_fail(error, CT_TRUNCATED, "JPEG: the file is truncated (it ends before the image data does)");
}

static ct_status ct_jpeg_decode_rows(ct_jpeg_decoder *d, ct_error *error) {
    j_decompress_ptr cinfo = &d->cinfo;
    if (setjmp(d->error.jump)) return ct_jpeg_failure(d, error);
    d->multi_scan = jpeg_has_multiple_scans(cinfo);
    jpeg_start_decompress(cinfo); /* reads a multi-scan file whole */
    if (ct_jpeg_ran_short(d)) return ct_jpeg_truncated(error);
    ct_status status = ct_jpeg_prepare_output(d, error);
    if (status != CT_OK) return status;
    int cmyk_to_rgb = cinfo->out_color_space == JCS_CMYK && d->layout == CT_LAYOUT_RGB;
    while (cinfo->output_scanline < cinfo->output_height) {
        JDIMENSION count = jpeg_read_scanlines(cinfo, d->row_pointers, CT_JPEG_BATCH_ROWS);
        if (ct_jpeg_ran_short(d)) return ct_jpeg_truncated(error);
        for (JDIMENSION i = 0; i < count; i++) {
            if (cmyk_to_rgb) ct_jpeg_cmyk_to_rgb(d->row_pointers[i], cinfo->output_width, cinfo->saw_Adobe_marker);
            ct_resampler_push_row(&d->resampler, d->row_pointers[i]);
        }
    }
    jpeg_finish_decompress(cinfo);
    return ct_jpeg_ran_short(d) ? ct_jpeg_truncated(error) : CT_OK;
}

/* ---- DC-only decoding ---- */

/*
 * A progressive Huffman 8-bit file at 1/8, in a colour space and with sampling
 * factors the DC path handles. It stands in for the scan-skipping path (whose
 * statuses it keeps), so both must be allowed.
 */
static int ct_jpeg_may_decode_dc(const ct_jpeg_decoder *d, const ct_decode_options *options) {
    const struct jpeg_decompress_struct *cinfo = &d->cinfo;
    if (!options->progressive_dc_decoding || !options->progressive_scan_skipping || !cinfo->progressive_mode || cinfo->arith_code
        || cinfo->data_precision != 8 || cinfo->scale_num != 1 || cinfo->scale_denom != 8)
        return 0;
    int count = cinfo->num_components;
    switch (cinfo->jpeg_color_space) {
    case JCS_GRAYSCALE: if (count != 1) return 0; break;
    case JCS_YCbCr: case JCS_RGB: if (count != 3) return 0; break;
    case JCS_CMYK: case JCS_YCCK: if (count != 4) return 0; break;
    default: return 0;
    }
    for (int i = 0; i < count; i++) {
        const jpeg_component_info *component = &cinfo->comp_info[i];
        if (cinfo->max_h_samp_factor % component->h_samp_factor != 0
            || cinfo->max_v_samp_factor % component->v_samp_factor != 0)
            return 0; /* fractional upsampling: libjpeg refuses it, let it say so */
    }
    return 1;
}

/* Copies what the DC path needs from libjpeg's header parse (jpeg_abort_decompress frees comp_info). */
static void ct_jpeg_describe_frame(const ct_jpeg_decoder *d, ct_jpeg_dc_frame *frame) {
    const struct jpeg_decompress_struct *cinfo = &d->cinfo;
    memset(frame, 0, sizeof *frame);
    frame->width = cinfo->image_width;
    frame->height = cinfo->image_height;
    frame->output_width = cinfo->output_width;
    frame->output_height = cinfo->output_height;
    frame->max_h = cinfo->max_h_samp_factor;
    frame->max_v = cinfo->max_v_samp_factor;
    frame->mcus_per_row = (uint32_t)(((uint64_t)cinfo->image_width + 8u * (uint64_t)frame->max_h - 1)
                                     / (8u * (uint64_t)frame->max_h));
    frame->mcu_rows = (uint32_t)(((uint64_t)cinfo->image_height + 8u * (uint64_t)frame->max_v - 1)
                                 / (8u * (uint64_t)frame->max_v));
    frame->component_count = cinfo->num_components;
    frame->color_space = cinfo->jpeg_color_space;
    frame->inverted_cmyk = cinfo->saw_Adobe_marker;
    frame->luma_only = cinfo->jpeg_color_space == JCS_YCbCr && d->layout == CT_LAYOUT_GRAY;
    frame->keeps_cmyk = d->layout == CT_LAYOUT_CMYK;
    for (int i = 0; i < cinfo->num_components; i++) {
        const jpeg_component_info *info = &cinfo->comp_info[i];
        ct_jpeg_dc_component *component = &frame->components[i];
        component->id = info->component_id;
        component->h = info->h_samp_factor;
        component->v = info->v_samp_factor;
        component->quant_table = info->quant_tbl_no;
        component->scaled_size = info->DCT_scaled_size;
        component->width_in_blocks = info->width_in_blocks;
        component->height_in_blocks = info->height_in_blocks;
    }
}

/*
 * Decodes with the DC-only path. *fell_back: it handed the file back before
 * any output; libjpeg must start over on the stream.
 */
static ct_status ct_jpeg_decode_dc(ct_jpeg_decoder *d, int *fell_back, ct_error *error) {
    ct_jpeg_dc_frame frame;
    ct_jpeg_describe_frame(d, &frame);
    *fell_back = 0;
    if (setjmp(d->error.jump)) return ct_jpeg_failure(d, error);
    jpeg_abort_decompress(&d->cinfo); /* frees libjpeg's image pool; it no longer holds bytes of the source buffer */
    ct_status status = CT_OK;
    ct_jpeg_dc_result result = ct_jpeg_dc_decode(&frame, d->input, d->source.buffer, d->source.capacity, &d->alloc,
                                                 d->memory.limit, d->cancel, &d->planes, &status, error);
    if (result == CT_JPEG_DC_DONE) {
        status = ct_jpeg_prepare_thumbnail(d, frame.output_width, frame.output_height, error);
        if (status == CT_OK) status = ct_jpeg_dc_render(&frame, &d->planes, &d->alloc, d->cancel, &d->resampler, error);
    }
    ct_jpeg_dc_planes_free(&d->planes, &d->alloc);
    *fell_back = result == CT_JPEG_DC_FALLBACK;
    return status;
}

/* Reads the header again from the start of the stream, after the DC path handed the file back. */
static ct_status ct_jpeg_start_over(ct_jpeg_decoder *d, const ct_decode_options *options, ct_error *error) {
    if (ct_jpeg_source_rewind(&d->source, NULL, 0) != 0) return ct_fail(error, CT_IO_ERROR, "cannot seek in the input file");
    return ct_jpeg_read_header(d, &options->limits, options, error);
}

/* libjpeg's decode, leaving out the progressive scans the scale cannot use when it may. */
static ct_status ct_jpeg_decode_with_libjpeg(ct_jpeg_decoder *d, const ct_decode_options *options, ct_error *error) {
    ct_status status = CT_OK;
    if (ct_jpeg_may_skip_scans(d, options)) {
        status = ct_jpeg_plan_skipping(d, error);
        if (status == CT_OK) status = ct_jpeg_read_header(d, &options->limits, options, error);
    }
    if (status == CT_OK) status = ct_jpeg_decode_rows(d, error);
    d->path = d->plan.count > 0 ? CT_JPEG_PATH_SCAN_SKIPPING : CT_JPEG_PATH_LIBJPEG;
    return status;
}

/* ---- colour ---- */

/*
 * The colour stage on the finished (pre-orientation) thumbnail. A luma-only
 * decode is left alone: its gray is one plane of the file's encoding, not a
 * colour its profile describes, and the option exists to compare planes.
 */
static void ct_jpeg_manage_color(ct_jpeg_decoder *d, ct_color_report *report) {
    const struct jpeg_decompress_struct *cinfo = &d->cinfo;
    if (d->icc.problem[0] != 0) {
        ct_color_ignore(report, "%s", d->icc.problem);
        return;
    }
    if (d->icc.profile == NULL) return;
    ct_color_model model;
    if (d->layout == CT_LAYOUT_CMYK) {
        model = cinfo->saw_Adobe_marker ? CT_COLOR_MODEL_CMYK_INVERTED : CT_COLOR_MODEL_CMYK;
    } else if (d->layout == CT_LAYOUT_RGB) { /* YCbCr or RGB: a CMYK file with a profile keeps its inks */
        model = CT_COLOR_MODEL_RGB;
    } else if (cinfo->jpeg_color_space == JCS_GRAYSCALE) {
        model = CT_COLOR_MODEL_GRAY;
    } else {
        ct_color_ignore(report, "a luma-only decode is not colour-managed");
        return;
    }
    ct_color_to_srgb(&d->alloc, d->pixels, d->thumb_width, d->thumb_height, model, d->icc.profile, d->icc.size,
                     report);
}

/* ---- entry points ---- */

ct_status ct_jpeg_probe(ct_input *input, const ct_limits *limits, ct_image_info *info, ct_error *error) {
    ct_jpeg_decoder d;
    ct_status status = ct_jpeg_open(&d, input, limits, NULL, 0, error);
    if (status == CT_OK) status = ct_jpeg_read_header(&d, limits, NULL, error);
    if (status == CT_OK) *info = d.info;
    ct_jpeg_close(&d);
    return status;
}

ct_status ct_jpeg_decode(ct_input *input, const ct_decode_options *options, ct_thumbnail *thumbnail,
                         ct_error *error) {
    ct_jpeg_decoder d;
    ct_status status = ct_jpeg_open(&d, input, &options->limits, options->cancel, options->convert_to_srgb, error);
    if (status == CT_OK) status = ct_jpeg_read_header(&d, &options->limits, options, error);
    if (status == CT_OK && ct_jpeg_may_decode_dc(&d, options)) {
        int fell_back;
        status = ct_jpeg_decode_dc(&d, &fell_back, error);
        if (status == CT_OK && !fell_back) d.path = CT_JPEG_PATH_DC_ONLY;
        else if (status == CT_OK) status = ct_jpeg_start_over(&d, options, error);
    }
    if (status == CT_OK && d.path != CT_JPEG_PATH_DC_ONLY) status = ct_jpeg_decode_with_libjpeg(&d, options, error);
    ct_color_report color;
    memset(&color, 0, sizeof color);
    if (status == CT_OK) ct_jpeg_manage_color(&d, &color);
    uint8_t scale = (uint8_t)d.cinfo.scale_num;
    ct_jpeg_path path = d.path;
    ct_jpeg_close(&d);

    uint32_t width = d.thumb_width, height = d.thumb_height;
    if (status == CT_OK) status = ct_finish_orientation(&d.alloc, &d.pixels, &width, &height, d.orientation, error);
    if (status != CT_OK) {
        free(d.pixels);
        return status;
    }
    thumbnail->pixels = d.pixels;
    thumbnail->width = width;
    thumbnail->height = height;
    thumbnail->source = d.info;
    thumbnail->scale_numerator = scale;
    thumbnail->jpeg_path = path;
    thumbnail->color = color;
    thumbnail->peak_bytes = d.alloc.peak;
    memcpy(thumbnail->damage, d.damage, sizeof thumbnail->damage);
    return CT_OK;
}
