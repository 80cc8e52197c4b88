/*
 * WebP header probe and WebP-to-thumbnail decode with libwebp.
 *
 * libwebp decodes from memory only, so the whole RIFF container is held: a
 * memory input is read in place, a file input is read into one allocation
 * (the probe too: the EXIF chunk usually sits after the image data). The
 * demuxer finds the canvas, the first frame and the EXIF chunk; the frame is
 * decoded by libwebp's incremental decoder, fed the held bytes in slices so
 * the cancel token is seen between them, with libwebp's scaler on: rows come
 * out of the bitstream already reduced to the thumbnail's size and are
 * written as RGBA straight into the thumbnail. A lossy frame so never exists
 * at full size. A lossless (VP8L) frame does, inside libwebp, which keeps
 * the whole ARGB image (4 bytes a pixel); a lossy frame with alpha keeps a
 * whole alpha plane (1 byte a pixel, and up to 4 more while a losslessly
 * compressed alpha stream is decoded). Those buffers are checked against
 * limits.max_decoder_memory before libwebp is asked to decode.
 *
 * libwebp allocates with malloc and has no allocator hook, so peak_bytes
 * counts what this file allocates (the held file, the thumbnail) and an
 * estimate of libwebp's working memory: the whole-frame buffers above, its
 * per-column row caches and the scaler, and a fixed allowance for its
 * decoder state and the demuxer's bookkeeping. Not counted: the Huffman
 * tables of a lossless stream, which grow with the entropy groups the stream
 * declares and cannot be seen from outside libwebp.
 *
 * An animation shows its first frame, placed on a transparent canvas: the
 * frame is scaled by the canvas's ratio into its own rectangle of the
 * thumbnail (edges rounded to whole thumbnail pixels). Over a transparent
 * canvas alpha-blending and overwriting give the same pixels, so the
 * frame's blend method makes no difference here. An ICCP chunk's profile
 * converts the finished thumbnail to sRGB (ct_color.c), as for JPEG and PNG.
 */
#include <stdlib.h>
#include <string.h>
#include <webp/decode.h>
#include <webp/demux.h>

#include "ct_internal.h"

/* RIFF header (12 bytes) plus the first chunk's header and the start of its payload: enough for a VP8X canvas or a VP8/VP8L frame header. */
#define CT_WEBP_HEAD_BYTES 30
#define CT_WEBP_RIFF_HEADER 12
#define CT_WEBP_CHUNK_HEADER 8
/*
 * Slices of compressed data handed to the incremental decoder between looks
 * at the cancel token. At least this many bytes, so that a lossless stream,
 * which restarts from its last checkpoint (8 rows back) when a slice ends,
 * does not redo much of its work...
 */
#define CT_WEBP_SLICE_MIN (16u * 1024u)
/* ...and at most this many slices per frame, whatever its size. */
#define CT_WEBP_SLICES_MAX 64u
/*
 * libwebp's working memory that grows with the frame's width, per column
 * (frame_dec.c, vp8l_dec.c): a lossy frame's macroblock coefficients, top
 * samples and 36-row YUV cache (about 124 bytes); a lossless frame's 16-row
 * ARGB cache and top row (68 bytes).
 */
#define CT_WEBP_LOSSY_BYTES_PER_COLUMN 128u
#define CT_WEBP_LOSSLESS_BYTES_PER_COLUMN 68u
/* The scaler's accumulators and output row, per thumbnail column (io_dec.c, vp8l_dec.c). */
#define CT_WEBP_SCALER_BYTES_PER_COLUMN 48u
/* The decoder objects and their fixed tables (probabilities, Huffman lookups). */
#define CT_WEBP_DECODER_STATE_BYTES (32u * 1024u)
/* The demuxer's record of each frame (and its fixed part). */
#define CT_WEBP_DEMUX_BYTES_PER_FRAME 96u
#define CT_WEBP_DEMUX_BYTES 1024u

