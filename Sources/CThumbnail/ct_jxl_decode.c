/*
 * JPEG XL header probe and JPEG XL-to-thumbnail decode with libjxl (0.7).
 *
 * libjxl's streaming decoder is fed 64 KiB at a time: a memory input is
 * handed over in place, a file is read through one window, and the bytes
 * libjxl leaves unconsumed are given again ahead of the next chunk. Bare
 * codestreams and the ISO-BMFF container are both read; a recompressed JPEG
 * (jbrd box) is decoded to pixels like any other file, never back to a JPEG.
 * Only the first frame is decoded (an animation's, coalesced): decoding stops
 * at its JXL_DEC_FULL_IMAGE, so a file cut anywhere before that end fails
 * with CT_TRUNCATED. libjxl keeps the stored orientation
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
 * There is no reduced-resolution path: every frame is decoded in full and
 * scale_numerator is always 8. Two were tried with libjxl 0.7 and measured
 * worse than the full decode. Stopping at the DC
 * (JxlDecoderSetProgressiveDetail(kDC), JxlDecoderFlushImage at the DC's
 * JXL_DEC_FRAME_PROGRESSION) took 0.95 s of CPU against 0.59 s for the full
 * decode of a 24 MP lossy file (clang -O2, medians of five): libjxl 0.7
 * renders a flush only at full resolution (the 1/8 DC upsampled through
 * three 2x stages) and has no way to render at a reduced one. The event
 * never came for lossy files with alpha or for modular ones, and a file cut
 * after its DC gave a thumbnail instead of CT_TRUNCATED. Reconstructing a
 * recompressed JPEG (jbrd) and decoding that at 1/8 took 0.9 s and 165 MB
 * of RSS, more than the pixel decode (0.44 s for 24 MP).
 *
 * Colour: an XYB (lossy) image is rendered as sRGB by libjxl itself
 * (JxlDecoderSetPreferredColorProfile); left alone it would give linear sRGB
 * for a file with an ICC profile. With convert_to_srgb, the colour space of
 * the decoded pixels decides the rest: encoded sRGB needs nothing, PQ and HLG
 * are left alone with a note, anything else goes to ct_color_to_srgb as the
 * ICC profile libjxl gives for it, once libjxl is destroyed.
 *
 * Memory. libjxl 0.7 allocates only its decoder object (3,768 bytes) through
 * the JxlMemoryManager, everything else with malloc, and it aborts the
 * process when malloc fails. The manager counts what it sees in the decode's
 * ct_alloc and refuses what would pass limits.max_jxl_decoder_memory (in
 * place of max_decoder_memory for JPEG XL); the rest
 * is an estimate from the header, checked with the filter's memory against
 * the limit before any pixel is decoded (ct_fail_jxl_memory_limit naming the
 * bytes), noted in peak_bytes until libjxl is destroyed, and given as
 * whole_image_bytes (less its fixed part) by the probe.
 *
 * The estimate is an upper bound of libjxl's heap as counted by a malloc
 * that sees every allocation of the process, over files made by cjxl 0.7 in
 * its modes and their combinations: lossy, lossy with alpha, lossless, -m,
 * -p, -p -d 0, --photon_noise, -g 0 to 3, --resampling, animations,
 * recompressed JPEGs, gray, 8-, 10-, 16-bit and float input; 8 x 8 to
 * 24 MP, 1 x 30000 and 30000 x 1. What costs most is not in the header
 * (VarDCT or modular, the squeeze transform, photon noise, the group size),
 * so each is taken at its worst:
 *  - Group buffers. When a frame is not rendered as its groups arrive (seen
 *    with extra channels on a VarDCT frame and with photon noise on a
 *    modular one), libjxl keeps every group's render channels as 4-byte
 *    floats with a border of about 25 px: 3 colour channels (gray too), 3
 *    noise channels and the extra ones. A VarDCT group is 256 px, a modular
 *    one 128 to 1024 px: 128 px costs most on large images (the bordered
 *    groups cover twice the pixels), 1024 px on small and narrow ones
 *    (measured: 28 MB for an 8 x 8 image, 834 MB for a 30000 x 1 one).
 *  - Whole-image planes. A modular frame is decoded into 32-bit planes, one
 *    per channel (3 for XYB or colour, 1 for plain gray, and the extra
 *    ones), with temporaries as large for the squeeze transform (cjxl -m,
 *    -p -d 0), and an animation keeps its frame for the next ones.
 *  - Tables and state of a few MB, whatever the size.
 * A file with none of the costly features uses far less (a 24 MP lossy one
 * 74 MB of the 2,044 MB estimated, a 24 MP recompressed JPEG 16 to 39 MB),
 * but nothing in the header tells it apart.
 *
 * libjxl's estimate, for an image of w x h with e extra channels and c
 * modular colour channels (3, or 1 for gray that is not XYB):
 *   G = the largest, over g = 128, 256, 512 and 1024, of ceil(w/g)·ceil(h/g)·(g + 64)²
 *   E = 8 MiB + 4·(6 + e)·G + (w + 80)·h·(7·(c + e) + 8 + (animated ? 8·(c + e) : 0))
 * Measured real heap / peak_bytes over 852 such files: at most 0.97 (30000
 * x 1 with 1024 px groups and noise), 0.88 from 0.3 to 24 MP (noise on a
 * squeezed frame with 128 px groups), median 0.21; from 3 MP up, 0.04 to
 * 0.06 for lossy files and 0.01 to 0.05 for recompressed JPEGs.
 *
 * The bound, for a thumbnail of tw x th whose filter layout has s samples a
 * pixel (1 to 4):
 *   peak_bytes <= E
 *                 + 8·s·tw·th + 8·w    (the sparse filter's sums and column tables)
 *                 + 4·w                (one strip in 8 bits)
 *                 + 64 KiB + 64        (the input window; none for a memory input)
 *                 + 8·tw·th            (the thumbnail, twice while it is turned)
 *                 + 64 KiB             (libjxl's allocations through the manager)
 *                 + the colour stage   (an ICC profile of at most CT_COLOR_PROFILE_MAX
 *                                       and LittleCMS, capped in ct_color.c)
 *
 * libjxl cannot be stopped from its callback: once the cancel token is seen
 * there the strips are skipped, and the decode returns when libjxl does.
 * libjxl reports failures only as JXL_DEC_ERROR (and prints its own message
 * on stderr): with all the input given, a failure is the data ending too
 * soon; otherwise it is taken as damage, for libjxl does not say which
 * feature it refuses.
 */
