/*
 * GIF header probe and one-pass decode of a GIF's first frame with giflib.
 *
 * giflib's low-level API hands out one row of palette indices at a time
 * (DGifGetLine). Each row is looked up in the frame's palette, placed on the
 * logical screen and fed to the area filter, so the decode holds one row of
 * indices, one screen row of RGBA, giflib's fixed LZW state and the
 * thumbnail. An interlaced frame arrives in four passes and goes to the
 * sparse resampler, as Adam7 PNG rows do. DGifSlurp, which holds every frame
 * whole, is never used.
 *
 * The thumbnail shows the first frame composited on transparency at the
 * logical screen size: screen pixels the frame does not cover and pixels of
 * the frame's transparent index are transparent. The background colour is
 * ignored (as browsers do) and disposal only matters to later frames, which
 * are never read. Rows and columns of the frame outside the screen are decoded
 * and dropped; a frame whose own pixel count breaks the limit is refused
 * before any of it is decoded.
 *
 * Two choices where the file gives no colour:
 *  - no palette at all (neither local nor global): index i is gray (i, i, i).
 *    GIF89a lets a decoder use "a table of its own" there, so the file is not
 *    wrong, and Pillow reads such files the same way (mode L).
 *  - an index beyond the palette's size: transparent, as Chromium draws it.
 *    Clamping would paint a colour the file never defined.
 *
 * giflib reads through a callback that pulls from ct_input (the file is
 * streamed, never held whole), reports errors as return codes (no longjmp),
 * and on this path allocates only things of fixed size: its decoder state
 * (the LZW tables), at most three 256-entry palettes (global, local and
 * its record's copy of the local one) and one image record. None depends on
 * an attacker-chosen size, and the screen size is checked before giflib is
 * even opened. giflib has no allocator hooks, so peak_bytes counts those
 * blocks by their sizes (the private state by the estimate below).
 */
#include <gif_lib.h>
#include <string.h>

#include "ct_internal.h"

/* Rows (decoded or transparent) between looks at the cancel token, as for PNG. */
#define CT_GIF_CANCEL_INTERVAL 32
/*
 * giflib's private decoder state (GifFilePrivateType in 5.x: LZW prefix,
 * suffix and stack tables of 4096 entries each, a 256-byte block buffer and a
 * few words; about 24.9 KB on 64-bit), which gif_lib.h does not size.
 */
#define CT_GIF_PRIVATE_STATE_BYTES 25000u

typedef struct ct_gif_reader {
    GifFileType *gif;
    ct_input *input;
    const ct_limits *limits;
    /* everything this decode allocates, giflib's blocks included by their sizes */
    ct_alloc alloc;
    /* the part of alloc.current that giflib holds */
    uint64_t library_bytes;
    uint64_t bytes_read;
    /* a read came back short: the data ends there */
    int input_ended;
    /* the last byte giflib read: it names an unknown block type */
    uint8_t last_byte;
    /* a nonzero status means the failure is already recorded here */
    ct_error error;
    /* the first frame, as its descriptor and the control block before it say */
    uint32_t left, top, frame_width, frame_height;
    int interlaced;
    int transparent_index; /* NO_TRANSPARENT_COLOR when there is none */
    const ColorMapObject *palette; /* local, else global; NULL when there is neither */
    /* RGBA for every possible index */
    uint8_t colours[256][4];
    uint32_t checkpoints;
    uint8_t *indices; /* one frame row */
    uint8_t *row;     /* one screen row of RGBA */
    ct_row_output output;
} ct_gif_reader;

/* ---- input and errors ---- */

static int ct_gif_read_input(GifFileType *gif, GifByteType *buffer, int length) {
    ct_gif_reader *r = gif->UserData;
    if (length <= 0) return 0;
    size_t got = ct_input_read(r->input, buffer, (size_t)length);
    r->bytes_read += got;
    if (got > 0) r->last_byte = buffer[got - 1];
    if (got < (size_t)length) r->input_ended = 1;
    return (int)got;
}

/*
 * Turns a failed giflib call into a status and message, unless one is
 * already recorded. `where` finishes the sentence: "…, before its first image".
 * giflib says D_GIF_ERR_READ_FAILED both when the data runs out and for a
 * few bad fields; the read callback knows which.
 */
