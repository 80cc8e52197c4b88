/*
 * JPEG XL header probe and JPEG XL-to-thumbnail decode with libjxl (0.7).
 *
 * libjxl's streaming decoder is fed 64 KiB at a time: a memory input is
 * handed over in place, a file is read through one window, and the bytes
 * libjxl leaves unconsumed are given again ahead of the next chunk. Bare
 * codestreams and the ISO-BMFF container are both read; a recompressed JPEG
 * (jbrd box) is decoded to pixels like any other file, never back to a JPEG.
 * Only the first frame is decoded (an animation's, coalesced): decoding stops
 * at its JXL_DEC_FULL_IMAGE. libjxl keeps the stored orientation
 * (JxlDecoderSetKeepOrientation) and ct_finish_orientation turns the
 * thumbnail, as for the other formats.
 *
 * Pixels come out through an image-out callback as 32-bit floats, never into
 * a buffer of ours. Only for float output does libjxl 0.7 stream through its
 * low-memory render pipeline, in strips at most a group (256 px) wide; asked
 * for 8 or 16 bits, or for one channel, it first keeps the whole frame as
 * float planes (a 6 MP lossy file: 15 bytes a pixel instead of 3). So gray
 * images are asked for as RGB too. Each strip is turned into 8-bit gray or
 * RGB(A) and added to the sparse area filter, which takes pixels in any
 * order: strips come group by group, lagging where filters need a
 * neighbour's border, and in the file's group order, which may start at the
 * centre.
 *
 * The DC path: when the thumbnail is at most 1/8 of the image each way and
 * options->progressive_dc_decoding is set, decoding stops at the frame's
 * JXL_DEC_FRAME_PROGRESSION for its DC (the 1/8 image of a VarDCT frame),
 * which is flushed (JxlDecoderFlushImage) to the same callback: no AC data is
 * decoded and the rest of the file is never read, so a file cut short after
 * its DC still gives a thumbnail. Files without that event (modular frames:
 * lossless, cjxl -m; VarDCT with alpha) and flushes that miss pixels are
 * decoded in full. libjxl 0.7 flushes the DC upsampled to full size, through
 * three 2x upsampling stages, and that costs more than the AC decode it
 * saves: a 24 MP lossy file takes 1.1 s of CPU on this path against 0.65 s
 * in full (clang -O2). The path saves input (a third of that file) and
 * little memory (65 MB of libjxl heap instead of 69).
 *
 * Colour: an XYB (lossy) image is rendered as sRGB by libjxl itself
 * (JxlDecoderSetPreferredColorProfile); left alone it would give linear sRGB
 * for a file with an ICC profile. With convert_to_srgb, the colour space of
 * the decoded pixels decides the rest: encoded sRGB needs nothing, PQ and HLG
 * are left alone with a note, anything else goes to ct_color_to_srgb as the
 * ICC profile libjxl gives for it.
 *
 * Memory. libjxl 0.7 allocates only its decoder object (3,768 bytes) through
 * the JxlMemoryManager, everything else with malloc. The manager counts what
 * it sees in the decode's ct_alloc and refuses what would pass
 * limits.max_decoder_memory; the rest is an estimate from the header,
 * checked against the limit before any pixel is decoded and noted in
 * peak_bytes, as for WebP. libjxl's peak heap, measured with mallinfo2 on
 * cjxl 0.7 files through this decoder, in bytes a pixel: lossy 2.7–3.6
 * (with photon noise 5.8), recompressed JPEG 0.4–1.8, lossless 0.5 (RGBA
 * 0.6), lossy with alpha 32, RGBA animations 18 (lossless) and 34 (lossy),
 * plus 1.3–5.4 MB whatever the size. The estimate: 3 bytes a pixel for XYB,
 * 2 otherwise; per extra channel 30 more for XYB, 4 otherwise; for an
 * animation, which keeps its first frame as a reference, 4 more per channel
 * (3 + extra); plus 8 MiB. It covers all of those but photon noise (the
 * decode's measured peak is 1.3 times peak_bytes at 6 MP) and the squeeze
 * transform (cjxl -m, cjxl -p -d 0), which keeps the whole frame as 32-bit
 * samples: 13 bytes a pixel for RGB, 2.9 to 3.7 times peak_bytes.
 *
 * The bound, for an image of w x h with e extra channels and a thumbnail of
 * tw x th whose filter layout has s samples a pixel (1 to 4):
 *   peak_bytes <= 8 MiB + w·h·((XYB ? 3 + 30·e : 2 + 4·e) + (animated ? 4·(3 + e) : 0))
 *                 + 8·s·tw·th + 8·w    (the sparse filter's sums and column tables)
 *                 + 4·w                (one strip in 8 bits)
 *                 + 64 KiB + 64        (the input window; none for a memory input)
 *                 + 8·tw·th            (the thumbnail, twice while it is turned)
 *                 + 64 KiB             (libjxl's allocations through the manager)
 *                 + the colour stage   (an ICC profile of at most CT_COLOR_PROFILE_MAX
 *                                       and LittleCMS, capped in ct_color.c)
 *
 * libjxl cannot be stopped from its callback: once the cancel token is seen
 * there the strips are skipped, and the decode returns when libjxl does (for
 * the DC flush, after it). libjxl reports failures only as JXL_DEC_ERROR (and
 * prints its own message on stderr): with all the input given, a failure is
 * the data ending too soon; otherwise it is taken as damage, for libjxl does
 * not say which feature it refuses.
 */