#include <stdlib.h>
#include <string.h>

#include "ct_codec_libraries.h"

/* Bytes of input handed to libjxl at a time; the cancel token is looked at between chunks. */
#define CT_JXL_CHUNK (64u * 1024u)
/* libjxl gives back at most 20 unconsumed bytes between chunks (decode.h); the window grows if it ever keeps more. */
#define CT_JXL_WINDOW_SLACK 64u
/* Strips from libjxl between looks at the cancel token inside the callback. */
#define CT_JXL_CANCEL_INTERVAL 32u

/* The estimate of libjxl's malloc'd working memory, from the header (see the top of the file). */
#define CT_JXL_FIXED_BYTES (8u * 1024u * 1024u)
/* Group buffers: 4-byte samples of 3 colour, 3 photon-noise and the extra channels, each group with its borders. */
#define CT_JXL_GROUP_MIN 128u
#define CT_JXL_GROUP_MAX 1024u
#define CT_JXL_GROUP_BORDERS 64u
#define CT_JXL_GROUP_CHANNELS 6u
#define CT_JXL_GROUP_SAMPLE_BYTES 4u
/* Whole-image planes, per pixel of rows padded by CT_JXL_ROW_SLACK: so many bytes per modular channel, plus a few. */
#define CT_JXL_ROW_SLACK 80u
#define CT_JXL_PLANE_BYTES_PER_CHANNEL 7u
#define CT_JXL_PLANE_BYTES 8u
/* An animation's reference frames, per pixel and modular channel. */
#define CT_JXL_REFERENCE_BYTES_PER_CHANNEL 8u

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
    ct_row_output output;
    int output_ready;
    uint8_t *strip; /* one strip in the layout's 8-bit samples */
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

/* Bytes that count against limits.max_jxl_decoder_memory: everything but the thumbnail. */
static uint64_t ct_jxl_working_bytes(const ct_jxl_decoder *d) {
    uint64_t thumbnail = d->output.pixels != NULL ? d->output.pixel_bytes : 0;
    return d->alloc.current > thumbnail ? d->alloc.current - thumbnail : 0;
}