static ct_status ct_gif_fail(ct_gif_reader *r, int code, const char *where) {
    if (r->error.status != CT_OK) return r->error.status;
    unsigned long long got = r->bytes_read;
    if (r->input->read_error)
        return ct_fail(&r->error, CT_IO_ERROR, "could not read the GIF input after %llu bytes", got);
    if (r->input_ended) return ct_fail(&r->error, CT_TRUNCATED, "GIF data ends after %llu bytes, %s", got, where);
    if (code == D_GIF_ERR_NOT_ENOUGH_MEM)
        return ct_fail(&r->error, CT_OUT_OF_MEMORY, "out of memory in the GIF decoder, %s", where);
    const char *reason = code == D_GIF_ERR_READ_FAILED ? "a field is out of range" : GifErrorString(code);
    return ct_fail(&r->error, CT_CORRUPT, "GIF is corrupt %s: %s", where, reason != NULL ? reason : "unknown error");
}

/* ---- giflib's allocations ---- */

static uint64_t ct_gif_palette_bytes(const ColorMapObject *palette) {
    return palette == NULL ? 0 : sizeof *palette + (uint64_t)palette->ColorCount * sizeof(GifColorType);
}

static void ct_gif_note_library(ct_gif_reader *r, uint64_t bytes) {
    ct_alloc_note(&r->alloc, (int64_t)bytes);
    r->library_bytes += bytes;
}

/* ---- setup and teardown ---- */

/*
 * Checks the logical screen size in the header against the limits before
 * giflib is opened: a zero side is corrupt, a huge screen too large, whatever
 * follows. Leaves the input at its start.
 */
static ct_status ct_gif_check_screen(ct_input *input, const ct_limits *limits, ct_error *error) {
    uint8_t head[10];
    size_t got = ct_input_read(input, head, sizeof head);
    int read_error = input->read_error;
    if (ct_input_seek(input, 0) != 0) return ct_fail(error, CT_IO_ERROR, "cannot rewind the GIF input");
    if (read_error) return ct_fail(error, CT_IO_ERROR, "could not read the GIF header");
    if (got < sizeof head)
        return ct_fail(error, CT_TRUNCATED, "GIF data ends after %zu bytes, inside the logical screen descriptor",
                       got);
    uint32_t width = (uint32_t)head[6] | (uint32_t)head[7] << 8;
    uint32_t height = (uint32_t)head[8] | (uint32_t)head[9] << 8;
    if (width == 0 || height == 0)
        return ct_fail(error, CT_CORRUPT, "GIF logical screen is %ux%u", width, height);
    return ct_check_limits(width, height, limits, error);
}

/* Checks the screen size, then opens giflib on the input. */
static ct_status ct_gif_open(ct_gif_reader *r, ct_input *input, const ct_limits *limits) {
    memset(r, 0, sizeof *r);
    r->input = input;
    r->limits = limits;
    r->transparent_index = NO_TRANSPARENT_COLOR;
    ct_status status = ct_gif_check_screen(input, limits, &r->error);
    if (status != CT_OK) return status;
    int code = D_GIF_SUCCEEDED;
    r->gif = DGifOpen(r, ct_gif_read_input, &code);
    if (r->gif == NULL) return ct_gif_fail(r, code, "inside the logical screen descriptor or global palette");
    ct_gif_note_library(r, sizeof *r->gif + CT_GIF_PRIVATE_STATE_BYTES + ct_gif_palette_bytes(r->gif->SColorMap));
    return CT_OK;
}

/* Releases giflib and the rows; the output is ct_row_output_deliver's to release. */
static void ct_gif_close(ct_gif_reader *r) {
    ct_alloc_free(&r->alloc, r->indices);
    ct_alloc_free(&r->alloc, r->row);
    r->indices = r->row = NULL;
    if (r->gif != NULL) {
        DGifCloseFile(r->gif, NULL);
        r->gif = NULL;
        ct_alloc_note(&r->alloc, -(int64_t)r->library_bytes);
        r->library_bytes = 0;
    }
}

/* ---- header: everything up to the first image descriptor ---- */

/* Reads one extension; a Graphics Control Extension sets the next image's transparent index. */
static ct_status ct_gif_read_extension(ct_gif_reader *r) {
    int code;
    GifByteType *block;
    if (DGifGetExtension(r->gif, &code, &block) == GIF_ERROR)
        return ct_gif_fail(r, r->gif->Error, "inside an extension block before its first image");
    if (code == GRAPHICS_EXT_FUNC_CODE) {
        /* The last control block before the image applies to it; one that is not 4 bytes is ignored. */
        GraphicsControlBlock control;
        if (block != NULL && DGifExtensionToGCB(block[0], block + 1, &control) == GIF_OK)
            r->transparent_index = control.TransparentColor;
    } else if (code == PLAINTEXT_EXT_FUNC_CODE) {
        /* A control block before a plain-text block belongs to that text, which is not drawn. */
        r->transparent_index = NO_TRANSPARENT_COLOR;
    }
    /* Each sub-block consumes at least its length byte, so this ends with the input. */
    while (block != NULL) {
        if (DGifGetExtensionNext(r->gif, &block) == GIF_ERROR)
            return ct_gif_fail(r, r->gif->Error, "inside an extension block before its first image");
    }
    return CT_OK;
}