typedef struct ct_webp_decoder {
    ct_alloc alloc;
    /* the whole RIFF container: the caller's memory, or `held` */
    const uint8_t *data;
    size_t size;
    uint8_t *held;
    uint64_t riff_end; /* what the RIFF header says the container's size is */
    WebPDemuxer *demux;
    uint64_t demux_bytes; /* the estimate noted in alloc for the demuxer */
    WebPIterator frame;   /* the first frame, valid when has_frame */
    int has_frame;
    /* what the frame's bitstream says */
    int lossless;
    uint64_t frame_buffer_bytes; /* libwebp's buffers as large as the frame */
    ct_image_info info;
    /* the decode: thumbnail size before orientation, pixels malloc'd for the caller */
    uint8_t orientation;
    uint32_t thumb_width, thumb_height;
    uint8_t *pixels;
    size_t pixel_bytes;
    ct_color_report color;
} ct_webp_decoder;

static uint32_t ct_webp_le24(const uint8_t *p) { return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16; }

static uint32_t ct_webp_le32(const uint8_t *p) { return ct_webp_le24(p) | (uint32_t)p[3] << 24; }

/* ---- reading the container ---- */

/*
 * Reads the RIFF header, notes the container's announced size and checks the
 * canvas size against the limits before anything is held: a few hostile
 * bytes claiming a huge canvas stop here. Anything the header does not make
 * clear is left to the demuxer. Leaves the input at its start.
 */
static ct_status ct_webp_read_head(ct_webp_decoder *d, ct_input *input, const ct_limits *limits, ct_error *error) {
    uint8_t head[CT_WEBP_HEAD_BYTES];
    size_t got = ct_input_read(input, head, sizeof head);
    if (input->read_error) return ct_fail(error, CT_IO_ERROR, "could not read the WebP input");
    if (ct_input_seek(input, 0) != 0) return ct_fail(error, CT_IO_ERROR, "cannot rewind the WebP input");
    if (got < CT_WEBP_RIFF_HEADER + CT_WEBP_CHUNK_HEADER)
        return ct_fail(error, CT_TRUNCATED, "WebP data ends after %zu bytes, before its first chunk", got);
    uint32_t riff_size = ct_webp_le32(head + 4);
    if (riff_size < 4 + CT_WEBP_CHUNK_HEADER)
        return ct_fail(error, CT_CORRUPT, "WebP RIFF header gives a size of %u bytes, too small for an image",
                       riff_size);
    d->riff_end = (uint64_t)riff_size + 8;

    const uint8_t *chunk = head + CT_WEBP_RIFF_HEADER;
    if (memcmp(chunk, "VP8X", 4) == 0) {
        if (got < CT_WEBP_HEAD_BYTES) return CT_OK;
        return ct_check_limits(1 + ct_webp_le24(chunk + 12), 1 + ct_webp_le24(chunk + 15), limits, error);
    }
    WebPBitstreamFeatures features;
    if (WebPGetFeatures(head, got, &features) != VP8_STATUS_OK) return CT_OK;
    return ct_check_limits((uint32_t)features.width, (uint32_t)features.height, limits, error);
}

/* Makes the whole container available: in place for a memory input, read into `held` for a file. */
static ct_status ct_webp_hold(ct_webp_decoder *d, ct_input *input, const ct_limits *limits, ct_error *error) {
    if (input->file == NULL) {
        d->data = input->data;
        d->size = input->size < d->riff_end ? input->size : (size_t)d->riff_end;
        return CT_OK;
    }
    uint64_t available;
    if (ct_input_length(input, &available) != 0) return ct_fail(error, CT_IO_ERROR, "cannot find the WebP file's size");
    /* Never more than the file holds, whatever the RIFF header claims. */
    uint64_t wanted = available < d->riff_end ? available : d->riff_end;
    uint64_t limit = limits->max_decoder_memory;
    if (limit != 0 && wanted > limit)
        return ct_fail_memory_limit(error, "WebP (held whole: libwebp decodes from memory)", wanted, limit);
    if (wanted > SIZE_MAX) return ct_fail(error, CT_TOO_LARGE, "WebP file is too large to hold in memory");
    d->held = ct_alloc_bytes(&d->alloc, (size_t)wanted);
    if (d->held == NULL)
        return ct_fail(error, CT_OUT_OF_MEMORY, "out of memory holding a %llu-byte WebP file",
                       (unsigned long long)wanted);
    d->size = ct_input_read(input, d->held, (size_t)wanted);
    d->data = d->held;
    if (input->read_error)
        return ct_fail(error, CT_IO_ERROR, "could not read the WebP input after %zu bytes", d->size);
    return CT_OK;
}