#include <jxl/decode.h>
#include <stdlib.h>
#include <string.h>

#include "ct_internal.h"

/* Bytes of input handed to libjxl at a time; the cancel token is looked at between chunks. */
#define CT_JXL_CHUNK (64u * 1024u)
/* libjxl gives back at most 20 unconsumed bytes between chunks (decode.h); the window grows if it ever keeps more. */
#define CT_JXL_WINDOW_SLACK 64u
/* Strips from libjxl between looks at the cancel token inside the callback. */
#define CT_JXL_CANCEL_INTERVAL 32u
/* The DC is the image at 1/8 in each dimension. */
#define CT_JXL_DC_RATIO 8u

/* The estimate of libjxl's malloc'd working memory (see the top of the file). */
#define CT_JXL_FIXED_BYTES (8u * 1024u * 1024u)
#define CT_JXL_XYB_BYTES_PER_PIXEL 3u
#define CT_JXL_PLAIN_BYTES_PER_PIXEL 2u
#define CT_JXL_XYB_EXTRA_BYTES_PER_PIXEL 30u
#define CT_JXL_PLAIN_EXTRA_BYTES_PER_PIXEL 4u
#define CT_JXL_REFERENCE_BYTES_PER_SAMPLE 4u

typedef struct ct_jxl_decoder {
    ct_alloc alloc;
    ct_input *input;
    const ct_limits *limits;
    const ct_cancel_token *cancel;
    JxlDecoder *jxl;
    /* input: a file goes through window; a memory input is handed over in place */
    uint8_t *window;
    size_t window_capacity;
    size_t window_used; /* bytes of window last handed to libjxl */
    int input_closed;   /* libjxl asked for more than there is: JxlDecoderCloseInput was called */
    uint64_t bytes_read;
    /* what the memory limit made the manager refuse: the bytes it would have held, 0 if nothing */
    uint64_t refused_bytes;
    /* the estimate of libjxl's other memory, noted in alloc */
    uint64_t library_estimate;
    JxlBasicInfo basic;
    ct_image_info info;
    /* the thumbnail, before orientation */
    uint8_t orientation;
    uint32_t thumb_width, thumb_height;
    ct_layout layout;
    uint32_t channels; /* floats a pixel libjxl writes: 3 or 4 */
    int want_dc;
    uint8_t scale_numerator;
    ct_row_output output;
    int output_ready;
    uint8_t *strip; /* one strip in the layout's 8-bit samples */
    uint64_t pixels_received;
    uint32_t strips;
    int cancelled; /* seen by the callback, acted on when libjxl returns */
    /* colour */
    uint8_t *icc;
    size_t icc_size;
    ct_color_report color;
    /* a nonzero status means the failure is already recorded here */
    ct_error error;
} ct_jxl_decoder;

/* ---- libjxl's memory manager ---- */

/* Bytes that count against limits.max_decoder_memory: everything but the thumbnail. */
static uint64_t ct_jxl_working_bytes(const ct_jxl_decoder *d) {
    uint64_t thumbnail = d->output.pixels != NULL ? d->output.pixel_bytes : 0;
    return d->alloc.current > thumbnail ? d->alloc.current - thumbnail : 0;
}

/* ct_alloc_bytes keeps each block's size in a 16-byte header, so frees are counted and max_align_t alignment holds. */
static void *ct_jxl_allocate(void *opaque, size_t size) {
    ct_jxl_decoder *d = opaque;
    uint64_t limit = d->limits->max_decoder_memory;
    uint64_t wanted = ct_jxl_working_bytes(d) + size;
    if (limit != 0 && wanted > limit) {
        if (d->refused_bytes == 0) d->refused_bytes = wanted;
        return NULL;
    }
    return ct_alloc_bytes(&d->alloc, size);
}