static ct_status ct_gif_read_frame_descriptor(ct_gif_reader *r) {
    if (DGifGetImageDesc(r->gif) == GIF_ERROR)
        return ct_gif_fail(r, r->gif->Error, "in its first frame's descriptor, palette or LZW code size");
    const GifImageDesc *frame = &r->gif->Image;
    /* giflib keeps the local palette twice (the frame's and its image record's copy) and one image record. */
    ct_gif_note_library(r, 2 * ct_gif_palette_bytes(frame->ColorMap) + sizeof(SavedImage));
    r->left = (uint32_t)frame->Left;
    r->top = (uint32_t)frame->Top;
    r->frame_width = (uint32_t)frame->Width;
    r->frame_height = (uint32_t)frame->Height;
    r->interlaced = frame->Interlace;
    r->palette = frame->ColorMap != NULL ? frame->ColorMap : r->gif->SColorMap;
    return CT_OK;
}

/*
 * Reads records up to the first image descriptor. Every record consumes at
 * least its introducer byte, so the loop ends with the input: a stream of
 * empty blocks cannot make it spin.
 */
static ct_status ct_gif_read_to_first_frame(ct_gif_reader *r) {
    for (;;) {
        GifRecordType type;
        if (DGifGetRecordType(r->gif, &type) == GIF_ERROR) {
            if (r->gif->Error == D_GIF_ERR_WRONG_RECORD && r->error.status == CT_OK && !r->input_ended)
                return ct_fail(&r->error, CT_CORRUPT, "GIF has an unknown block type 0x%02X at byte %llu, before its "
                               "first image", r->last_byte, (unsigned long long)r->bytes_read - 1);
            return ct_gif_fail(r, r->gif->Error, "before its first image");
        }
        ct_status status;
        switch (type) {
        case IMAGE_DESC_RECORD_TYPE: return ct_gif_read_frame_descriptor(r);
        case EXTENSION_RECORD_TYPE:
            status = ct_gif_read_extension(r);
            if (status != CT_OK) return status;
            break;
        case TERMINATE_RECORD_TYPE:
            return ct_fail(&r->error, CT_CORRUPT, "GIF has no image: its trailer comes before any frame");
        default:
            return ct_fail(&r->error, CT_CORRUPT, "GIF has an unknown record before its first image");
        }
    }
}

/* Describes the image from the screen and the first frame, and refuses a frame too large to decode. */
static ct_status ct_gif_describe(ct_gif_reader *r, ct_image_info *info) {
    memset(info, 0, sizeof *info);
    info->format = CT_FORMAT_GIF;
    info->width = (uint32_t)r->gif->SWidth;
    info->height = (uint32_t)r->gif->SHeight;
    info->orientation = 1;
    int covers_screen = r->left == 0 && r->top == 0 && r->frame_width >= info->width
        && r->frame_height >= info->height;
    info->has_alpha = r->transparent_index != NO_TRANSPARENT_COLOR || !covers_screen;
    info->components = info->has_alpha ? 4 : 3;
    /* Bits per palette index, as a palette PNG's bit depth; the default gray table has 256 entries. */
    info->bit_depth = (uint8_t)(r->palette != NULL ? r->palette->BitsPerPixel : 8);
    info->progressive = r->interlaced != 0;
    /* The frame is decoded whole even where it leaves the screen, so its own size is bounded too. */
    uint64_t frame_pixels = (uint64_t)r->frame_width * r->frame_height;
    uint64_t limit = r->limits->max_pixels;
    if (limit != 0 && frame_pixels > limit)
        return ct_fail(&r->error, CT_TOO_LARGE, "GIF's first frame is %ux%u (%llu pixels); the limit is %llu pixels",
                       r->frame_width, r->frame_height, (unsigned long long)frame_pixels, (unsigned long long)limit);
    return CT_OK;
}