/* ct_alloc_bytes keeps each block's size in a 16-byte header, so frees are counted and max_align_t alignment holds. */
static void *ct_jxl_allocate(void *opaque, size_t size) {
    ct_jxl_decoder *d = opaque;
    uint64_t limit = d->limits->max_jxl_decoder_memory;
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
    if (ct_input_seek(input, 0) != 0) return ct_fail(&d->error, CT_IO_ERROR, "cannot rewind the JPEG XL input");
    /* libjxl copies the manager; opaque stays valid as long as the decoder does. */
    JxlMemoryManager manager = {d, ct_jxl_allocate, ct_jxl_release};
    d->jxl = ct_jxl.JxlDecoderCreate(&manager);
    if (d->jxl == NULL) {
        if (d->refused_bytes != 0)
            return ct_fail_jxl_memory_limit(&d->error, "JPEG XL (libjxl's decoder)", d->refused_bytes,
                                            limits->max_jxl_decoder_memory);
        return ct_fail(&d->error, CT_OUT_OF_MEMORY, "out of memory creating the JPEG XL decoder");
    }
    if (ct_jxl.JxlDecoderSetKeepOrientation(d->jxl, JXL_TRUE) != JXL_DEC_SUCCESS
        || ct_jxl.JxlDecoderSubscribeEvents(d->jxl, events) != JXL_DEC_SUCCESS)
        return ct_fail(&d->error, CT_UNSUPPORTED_FEATURE, "libjxl refused the JPEG XL decoder's settings");
    return CT_OK;
}

/*
 * Frees libjxl (taking its estimate out of the count), the input window, the
 * strip and the filter: all but the thumbnail and the ICC profile.
 */
static void ct_jxl_release_decoding(ct_jxl_decoder *d) {
    if (d->jxl != NULL) {
        ct_jxl.JxlDecoderDestroy(d->jxl);
        d->jxl = NULL;
    }
    ct_alloc_note(&d->alloc, -(int64_t)d->library_estimate);
    d->library_estimate = 0;
    ct_resampler_free(&d->output.resampler);
    ct_alloc_free(&d->alloc, d->window);
    ct_alloc_free(&d->alloc, d->strip);
    d->window = d->strip = NULL;
}

/* Frees everything but the thumbnail pixels, which are the caller's to take or free. */
static void ct_jxl_close(ct_jxl_decoder *d) {
    ct_jxl_release_decoding(d);
    ct_alloc_free(&d->alloc, d->icc);
    d->icc = NULL;
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
        return ct_fail_jxl_memory_limit(&d->error, "JPEG XL (libjxl)", d->refused_bytes,
                                        d->limits->max_jxl_decoder_memory);
    return ct_fail(&d->error, CT_CORRUPT, "JPEG XL is corrupt %s (libjxl failed after %llu bytes of input)", where,
                   (unsigned long long)d->bytes_read);
}

/* A memory input: the next chunk after the kept bytes, where they already are. Returns the bytes added. */
static size_t ct_jxl_feed_memory(ct_jxl_decoder *d, size_t kept) {
    ct_input *input = d->input;
    size_t remaining = input->size - input->position;
    size_t chunk = remaining < CT_JXL_CHUNK ? remaining : CT_JXL_CHUNK;
    if (kept + chunk > 0) ct_jxl.JxlDecoderSetInput(d->jxl, input->data + input->position - kept, kept + chunk);
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
    if (d->window_used > 0) ct_jxl.JxlDecoderSetInput(d->jxl, d->window, d->window_used);
    return CT_OK;
}

/*
 * Hands libjxl the next chunk after what it has not consumed. When there is
 * none, closes the input so that libjxl can finish if it is able to; asked
 * for more after that, the data is cut short.
 */