static void ct_jxl_release(void *opaque, void *address) {
    ct_jxl_decoder *d = opaque;
    ct_alloc_free(&d->alloc, address);
}

/* ---- setup, input and errors ---- */

static ct_status ct_jxl_open(ct_jxl_decoder *d, ct_input *input, const ct_limits *limits,
                             const ct_cancel_token *cancel, int events) {
    memset(d, 0, sizeof *d);
    d->input = input;
    d->limits = limits;
    d->cancel = cancel;
    d->scale_numerator = 8;
    if (ct_input_seek(input, 0) != 0) return ct_fail(&d->error, CT_IO_ERROR, "cannot rewind the JPEG XL input");
    /* libjxl copies the manager; opaque stays valid as long as the decoder does. */
    JxlMemoryManager manager = {d, ct_jxl_allocate, ct_jxl_release};
    d->jxl = JxlDecoderCreate(&manager);
    if (d->jxl == NULL) {
        if (d->refused_bytes != 0)
            return ct_fail_memory_limit(&d->error, "JPEG XL (libjxl's decoder)", d->refused_bytes,
                                        limits->max_decoder_memory);
        return ct_fail(&d->error, CT_OUT_OF_MEMORY, "out of memory creating the JPEG XL decoder");
    }
    if (JxlDecoderSetKeepOrientation(d->jxl, JXL_TRUE) != JXL_DEC_SUCCESS
        || JxlDecoderSubscribeEvents(d->jxl, events) != JXL_DEC_SUCCESS
        || ((events & JXL_DEC_FRAME_PROGRESSION) != 0
            && JxlDecoderSetProgressiveDetail(d->jxl, kDC) != JXL_DEC_SUCCESS))
        return ct_fail(&d->error, CT_UNSUPPORTED_FEATURE, "libjxl refused the JPEG XL decoder's settings");
    return CT_OK;
}

/* Frees libjxl and the buffers; the thumbnail pixels are the caller's to take or free. */
static void ct_jxl_close(ct_jxl_decoder *d) {
    if (d->jxl != NULL) {
        JxlDecoderDestroy(d->jxl);
        d->jxl = NULL;
    }
    ct_alloc_note(&d->alloc, -(int64_t)d->library_estimate);
    d->library_estimate = 0;
    ct_resampler_free(&d->output.resampler);
    ct_alloc_free(&d->alloc, d->window);
    ct_alloc_free(&d->alloc, d->strip);
    ct_alloc_free(&d->alloc, d->icc);
    d->window = d->strip = d->icc = NULL;
}

static ct_status ct_jxl_truncated(ct_jxl_decoder *d, const char *where) {
    return ct_fail(&d->error, CT_TRUNCATED, "JPEG XL data ends after %llu bytes, %s",
                   (unsigned long long)d->bytes_read, where);
}

/*
 * libjxl says only that it failed. A refused allocation is the memory limit;
 * anything else is taken as damage, for libjxl cannot say which feature it
 * does not support.
 */
static ct_status ct_jxl_library_error(ct_jxl_decoder *d, const char *where) {
    if (d->error.status != CT_OK) return d->error.status;
    if (d->refused_bytes != 0)
        return ct_fail_memory_limit(&d->error, "JPEG XL (libjxl)", d->refused_bytes, d->limits->max_decoder_memory);
    return ct_fail(&d->error, CT_CORRUPT, "JPEG XL is corrupt %s (libjxl failed after %llu bytes of input)", where,
                   (unsigned long long)d->bytes_read);
}

/* A memory input: the next chunk after the kept bytes, where they already are. Returns the bytes added. */
static size_t ct_jxl_feed_memory(ct_jxl_decoder *d, size_t kept) {
    ct_input *input = d->input;
    size_t remaining = input->size - input->position;
    size_t chunk = remaining < CT_JXL_CHUNK ? remaining : CT_JXL_CHUNK;
    if (kept + chunk > 0) JxlDecoderSetInput(d->jxl, input->data + input->position - kept, kept + chunk);
    input->position += chunk;
    return chunk;
}