/* Finds the first frame. Data shorter than the RIFF header announces is truncated, whatever it holds. */
static ct_status ct_webp_demux(ct_webp_decoder *d, ct_error *error) {
    if (d->size < d->riff_end)
        return ct_fail(error, CT_TRUNCATED, "WebP data ends after %zu of the %llu bytes its RIFF header announces",
                       d->size, (unsigned long long)d->riff_end);
    WebPData data = {d->data, d->size};
    d->demux = WebPDemux(&data);
    if (d->demux == NULL) return ct_fail(error, CT_CORRUPT, "WebP container is invalid (chunk sizes or layout)");
    uint32_t frames = WebPDemuxGetI(d->demux, WEBP_FF_FRAME_COUNT);
    d->demux_bytes = CT_WEBP_DEMUX_BYTES + (uint64_t)frames * CT_WEBP_DEMUX_BYTES_PER_FRAME;
    ct_alloc_note(&d->alloc, (int64_t)d->demux_bytes);
    if (!WebPDemuxGetFrame(d->demux, 1, &d->frame)) return ct_fail(error, CT_CORRUPT, "WebP file holds no image");
    d->has_frame = 1;
    if (!d->frame.complete) return ct_fail(error, CT_TRUNCATED, "WebP data ends inside the first frame");
    return CT_OK;
}

/* ---- describing the image ---- */

static ct_status ct_webp_status(VP8StatusCode code, const char *what, ct_error *error) {
    switch (code) {
    case VP8_STATUS_OK: return CT_OK;
    case VP8_STATUS_OUT_OF_MEMORY: return ct_fail(error, CT_OUT_OF_MEMORY, "out of memory in libwebp (%s)", what);
    case VP8_STATUS_UNSUPPORTED_FEATURE:
        return ct_fail(error, CT_UNSUPPORTED_FEATURE, "WebP %s uses a feature libwebp does not support", what);
    case VP8_STATUS_SUSPENDED:
    case VP8_STATUS_NOT_ENOUGH_DATA:
        return ct_fail(error, CT_TRUNCATED, "WebP %s ends before the image does", what);
    case VP8_STATUS_INVALID_PARAM:
    case VP8_STATUS_BITSTREAM_ERROR:
    case VP8_STATUS_USER_ABORT:
        break;
    }
    return ct_fail(error, CT_CORRUPT, "WebP %s is corrupt", what);
}

/* EXIF orientation from the EXIF chunk, whose payload may or may not start with JPEG's "Exif\0\0". */
static uint8_t ct_webp_orientation(const WebPDemuxer *demux) {
    static const uint8_t exif_header[6] = {'E', 'x', 'i', 'f', 0, 0};
    WebPChunkIterator chunk;
    if (!WebPDemuxGetChunk(demux, "EXIF", 1, &chunk)) return 1;
    const uint8_t *tiff = chunk.chunk.bytes;
    size_t size = chunk.chunk.size;
    if (size >= sizeof exif_header && memcmp(tiff, exif_header, sizeof exif_header) == 0) {
        tiff += sizeof exif_header;
        size -= sizeof exif_header;
    }
    uint8_t orientation = ct_exif_orientation(tiff, size);
    WebPDemuxReleaseChunkIterator(&chunk);
    return orientation;
}