static ct_status ct_jxl_feed(ct_jxl_decoder *d, const char *where) {
    size_t kept = ct_jxl.JxlDecoderReleaseInput(d->jxl);
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
        ct_jxl.JxlDecoderCloseInput(d->jxl);
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
        JxlDecoderStatus status = ct_jxl.JxlDecoderProcessInput(d->jxl);
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

/* a·b, or UINT64_MAX when that does not fit: the estimate of a hostile header saturates instead of wrapping. */
static uint64_t ct_jxl_multiply(uint64_t a, uint64_t b) {
    return a != 0 && b > UINT64_MAX / a ? UINT64_MAX : a * b;
}

static uint64_t ct_jxl_add(uint64_t a, uint64_t b) {
    return b > UINT64_MAX - a ? UINT64_MAX : a + b;
}

/*
 * The area libjxl's group buffers cover, borders included, at the group size
 * that makes it largest: the file's group size is not in the header.
 */
static uint64_t ct_jxl_group_area(uint64_t width, uint64_t height) {
    uint64_t largest = 0;
    for (uint64_t size = CT_JXL_GROUP_MIN; size <= CT_JXL_GROUP_MAX; size *= 2) {
        uint64_t side = size + CT_JXL_GROUP_BORDERS;
        uint64_t area = ct_jxl_multiply(((width + size - 1) / size) * ((height + size - 1) / size), side * side);
        if (area > largest) largest = area;
    }
    return largest;
}

/* libjxl's working memory less its fixed part, as estimated at the top of the file. */
static uint64_t ct_jxl_image_bytes(const JxlBasicInfo *basic) {
    uint64_t extra = basic->num_extra_channels;
    /* XYB is three channels even for gray. */
    uint64_t channels = (!basic->uses_original_profile || basic->num_color_channels != 1 ? 3 : 1) + extra;
    uint64_t group_bytes = ct_jxl_multiply(ct_jxl_group_area(basic->xsize, basic->ysize),
                                           CT_JXL_GROUP_SAMPLE_BYTES * (CT_JXL_GROUP_CHANNELS + extra));
    uint64_t plane_bytes_per_pixel = CT_JXL_PLANE_BYTES_PER_CHANNEL * channels + CT_JXL_PLANE_BYTES;
    if (basic->have_animation) plane_bytes_per_pixel += CT_JXL_REFERENCE_BYTES_PER_CHANNEL * channels;
    uint64_t padded_pixels = ((uint64_t)basic->xsize + CT_JXL_ROW_SLACK) * basic->ysize;
    return ct_jxl_add(group_bytes, ct_jxl_multiply(padded_pixels, plane_bytes_per_pixel));
}

/* Reads the basic info, checks the size limits and describes the image. */
static ct_status ct_jxl_describe(ct_jxl_decoder *d) {
    if (ct_jxl.JxlDecoderGetBasicInfo(d->jxl, &d->basic) != JXL_DEC_SUCCESS)
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
        if (ct_jxl.JxlDecoderGetExtraChannelInfo(d->jxl, index, &channel) == JXL_DEC_SUCCESS
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
    info->whole_image_bytes = ct_jxl_image_bytes(basic);
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
    ct_status loaded = ct_jxl_load(error);
    if (loaded != CT_OK) return loaded;
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
 * Sizes the thumbnail, picks the layout, and checks libjxl's
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

    /* At most INT64_MAX, so that it can be noted; a limit refuses it long before. */
    uint64_t estimate = ct_jxl_add(CT_JXL_FIXED_BYTES, d->info.whole_image_bytes);
    if (estimate > (uint64_t)INT64_MAX) estimate = (uint64_t)INT64_MAX;
    /* The input window already exists (the header came through it); the strip does not yet. */
    uint64_t strip = (uint64_t)width * 4;
    uint64_t limit = d->limits->max_jxl_decoder_memory;
    uint64_t needed = ct_jxl_working_bytes(d) + estimate + strip
                    + ct_resampler_working_bytes(width, height, d->thumb_width, d->thumb_height, d->layout, 1);
    if (limit != 0 && needed > limit) {
        char what[112];
        snprintf(what, sizeof what,
                 "JPEG XL image of %ux%u (libjxl's buffers estimated from the header, and the filter)", width, height);
        return ct_fail_jxl_memory_limit(&d->error, what, needed, limit);
    }
    d->library_estimate = estimate;
    ct_alloc_note(&d->alloc, (int64_t)estimate);
    /* Premultiplied alpha would be filtered as straight alpha twice over; libjxl undoes it. */
    if (basic->alpha_premultiplied && ct_jxl.JxlDecoderSetUnpremultiplyAlpha(d->jxl, JXL_TRUE) != JXL_DEC_SUCCESS)
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
    JxlDecoderStatus got = ct_jxl.JxlDecoderGetICCProfileSize(d->jxl, NULL, JXL_COLOR_PROFILE_TARGET_DATA, &size);
    if (got != JXL_DEC_SUCCESS || size == 0) {
        ct_color_ignore(&d->color, "libjxl gives no ICC profile for the decoded pixels");
        return;
    }
    if (size > CT_COLOR_PROFILE_MAX) {
        ct_color_ignore(&d->color, "the ICC profile is %zu bytes, over the limit of %u", size, CT_COLOR_PROFILE_MAX);
        return;
    }
    uint64_t limit = d->limits->max_jxl_decoder_memory;
    if (limit != 0 && ct_jxl_working_bytes(d) + size > limit) {
        ct_color_ignore(&d->color, "the %zu-byte ICC profile does not fit the decoder memory limit", size);
        return;
    }
    d->icc = ct_alloc_bytes(&d->alloc, size);
    if (d->icc == NULL) {
        ct_color_ignore(&d->color, "out of memory for the %zu-byte ICC profile", size);
        return;
    }
    if (ct_jxl.JxlDecoderGetColorAsICCProfile(d->jxl, NULL, JXL_COLOR_PROFILE_TARGET_DATA, d->icc, size) != JXL_DEC_SUCCESS) {
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
        ct_jxl.JxlDecoderSetPreferredColorProfile(d->jxl, &srgb);
    }
    if (!convert_to_srgb) return;
    JxlColorEncoding original, data;
    int original_srgb = ct_jxl.JxlDecoderGetColorAsEncodedProfile(d->jxl, NULL, JXL_COLOR_PROFILE_TARGET_ORIGINAL,
                                                           &original) == JXL_DEC_SUCCESS
        && ct_jxl_is_srgb(&original);
    if (ct_jxl.JxlDecoderGetColorAsEncodedProfile(d->jxl, NULL, JXL_COLOR_PROFILE_TARGET_DATA, &data) == JXL_DEC_SUCCESS) {
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
    if (ct_jxl.JxlDecoderSetImageOutCallback(d->jxl, &format, ct_jxl_receive, d) != JXL_DEC_SUCCESS)
        return ct_fail(&d->error, CT_UNSUPPORTED_FEATURE, "libjxl cannot write this JPEG XL as float RGB%s",
                       d->channels == 4 ? "A" : "");
    return CT_OK;
}

/* Runs libjxl from the header to the end of the first frame. */
static ct_status ct_jxl_decode_frame(ct_jxl_decoder *d, const ct_decode_options *options) {
    for (;;) {
        JxlDecoderStatus event;
        ct_status status = ct_jxl_next_event(d, "before its first frame ends", &event);
        if (status != CT_OK) return status;
        switch (event) {
        case JXL_DEC_COLOR_ENCODING: ct_jxl_read_color(d, options->convert_to_srgb); break;
        case JXL_DEC_NEED_IMAGE_OUT_BUFFER: status = ct_jxl_prepare_output(d); break;
        case JXL_DEC_FULL_IMAGE: return CT_OK;
        case JXL_DEC_SUCCESS: return ct_fail(&d->error, CT_CORRUPT, "JPEG XL codestream ends without a frame");
        default: break;
        }
        if (status != CT_OK) return status;
    }
}

static ct_status ct_jxl_decode_steps(ct_jxl_decoder *d, const ct_decode_options *options) {
    ct_status status = ct_jxl_read_header(d);
    if (status == CT_OK) status = ct_jxl_plan(d, options);
    if (status == CT_OK) status = ct_jxl_decode_frame(d, options);
    if (status != CT_OK) return status;
    if (!d->output_ready) return ct_fail(&d->error, CT_CORRUPT, "JPEG XL frame has no pixels");
    ct_resampler_finish_sparse(&d->output.resampler);
    /* libjxl, the filter and the input are done with: the colour stage's memory does not add to theirs. */
    ct_jxl_release_decoding(d);
    if (d->icc != NULL) {
        ct_color_model model = d->basic.num_color_channels == 1 ? CT_COLOR_MODEL_GRAY : CT_COLOR_MODEL_RGB;
        ct_color_to_srgb(&d->alloc, d->output.pixels, d->thumb_width, d->thumb_height, model, d->icc, d->icc_size,
                         &d->color);
    }
    return CT_OK;
}

ct_status ct_jxl_decode(ct_input *input, const ct_decode_options *options, ct_thumbnail *thumbnail,
                        ct_error *error) {
    ct_status loaded = ct_jxl_load(error);
    if (loaded != CT_OK) return loaded;
    ct_jxl_decoder d;
    ct_status status = ct_jxl_open(&d, input, &options->limits, options->cancel,
                                   JXL_DEC_BASIC_INFO | JXL_DEC_COLOR_ENCODING | JXL_DEC_FULL_IMAGE);
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
    thumbnail->scale_numerator = 8;
    thumbnail->jpeg_path = CT_JPEG_PATH_NONE;
    thumbnail->peak_bytes = d.alloc.peak;
    thumbnail->color = d.color;
    return CT_OK;
}