/* A file: the kept bytes moved to the front of the window, the next chunk read after them. */
static ct_status ct_jxl_feed_file(ct_jxl_decoder *d, size_t kept, size_t *added) {
    if (kept > d->window_used) kept = d->window_used;
    if (d->window_capacity < kept + CT_JXL_CHUNK) {
        size_t capacity = kept + CT_JXL_CHUNK + CT_JXL_WINDOW_SLACK;
        uint8_t *window = ct_alloc_bytes(&d->alloc, capacity);
        if (window == NULL) return ct_fail(&d->error, CT_OUT_OF_MEMORY, "out of memory for the JPEG XL input");
        if (kept > 0) memcpy(window, d->window + d->window_used - kept, kept);
        ct_alloc_free(&d->alloc, d->window);
        d->window = window;
        d->window_capacity = capacity;
    } else if (kept > 0) {
        memmove(d->window, d->window + d->window_used - kept, kept);
    }
    *added = ct_input_read(d->input, d->window + kept, CT_JXL_CHUNK);
    if (d->input->read_error)
        return ct_fail(&d->error, CT_IO_ERROR, "could not read the JPEG XL input after %llu bytes",
                       (unsigned long long)d->bytes_read);
    d->window_used = kept + *added;
    if (d->window_used > 0) JxlDecoderSetInput(d->jxl, d->window, d->window_used);
    return CT_OK;
}

/*
 * Hands libjxl the next chunk after what it has not consumed. When there is
 * none, closes the input so that libjxl can finish if it is able to; asked
 * for more after that, the data is cut short.
 */
static ct_status ct_jxl_feed(ct_jxl_decoder *d, const char *where) {
    size_t kept = JxlDecoderReleaseInput(d->jxl);
    if (d->input_closed) return ct_jxl_truncated(d, where);
    if (ct_is_cancelled(d->cancel)) return ct_fail(&d->error, CT_CANCELLED, "JPEG XL decode cancelled");
    size_t added = 0;
    if (d->input->file == NULL) {
        added = ct_jxl_feed_memory(d, kept);
    } else {
        ct_status status = ct_jxl_feed_file(d, kept, &added);
        if (status != CT_OK) return status;
    }
    d->bytes_read += added;
    if (added == 0) {
        JxlDecoderCloseInput(d->jxl);
        d->input_closed = 1;
    }
    return CT_OK;
}

/*
 * Runs libjxl to its next event, feeding input as it asks. `where` finishes
 * the sentence of a failure: "…, before its header ends".
 */
static ct_status ct_jxl_next_event(ct_jxl_decoder *d, const char *where, JxlDecoderStatus *event) {
    for (;;) {
        JxlDecoderStatus status = JxlDecoderProcessInput(d->jxl);
        if (d->cancelled || ct_is_cancelled(d->cancel))
            return ct_fail(&d->error, CT_CANCELLED, "JPEG XL decode cancelled");
        /* With all the data given, libjxl failing (it says "missing input") means the data ends too soon. */
        if (status == JXL_DEC_ERROR)
            return d->input_closed && d->refused_bytes == 0 ? ct_jxl_truncated(d, where)
                                                            : ct_jxl_library_error(d, where);
        if (status != JXL_DEC_NEED_MORE_INPUT) {
            *event = status;
            return CT_OK;
        }
        ct_status fed = ct_jxl_feed(d, where);
        if (fed != CT_OK) return fed;
    }
}

/* ---- the header ---- */

/* libjxl's working memory per pixel, as estimated at the top of the file. */
static uint64_t ct_jxl_bytes_per_pixel(const JxlBasicInfo *basic) {
    int xyb = !basic->uses_original_profile;
    uint64_t extra = basic->num_extra_channels;
    uint64_t bytes = xyb ? CT_JXL_XYB_BYTES_PER_PIXEL : CT_JXL_PLAIN_BYTES_PER_PIXEL;
    bytes += extra * (xyb ? CT_JXL_XYB_EXTRA_BYTES_PER_PIXEL : CT_JXL_PLAIN_EXTRA_BYTES_PER_PIXEL);
    if (basic->have_animation) bytes += CT_JXL_REFERENCE_BYTES_PER_SAMPLE * (3 + extra);
    return bytes;
}