/* Converts the thumbnail to sRGB from the ICCP chunk's profile, when the file has one. */
static void ct_webp_manage_color(ct_webp_decoder *d) {
    WebPChunkIterator chunk;
    if (!WebPDemuxGetChunk(d->demux, "ICCP", 1, &chunk)) return;
    ct_color_to_srgb(&d->alloc, d->pixels, d->thumb_width, d->thumb_height, CT_COLOR_MODEL_RGB, chunk.chunk.bytes,
                     chunk.chunk.size, &d->color);
    WebPDemuxReleaseChunkIterator(&chunk);
}

/*
 * Bytes a pixel of libwebp's buffers as large as the frame: a lossless
 * frame's ARGB image; a lossy frame's alpha plane, and while a losslessly
 * compressed alpha stream is decoded, up to 4 more for it (1 when it turns
 * out to be a palette, which cannot be told without decoding it).
 */
static uint8_t ct_webp_frame_bytes_per_pixel(const WebPIterator *frame, int lossless) {
    if (lossless) return 4;
    const uint8_t *fragment = frame->fragment.bytes;
    if (frame->fragment.size <= CT_WEBP_CHUNK_HEADER || memcmp(fragment, "ALPH", 4) != 0) return 0;
    int compressed = (fragment[CT_WEBP_CHUNK_HEADER] & 3) != 0;
    return compressed ? 5 : 1;
}

/* Fills info from the container and the first frame, and applies the size and working-memory limits. */
static ct_status ct_webp_describe(ct_webp_decoder *d, const ct_limits *limits, ct_error *error) {
    uint32_t width = WebPDemuxGetI(d->demux, WEBP_FF_CANVAS_WIDTH);
    uint32_t height = WebPDemuxGetI(d->demux, WEBP_FF_CANVAS_HEIGHT);
    ct_status status = ct_check_limits(width, height, limits, error);
    if (status != CT_OK) return status;

    const WebPIterator *frame = &d->frame;
    WebPBitstreamFeatures features;
    status = ct_webp_status(WebPGetFeatures(frame->fragment.bytes, frame->fragment.size, &features),
                            "frame header", error);
    if (status != CT_OK) return status;
    if (features.width != frame->width || features.height != frame->height || frame->x_offset < 0
        || frame->y_offset < 0 || (uint64_t)frame->x_offset + (uint64_t)frame->width > width
        || (uint64_t)frame->y_offset + (uint64_t)frame->height > height)
        return ct_fail(error, CT_CORRUPT, "WebP frame of %dx%d at (%d, %d) does not fit its %ux%u canvas",
                       features.width, features.height, frame->x_offset, frame->y_offset, width, height);
    d->lossless = features.format == 2;

    int covers_canvas = (uint32_t)frame->width == width && (uint32_t)frame->height == height;
    int has_alpha = (WebPDemuxGetI(d->demux, WEBP_FF_FORMAT_FLAGS) & ALPHA_FLAG) != 0 || features.has_alpha
        || !covers_canvas;
    memset(&d->info, 0, sizeof d->info);
    d->info.format = CT_FORMAT_WEBP;
    d->info.width = width;
    d->info.height = height;
    d->info.orientation = ct_webp_orientation(d->demux);
    d->info.has_alpha = has_alpha ? 1 : 0;
    d->info.components = has_alpha ? 4 : 3;
    d->info.bit_depth = 8;
    d->info.whole_image_bytes_per_pixel = ct_webp_frame_bytes_per_pixel(frame, d->lossless);

    d->frame_buffer_bytes = (uint64_t)frame->width * (uint64_t)frame->height * d->info.whole_image_bytes_per_pixel;
    /* The whole-frame buffers come on top of the held file. */
    uint64_t needed = d->frame_buffer_bytes + (d->held != NULL ? d->size : 0);
    uint64_t limit = limits->max_decoder_memory;
    if (limit != 0 && d->frame_buffer_bytes > 0 && needed > limit) {
        char what[96];
        snprintf(what, sizeof what, "WebP %s frame of %dx%d (libwebp keeps its %s whole)",
                 d->lossless ? "lossless" : "lossy", frame->width, frame->height,
                 d->lossless ? "ARGB image" : "alpha plane");
        return ct_fail_memory_limit(error, what, needed, limit);
    }
    return CT_OK;
}