ct_status ct_gif_probe(ct_input *input, const ct_limits *limits, ct_image_info *info, ct_error *error) {
    ct_gif_reader reader;
    ct_status status = ct_gif_open(&reader, input, limits);
    if (status == CT_OK) status = ct_gif_read_to_first_frame(&reader);
    if (status == CT_OK) status = ct_gif_describe(&reader, info);
    ct_gif_close(&reader);
    if (status != CT_OK) {
        memset(info, 0, sizeof *info);
        if (error != NULL) *error = reader.error;
    }
    return status;
}

/* ---- rows ---- */

/* Fills the RGBA lookup for every index (see the choices at the top of this file). */
static void ct_gif_build_colours(ct_gif_reader *r) {
    const ColorMapObject *palette = r->palette;
    for (int i = 0; i < 256; i++) {
        uint8_t *colour = r->colours[i];
        if (palette == NULL) {
            colour[0] = colour[1] = colour[2] = (uint8_t)i;
            colour[3] = 255;
        } else if (i < palette->ColorCount) {
            colour[0] = palette->Colors[i].Red;
            colour[1] = palette->Colors[i].Green;
            colour[2] = palette->Colors[i].Blue;
            colour[3] = 255;
        } else {
            memset(colour, 0, 4);
        }
    }
    if (r->transparent_index != NO_TRANSPARENT_COLOR) memset(r->colours[r->transparent_index & 0xFF], 0, 4);
}

/* The frame's columns that lie on the screen: [first, first + count). */
static void ct_gif_visible_columns(const ct_gif_reader *r, uint32_t screen_width, uint32_t *first, uint32_t *count) {
    uint64_t start = r->left, end = (uint64_t)r->left + r->frame_width;
    if (end > screen_width) end = screen_width;
    *first = start < screen_width ? (uint32_t)start : screen_width;
    *count = end > *first ? (uint32_t)(end - *first) : 0;
}

/* Writes the visible part of the index row (from screen column `first`) as RGBA to out. */
static void ct_gif_colour_row(const ct_gif_reader *r, uint8_t *out, uint32_t first, uint32_t count) {
    if (count == 0) return; /* first may then lie left of the frame */
    const uint8_t *indices = r->indices + (first - r->left);
    for (uint32_t i = 0; i < count; i++) memcpy(out + (size_t)i * 4, r->colours[indices[i]], 4);
}

static int ct_gif_cancel_point(ct_gif_reader *r, const ct_cancel_token *cancel) {
    return r->checkpoints++ % CT_GIF_CANCEL_INTERVAL == 0 && ct_is_cancelled(cancel);
}

static ct_status ct_gif_read_line(ct_gif_reader *r, uint32_t frame_row) {
    if (DGifGetLine(r->gif, r->indices, (int)r->frame_width) == GIF_OK) return CT_OK;
    char where[96];
    snprintf(where, sizeof where, "in row %u of the first frame's %u", frame_row, r->frame_height);
    return ct_gif_fail(r, r->gif->Error, where);
}

/* A frame without pixels (a side of 0) draws nothing and reads no rows. */
static uint32_t ct_gif_frame_rows(const ct_gif_reader *r) { return r->frame_width == 0 ? 0 : r->frame_height; }

/* A sequential frame: screen rows top to bottom, transparent above and below the frame. */
static ct_status ct_gif_read_rows(ct_gif_reader *r, uint32_t screen_width, uint32_t screen_height,
                                  const ct_cancel_token *cancel) {
    uint32_t first, count;
    ct_gif_visible_columns(r, screen_width, &first, &count);
    uint32_t y = 0; /* the next screen row */
    /* Above the frame the row buffer is still all transparent. */
    for (; y < screen_height && y < r->top; y++) {
        if (ct_gif_cancel_point(r, cancel)) return ct_fail(&r->error, CT_CANCELLED, "GIF decode cancelled");
        ct_resampler_push_row(&r->output.resampler, r->row);
    }
    uint32_t rows = ct_gif_frame_rows(r);
    for (uint32_t frame_row = 0; frame_row < rows; frame_row++) {
        if (ct_gif_cancel_point(r, cancel)) return ct_fail(&r->error, CT_CANCELLED, "GIF decode cancelled");
        ct_status status = ct_gif_read_line(r, frame_row);
        if (status != CT_OK) return status;
        if ((uint64_t)r->top + frame_row >= screen_height) continue; /* decoded, then dropped */
        ct_gif_colour_row(r, r->row + (size_t)first * 4, first, count);
        ct_resampler_push_row(&r->output.resampler, r->row);
        y++;
    }
    memset(r->row, 0, (size_t)screen_width * 4);
    for (; y < screen_height; y++) {
        if (ct_gif_cancel_point(r, cancel)) return ct_fail(&r->error, CT_CANCELLED, "GIF decode cancelled");
        ct_resampler_push_row(&r->output.resampler, r->row);
    }
    return CT_OK;
}