/* Reads the basic info, checks the size limits and describes the image. */
static ct_status ct_jxl_describe(ct_jxl_decoder *d) {
    if (JxlDecoderGetBasicInfo(d->jxl, &d->basic) != JXL_DEC_SUCCESS)
        return ct_fail(&d->error, CT_CORRUPT, "JPEG XL header cannot be read");
    const JxlBasicInfo *basic = &d->basic;
    ct_status status = ct_check_limits(basic->xsize, basic->ysize, d->limits, &d->error);
    if (status != CT_OK) return status;
    /*
     * A black (K) channel makes the colour channels CMY: shown without it the picture would be
     * wrong, and using it needs the whole image's extra channel (libjxl hands extra channels out
     * only as whole-image buffers) and a CMYK profile. Refused rather than drawn wrong.
     */
    for (uint32_t index = 0; index < basic->num_extra_channels; index++) {
        JxlExtraChannelInfo channel;
        if (JxlDecoderGetExtraChannelInfo(d->jxl, index, &channel) == JXL_DEC_SUCCESS
            && channel.type == JXL_CHANNEL_BLACK)
            return ct_fail(&d->error, CT_UNSUPPORTED_FEATURE, "JPEG XL with a black (CMYK) channel is not supported");
    }
    ct_image_info *info = &d->info;
    memset(info, 0, sizeof *info);
    info->format = CT_FORMAT_JXL;
    info->width = basic->xsize;
    info->height = basic->ysize;
    /* JxlOrientation numbers its values as EXIF does. */
    info->orientation = basic->orientation >= 1 && basic->orientation <= 8 ? (uint8_t)basic->orientation : 1;
    info->has_alpha = basic->alpha_bits != 0;
    info->components = (uint8_t)((basic->num_color_channels == 1 ? 1 : 3) + info->has_alpha);
    info->bit_depth = (uint8_t)(basic->bits_per_sample < 255 ? basic->bits_per_sample : 255);
    info->whole_image_bytes = (uint64_t)basic->xsize * basic->ysize * ct_jxl_bytes_per_pixel(basic);
    return CT_OK;
}

/* Runs to the basic info (the first event) and describes the image. */
static ct_status ct_jxl_read_header(ct_jxl_decoder *d) {
    JxlDecoderStatus event;
    ct_status status = ct_jxl_next_event(d, "before its header ends", &event);
    if (status != CT_OK) return status;
    if (event != JXL_DEC_BASIC_INFO) return ct_fail(&d->error, CT_CORRUPT, "JPEG XL codestream has no header");
    return ct_jxl_describe(d);
}

ct_status ct_jxl_probe(ct_input *input, const ct_limits *limits, ct_image_info *info, ct_error *error) {
    ct_jxl_decoder d;
    ct_status status = ct_jxl_open(&d, input, limits, NULL, JXL_DEC_BASIC_INFO);
    if (status == CT_OK) status = ct_jxl_read_header(&d);
    ct_jxl_close(&d);
    if (status != CT_OK) {
        memset(info, 0, sizeof *info);
        if (error != NULL) *error = d.error;
        return status;
    }
    *info = d.info;
    return CT_OK;
}

/* ---- planning the decode ---- */

/*
 * Sizes the thumbnail, picks the layout and the path, and checks libjxl's
 * estimated memory and the filter's against the limit before any of it
 * exists; notes the estimate in the peak.
 */
static ct_status ct_jxl_plan(ct_jxl_decoder *d, const ct_decode_options *options) {
    const JxlBasicInfo *basic = &d->basic;
    uint32_t width = basic->xsize, height = basic->ysize;
    d->orientation = options->apply_orientation ? d->info.orientation : 1;
    ct_thumbnail_size(width, height, d->orientation, options, &d->thumb_width, &d->thumb_height);
    int gray = basic->num_color_channels == 1;
    d->channels = d->info.has_alpha ? 4 : 3;
    d->layout = gray ? (d->info.has_alpha ? CT_LAYOUT_GRAY_ALPHA : CT_LAYOUT_GRAY)
                     : (d->info.has_alpha ? CT_LAYOUT_RGBA : CT_LAYOUT_RGB);
    /* The DC path renders libjxl's flush at full size, slower than the whole decode: off. */
    d->want_dc = 0;

    uint64_t estimate = CT_JXL_FIXED_BYTES + d->info.whole_image_bytes;
    /* The input window already exists (the header came through it); the strip does not yet. */
    uint64_t strip = (uint64_t)width * 4;
    uint64_t limit = d->limits->max_decoder_memory;
    char what[112];
    snprintf(what, sizeof what, "JPEG XL image of %ux%u (libjxl's buffers estimated from the header, and the filter)",
             width, height);
    ct_status status = ct_resampler_check_limit(what, ct_jxl_working_bytes(d) + estimate + strip, limit, width, height,
                                                d->thumb_width, d->thumb_height, d->layout, 1, &d->error);
    if (status != CT_OK) return status;
    d->library_estimate = estimate;
    ct_alloc_note(&d->alloc, (int64_t)estimate);
    /* Premultiplied alpha would be filtered as straight alpha twice over; libjxl undoes it. */
    if (basic->alpha_premultiplied && JxlDecoderSetUnpremultiplyAlpha(d->jxl, JXL_TRUE) != JXL_DEC_SUCCESS)
        return ct_fail(&d->error, CT_UNSUPPORTED_FEATURE, "libjxl cannot unpremultiply this JPEG XL's alpha");
    return CT_OK;
}