/* Reads, demuxes and describes the image: everything but the decode. */
static ct_status ct_webp_open(ct_webp_decoder *d, ct_input *input, const ct_limits *limits, ct_error *error) {
    memset(d, 0, sizeof *d);
    ct_status status = ct_webp_read_head(d, input, limits, error);
    if (status == CT_OK) status = ct_webp_hold(d, input, limits, error);
    if (status == CT_OK) status = ct_webp_demux(d, error);
    if (status == CT_OK) status = ct_webp_describe(d, limits, error);
    return status;
}

/* Frees everything but the pixels handed over. Safe after any failure (the decoder starts zeroed). */
static void ct_webp_close(ct_webp_decoder *d) {
    if (d->has_frame) WebPDemuxReleaseIterator(&d->frame);
    WebPDemuxDelete(d->demux);
    ct_alloc_note(&d->alloc, -(int64_t)d->demux_bytes);
    ct_alloc_free(&d->alloc, d->held);
    if (d->pixels != NULL) {
        free(d->pixels);
        ct_alloc_note(&d->alloc, -(int64_t)d->pixel_bytes);
    }
}

/* ---- decoding ---- */

/* Where [offset, offset + length) of a canvas side lands on a thumbnail side: whole pixels, at least one. */
static void ct_webp_place(int offset, int length, uint32_t canvas, uint32_t thumb, uint32_t *start, uint32_t *size) {
    uint64_t first = ((uint64_t)offset * thumb * 2 + canvas) / (2 * (uint64_t)canvas);
    uint64_t end = (((uint64_t)offset + (uint64_t)length) * thumb * 2 + canvas) / (2 * (uint64_t)canvas);
    if (first >= thumb) first = thumb - 1;
    if (end > first + (uint64_t)length) end = first + (uint64_t)length; /* never upscale */
    if (end <= first) end = first + 1;
    if (end > thumb) end = thumb;
    *start = (uint32_t)first;
    *size = (uint32_t)(end - first);
}

/* libwebp's working memory for this decode, beyond the whole-frame buffers (see the top of the file). */
static uint64_t ct_webp_row_bytes(const ct_webp_decoder *d, uint32_t scaled_width) {
    uint64_t per_column = d->lossless ? CT_WEBP_LOSSLESS_BYTES_PER_COLUMN : CT_WEBP_LOSSY_BYTES_PER_COLUMN;
    return per_column * (uint64_t)d->frame.width + CT_WEBP_SCALER_BYTES_PER_COLUMN * (uint64_t)scaled_width
        + CT_WEBP_DECODER_STATE_BYTES;
}

/* Feeds the frame's bytes to the incremental decoder slice by slice, looking at the cancel token between slices. */
static ct_status ct_webp_feed(WebPIDecoder *decoder, const WebPData *fragment, const ct_cancel_token *cancel,
                              ct_error *error) {
    size_t slice = fragment->size / CT_WEBP_SLICES_MAX;
    if (slice < CT_WEBP_SLICE_MIN) slice = CT_WEBP_SLICE_MIN;
    size_t fed = 0;
    for (;;) {
        if (ct_is_cancelled(cancel)) return ct_fail(error, CT_CANCELLED, "WebP decode cancelled");
        fed = fragment->size - fed > slice ? fed + slice : fragment->size;
        VP8StatusCode code = WebPIUpdate(decoder, fragment->bytes, fed);
        if (code == VP8_STATUS_OK) return CT_OK;
        if (code != VP8_STATUS_SUSPENDED) return ct_webp_status(code, "bitstream", error);
        if (fed == fragment->size)
            return ct_fail(error, CT_TRUNCATED, "WebP bitstream ends before the image does (%zu bytes)", fed);
    }
}

/*
 * Decodes the first frame into its rectangle of the thumbnail: scaled by
 * libwebp, RGBA with straight alpha, written in place with the thumbnail's
 * stride. The rest of the thumbnail stays transparent.
 */