/*
 * An interlaced frame: four passes (every 8th row from 0, every 8th from 4,
 * every 4th from 2, every 2nd from 1), each row added to the sparse
 * resampler where it belongs. Screen pixels no row reaches stay transparent.
 */
static ct_status ct_gif_read_passes(ct_gif_reader *r, uint32_t screen_width, uint32_t screen_height,
                                    const ct_cancel_token *cancel) {
    static const uint32_t first_row[4] = {0, 4, 2, 1}, row_step[4] = {8, 8, 4, 2};
    uint32_t first, count;
    ct_gif_visible_columns(r, screen_width, &first, &count);
    uint32_t rows = ct_gif_frame_rows(r);
    for (int pass = 0; pass < 4; pass++) {
        for (uint32_t frame_row = first_row[pass]; frame_row < rows; frame_row += row_step[pass]) {
            if (ct_gif_cancel_point(r, cancel)) return ct_fail(&r->error, CT_CANCELLED, "GIF decode cancelled");
            ct_status status = ct_gif_read_line(r, frame_row);
            if (status != CT_OK) return status;
            uint64_t y = (uint64_t)r->top + frame_row;
            if (y >= screen_height || count == 0) continue; /* decoded, then dropped */
            ct_gif_colour_row(r, r->row, first, count);
            ct_resampler_add_pixels(&r->output.resampler, (uint32_t)y, first, 1, count, r->row);
        }
    }
    ct_resampler_finish_sparse(&r->output.resampler);
    return CT_OK;
}

/*
 * Allocates the row buffers, the thumbnail (transparent) and the resampler,
 * once they are known to fit the limit beside giflib's blocks.
 */
static ct_status ct_gif_prepare_output(ct_gif_reader *r, const ct_image_info *info, uint32_t dst_width,
                                       uint32_t dst_height) {
    uint64_t row_bytes = (uint64_t)(r->frame_width > 0 ? r->frame_width : 1) + (uint64_t)info->width * 4;
    ct_status status = ct_resampler_check_limit("GIF", r->library_bytes + row_bytes, r->limits->max_decoder_memory,
                                                info->width, info->height, dst_width, dst_height, CT_LAYOUT_RGBA,
                                                info->progressive, &r->error);
    if (status != CT_OK) return status;
    r->indices = ct_alloc_bytes(&r->alloc, r->frame_width > 0 ? r->frame_width : 1);
    r->row = ct_alloc_zeroed(&r->alloc, info->width, 4);
    if (r->indices == NULL || r->row == NULL)
        return ct_fail(&r->error, CT_OUT_OF_MEMORY, "out of memory for a GIF row");
    return ct_row_output_init(&r->output, &r->alloc, info->width, info->height, info->progressive, CT_LAYOUT_RGBA,
                              dst_width, dst_height, &r->error);
}

static ct_status ct_gif_decode_steps(ct_gif_reader *r, const ct_decode_options *options, ct_thumbnail *result) {
    ct_status status = ct_gif_read_to_first_frame(r);
    if (status == CT_OK) status = ct_gif_describe(r, &result->source);
    if (status != CT_OK) return status;
    ct_gif_build_colours(r);
    const ct_image_info *info = &result->source;
    ct_thumbnail_size(info->width, info->height, 1, options, &result->width, &result->height);
    status = ct_gif_prepare_output(r, info, result->width, result->height);
    if (status != CT_OK) return status;
    return info->progressive ? ct_gif_read_passes(r, info->width, info->height, options->cancel)
                             : ct_gif_read_rows(r, info->width, info->height, options->cancel);
}

ct_status ct_gif_decode(ct_input *input, const ct_decode_options *options, ct_thumbnail *thumbnail,
                        ct_error *error) {
    ct_gif_reader reader;
    ct_thumbnail result;
    memset(&result, 0, sizeof result);
    ct_status status = ct_gif_open(&reader, input, &options->limits);
    if (status == CT_OK) status = ct_gif_decode_steps(&reader, options, &result);
    ct_gif_close(&reader);
    return ct_row_output_deliver(&reader.output, &reader.alloc, status, &reader.error, &result, thumbnail, error);
}