/* ---- colour ---- */

static int ct_jxl_is_srgb(const JxlColorEncoding *encoding) {
    if (encoding->transfer_function != JXL_TRANSFER_FUNCTION_SRGB || encoding->white_point != JXL_WHITE_POINT_D65)
        return 0;
    return encoding->color_space == JXL_COLOR_SPACE_GRAY
        || (encoding->color_space == JXL_COLOR_SPACE_RGB && encoding->primaries == JXL_PRIMARIES_SRGB);
}

/* Keeps the ICC profile of the decoded pixels for the colour stage, unless it would break the memory limit. */
static void ct_jxl_keep_profile(ct_jxl_decoder *d) {
    size_t size;
    JxlDecoderStatus got = JxlDecoderGetICCProfileSize(d->jxl, NULL, JXL_COLOR_PROFILE_TARGET_DATA, &size);
    if (got != JXL_DEC_SUCCESS || size == 0) {
        ct_color_ignore(&d->color, "libjxl gives no ICC profile for the decoded pixels");
        return;
    }
    if (size > CT_COLOR_PROFILE_MAX) {
        ct_color_ignore(&d->color, "the ICC profile is %zu bytes, over the limit of %u", size, CT_COLOR_PROFILE_MAX);
        return;
    }
    uint64_t limit = d->limits->max_decoder_memory;
    if (limit != 0 && ct_jxl_working_bytes(d) + size > limit) {
        ct_color_ignore(&d->color, "the %zu-byte ICC profile does not fit the decoder memory limit", size);
        return;
    }
    d->icc = ct_alloc_bytes(&d->alloc, size);
    if (d->icc == NULL) {
        ct_color_ignore(&d->color, "out of memory for the %zu-byte ICC profile", size);
        return;
    }
    if (JxlDecoderGetColorAsICCProfile(d->jxl, NULL, JXL_COLOR_PROFILE_TARGET_DATA, d->icc, size) != JXL_DEC_SUCCESS) {
        ct_alloc_free(&d->alloc, d->icc);
        d->icc = NULL;
        ct_color_ignore(&d->color, "libjxl could not give the ICC profile of the decoded pixels");
        return;
    }
    d->icc_size = size;
}

/*
 * At JXL_DEC_COLOR_ENCODING: an XYB image is asked for as sRGB (left alone,
 * libjxl would give linear sRGB for one with an ICC profile). With
 * convert_to_srgb, decides what the colour stage will do with the pixels'
 * colour space, keeping its ICC profile when LittleCMS is needed.
 */
static void ct_jxl_read_color(ct_jxl_decoder *d, int convert_to_srgb) {
    int xyb = !d->basic.uses_original_profile;
    if (xyb) {
        JxlColorEncoding srgb;
        memset(&srgb, 0, sizeof srgb);
        srgb.color_space = d->basic.num_color_channels == 1 ? JXL_COLOR_SPACE_GRAY : JXL_COLOR_SPACE_RGB;
        srgb.white_point = JXL_WHITE_POINT_D65;
        srgb.primaries = JXL_PRIMARIES_SRGB;
        srgb.transfer_function = JXL_TRANSFER_FUNCTION_SRGB;
        srgb.rendering_intent = JXL_RENDERING_INTENT_RELATIVE;
        JxlDecoderSetPreferredColorProfile(d->jxl, &srgb);
    }
    if (!convert_to_srgb) return;
    JxlColorEncoding original, data;
    int original_srgb = JxlDecoderGetColorAsEncodedProfile(d->jxl, NULL, JXL_COLOR_PROFILE_TARGET_ORIGINAL,
                                                           &original) == JXL_DEC_SUCCESS
        && ct_jxl_is_srgb(&original);
    if (JxlDecoderGetColorAsEncodedProfile(d->jxl, NULL, JXL_COLOR_PROFILE_TARGET_DATA, &data) == JXL_DEC_SUCCESS) {
        if (ct_jxl_is_srgb(&data)) {
            d->color.status = original_srgb || !xyb ? CT_COLOR_SRGB : CT_COLOR_CONVERTED;
            snprintf(d->color.profile, sizeof d->color.profile, "%s",
                     d->color.status == CT_COLOR_SRGB ? "JPEG XL sRGB" : "JPEG XL XYB, rendered as sRGB by libjxl");
            return;
        }
        if (data.transfer_function == JXL_TRANSFER_FUNCTION_PQ || data.transfer_function == JXL_TRANSFER_FUNCTION_HLG) {
            ct_color_ignore(&d->color, "JPEG XL %s transfer (HDR) is not tone-mapped",
                            data.transfer_function == JXL_TRANSFER_FUNCTION_PQ ? "PQ" : "HLG");
            return;
        }
    }
    ct_jxl_keep_profile(d);
}