static ct_status ct_webp_decode_frame(ct_webp_decoder *d, const ct_cancel_token *cancel, ct_error *error) {
    const WebPIterator *frame = &d->frame;
    uint32_t x, y, width, height;
    ct_webp_place(frame->x_offset, frame->width, d->info.width, d->thumb_width, &x, &width);
    ct_webp_place(frame->y_offset, frame->height, d->info.height, d->thumb_height, &y, &height);

    WebPDecoderConfig config;
    if (!WebPInitDecoderConfig(&config)) return ct_fail(error, CT_UNSUPPORTED_FEATURE, "libwebp version mismatch");
    if (width != (uint32_t)frame->width || height != (uint32_t)frame->height) {
        config.options.use_scaling = 1;
        config.options.scaled_width = (int)width;
        config.options.scaled_height = (int)height;
    }
    size_t stride = (size_t)d->thumb_width * 4;
    config.output.colorspace = MODE_RGBA;
    config.output.is_external_memory = 1;
    config.output.u.RGBA.rgba = d->pixels + (size_t)y * stride + (size_t)x * 4;
    config.output.u.RGBA.stride = (int)stride;
    config.output.u.RGBA.size = (size_t)(height - 1) * stride + (size_t)width * 4;

    uint64_t library_bytes = d->frame_buffer_bytes + ct_webp_row_bytes(d, width);
    ct_alloc_note(&d->alloc, (int64_t)library_bytes);
    WebPIDecoder *decoder = WebPIDecode(NULL, 0, &config);
    ct_status status = decoder == NULL ? ct_fail(error, CT_OUT_OF_MEMORY, "cannot create the WebP decoder")
                                       : ct_webp_feed(decoder, &frame->fragment, cancel, error);
    WebPIDelete(decoder);
    ct_alloc_note(&d->alloc, -(int64_t)library_bytes);
    return status;
}

/* Sizes the thumbnail, allocates it transparent and decodes the first frame into it. */
static ct_status ct_webp_decode_image(ct_webp_decoder *d, const ct_decode_options *options, ct_error *error) {
    d->orientation = options->apply_orientation ? d->info.orientation : 1;
    ct_thumbnail_size(d->info.width, d->info.height, d->orientation, options, &d->thumb_width,
                      &d->thumb_height);
    d->pixel_bytes = (size_t)d->thumb_width * d->thumb_height * 4;
    d->pixels = calloc(d->pixel_bytes, 1);
    if (d->pixels == NULL)
        return ct_fail(error, CT_OUT_OF_MEMORY, "out of memory for a %ux%u thumbnail", d->thumb_width,
                       d->thumb_height);
    ct_alloc_note(&d->alloc, (int64_t)d->pixel_bytes);
    ct_status status = ct_webp_decode_frame(d, options->cancel, error);
    if (status == CT_OK && options->convert_to_srgb) ct_webp_manage_color(d);
    return status;
}

/* ---- entry points ---- */

ct_status ct_webp_probe(ct_input *input, const ct_limits *limits, ct_image_info *info, ct_error *error) {
    ct_webp_decoder d;
    ct_status status = ct_webp_open(&d, input, limits, error);
    *info = status == CT_OK ? d.info : (ct_image_info){0};
    ct_webp_close(&d);
    return status;
}

ct_status ct_webp_decode(ct_input *input, const ct_decode_options *options, ct_thumbnail *thumbnail,
                         ct_error *error) {
    ct_webp_decoder d;
    ct_status status = ct_webp_open(&d, input, &options->limits, error);
    if (status == CT_OK) status = ct_webp_decode_image(&d, options, error);
    uint8_t *pixels = d.pixels;
    d.pixels = NULL; /* handed on below, still counted in the peak */
    ct_webp_close(&d);

    uint32_t width = d.thumb_width, height = d.thumb_height;
    if (status == CT_OK) status = ct_finish_orientation(&d.alloc, &pixels, &width, &height, d.orientation, error);
    if (status != CT_OK) {
        free(pixels);
        memset(thumbnail, 0, sizeof *thumbnail);
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