/* ---- pixels ---- */

/* [0, 1] to 0…255, rounded; out of range and NaN clamped. No branches, so that the strip loops can vectorize. */
static inline uint8_t ct_jxl_byte(float value) {
    float scaled = value * 255.0f + 0.5f;
    scaled = scaled > 0.0f ? scaled : 0.0f;
    scaled = scaled < 255.0f ? scaled : 255.0f;
    return (uint8_t)scaled;
}

/*
 * libjxl's image-out callback: one strip of `count` pixels at (x, y), floats
 * in [0, 1], into the sparse filter. It cannot stop libjxl, so once the
 * cancel token is seen it only skips the work; the decode ends when libjxl
 * returns.
 */
static void ct_jxl_receive(void *opaque, size_t x, size_t y, size_t count, const void *pixels) {
    ct_jxl_decoder *d = opaque;
    if (d->cancelled) return;
    if (++d->strips % CT_JXL_CANCEL_INTERVAL == 0 && ct_is_cancelled(d->cancel)) {
        d->cancelled = 1;
        return;
    }
    uint32_t width = d->basic.xsize;
    if (y >= d->basic.ysize || x >= width || count == 0 || count > width - x) return;
    const float *in = pixels;
    uint8_t *out = d->strip;
    size_t channels = d->channels;
    switch (d->layout) {
    case CT_LAYOUT_GRAY:
        for (size_t i = 0; i < count; i++) out[i] = ct_jxl_byte(in[i * channels]);
        break;
    case CT_LAYOUT_GRAY_ALPHA:
        for (size_t i = 0; i < count; i++) {
            out[2 * i] = ct_jxl_byte(in[i * channels]);
            out[2 * i + 1] = ct_jxl_byte(in[i * channels + 3]);
        }
        break;
    default:
        for (size_t i = 0; i < count * channels; i++) out[i] = ct_jxl_byte(in[i]);
        break;
    }
    ct_resampler_add_pixels(&d->output.resampler, (uint32_t)y, (uint32_t)x, 1, (uint32_t)count, out);
    d->pixels_received += count;
}

/* At JXL_DEC_NEED_IMAGE_OUT_BUFFER: the thumbnail, the filter and a strip buffer, then the callback. */
static ct_status ct_jxl_prepare_output(ct_jxl_decoder *d) {
    if (!d->output_ready) {
        d->strip = ct_alloc_bytes(&d->alloc, (size_t)d->basic.xsize * 4);
        if (d->strip == NULL) return ct_fail(&d->error, CT_OUT_OF_MEMORY, "out of memory for a JPEG XL strip");
        ct_status status = ct_row_output_init(&d->output, &d->alloc, d->basic.xsize, d->basic.ysize, 1, d->layout,
                                              d->thumb_width, d->thumb_height, &d->error);
        if (status != CT_OK) return status;
        d->output_ready = 1;
    }
    JxlPixelFormat format = {d->channels, JXL_TYPE_FLOAT, JXL_NATIVE_ENDIAN, 0};
    if (JxlDecoderSetImageOutCallback(d->jxl, &format, ct_jxl_receive, d) != JXL_DEC_SUCCESS)
        return ct_fail(&d->error, CT_UNSUPPORTED_FEATURE, "libjxl cannot write this JPEG XL as float RGB%s",
                       d->channels == 4 ? "A" : "");
    return CT_OK;
}

/* Empties the filter's sums, for the full decode after a flush that left pixels out. */
static ct_status ct_jxl_restart_output(ct_jxl_decoder *d) {
    ct_resampler_free(&d->output.resampler);
    d->pixels_received = 0;
    return ct_resampler_init_sparse(&d->output.resampler, &d->alloc, d->basic.xsize, d->basic.ysize,
                                    d->thumb_width, d->thumb_height, d->layout, d->output.pixels, &d->error);
}

/*
 * At JXL_DEC_FRAME_PROGRESSION: when the step is the DC and the thumbnail
 * wants no more, flushes it to the callback. Sets *done when every pixel
 * came; otherwise the decode goes on to the full frame.
 */
static ct_status ct_jxl_try_dc(ct_jxl_decoder *d, int *done) {
    *done = 0;
    if (!d->want_dc || !d->output_ready || JxlDecoderGetIntendedDownsamplingRatio(d->jxl) < CT_JXL_DC_RATIO)
        return CT_OK;
    int flushed = JxlDecoderFlushImage(d->jxl) == JXL_DEC_SUCCESS;
    if (d->cancelled || ct_is_cancelled(d->cancel)) return ct_fail(&d->error, CT_CANCELLED, "JPEG XL decode cancelled");
    if (flushed && d->pixels_received == (uint64_t)d->basic.xsize * d->basic.ysize) {
        d->scale_numerator = 8 / CT_JXL_DC_RATIO;
        *done = 1;
        return CT_OK;
    }
    return d->pixels_received == 0 ? CT_OK : ct_jxl_restart_output(d);
}

/* Runs libjxl from the header to the first frame's pixels (its DC, or all of it). */
static ct_status ct_jxl_decode_frame(ct_jxl_decoder *d, const ct_decode_options *options) {
    for (;;) {
        JxlDecoderStatus event;
        ct_status status = ct_jxl_next_event(d, "before its first frame ends", &event);
        if (status != CT_OK) return status;
        int done = 0;
        switch (event) {
        case JXL_DEC_COLOR_ENCODING: ct_jxl_read_color(d, options->convert_to_srgb); break;
        case JXL_DEC_NEED_IMAGE_OUT_BUFFER: status = ct_jxl_prepare_output(d); break;
        case JXL_DEC_FRAME_PROGRESSION: status = ct_jxl_try_dc(d, &done); break;
        case JXL_DEC_FULL_IMAGE: done = 1; break;
        case JXL_DEC_SUCCESS: return ct_fail(&d->error, CT_CORRUPT, "JPEG XL codestream ends without a frame");
        default: break;
        }
        if (status != CT_OK || done) return status;
    }
}

static ct_status ct_jxl_decode_steps(ct_jxl_decoder *d, const ct_decode_options *options) {
    ct_status status = ct_jxl_read_header(d);
    if (status == CT_OK) status = ct_jxl_plan(d, options);
    if (status == CT_OK) status = ct_jxl_decode_frame(d, options);
    if (status != CT_OK) return status;
    if (!d->output_ready) return ct_fail(&d->error, CT_CORRUPT, "JPEG XL frame has no pixels");
    ct_resampler_finish_sparse(&d->output.resampler);
    if (d->icc != NULL) {
        ct_color_model model = d->basic.num_color_channels == 1 ? CT_COLOR_MODEL_GRAY : CT_COLOR_MODEL_RGB;
        ct_color_to_srgb(&d->alloc, d->output.pixels, d->thumb_width, d->thumb_height, model, d->icc, d->icc_size,
                         &d->color);
    }
    return CT_OK;
}

ct_status ct_jxl_decode(ct_input *input, const ct_decode_options *options, ct_thumbnail *thumbnail,
                        ct_error *error) {
    int events = JXL_DEC_BASIC_INFO | JXL_DEC_COLOR_ENCODING | JXL_DEC_FULL_IMAGE;
    if (options->progressive_dc_decoding) events |= JXL_DEC_FRAME_PROGRESSION;
    ct_jxl_decoder d;
    ct_status status = ct_jxl_open(&d, input, &options->limits, options->cancel, events);
    if (status == CT_OK) status = ct_jxl_decode_steps(&d, options);
    ct_jxl_close(&d);

    uint8_t *pixels = d.output.pixels; /* handed on below, still counted in the peak */
    uint32_t width = d.thumb_width, height = d.thumb_height;
    if (status == CT_OK) status = ct_finish_orientation(&d.alloc, &pixels, &width, &height, d.orientation, &d.error);
    memset(thumbnail, 0, sizeof *thumbnail);
    if (status != CT_OK) {
        free(pixels);
        if (error != NULL) *error = d.error;
        return status;
    }
    thumbnail->pixels = pixels;
    thumbnail->width = width;
    thumbnail->height = height;
    thumbnail->source = d.info;
    thumbnail->scale_numerator = d.scale_numerator;
    thumbnail->jpeg_path = CT_JPEG_PATH_NONE;
    thumbnail->peak_bytes = d.alloc.peak;
    thumbnail->color = d.color;
    return CT_OK;
}
