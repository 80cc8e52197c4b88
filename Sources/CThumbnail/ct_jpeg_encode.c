/*
 * The thumbnail JPEG encoder: RGBA8 in (alpha ignored), baseline 4:2:0 out,
 * with optimized Huffman tables (smaller files; at thumbnail size the extra
 * pass costs next to nothing).
 *
 * Output goes through jpeg_mem_dest into a malloc'd buffer we allocate at
 * libjpeg-turbo's worst-case size for the image. jpeg_mem_dest would grow a
 * smaller buffer itself, but a buffer it grew is out of our reach if a later
 * error longjmps out, so it would leak; sized like this it is never grown and
 * the buffer is always ours to free or shrink and hand over. Untouched pages
 * of the oversized allocation cost no memory.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "ct_jpeg.h"

typedef struct ct_jpeg_encoder {
    struct jpeg_compress_struct cinfo;
    ct_jpeg_error error;
    unsigned char *buffer; /* ours, malloc'd */
    unsigned char *output; /* where jpeg_mem_dest leaves the result: `buffer` unless it had to grow */
    unsigned long output_size;
} ct_jpeg_encoder;

/* libjpeg-turbo's bound for 4:2:0 (tjBufSize): 3 bytes per pixel of the MCU-padded image plus headers. */
static uint64_t ct_jpeg_worst_case_size(uint32_t width, uint32_t height) {
    uint64_t padded_width = ((uint64_t)width + 15) / 16 * 16, padded_height = ((uint64_t)height + 15) / 16 * 16;
    return padded_width * padded_height * 3 + 2048;
}

static ct_status ct_jpeg_compress(ct_jpeg_encoder *e, const uint8_t *rgba, uint32_t width, uint32_t height,
                                  int quality, ct_error *error) {
    j_compress_ptr cinfo = &e->cinfo;
    if (setjmp(e->error.jump)) {
        ct_status status = e->error.pub.msg_code == JERR_OUT_OF_MEMORY ? CT_OUT_OF_MEMORY : CT_INVALID_ARGUMENT;
        return ct_fail(error, status, "%s", e->error.message);
    }
    jpeg_create_compress(cinfo);
    jpeg_mem_dest(cinfo, &e->output, &e->output_size);
    cinfo->image_width = width;
    cinfo->image_height = height;
    cinfo->input_components = 4;
    cinfo->in_color_space = JCS_EXT_RGBA;
    jpeg_set_defaults(cinfo);
    jpeg_set_quality(cinfo, quality, TRUE);
    /* 4:2:0 is libjpeg's default for YCbCr; say so rather than rely on it. */
    cinfo->comp_info[0].h_samp_factor = cinfo->comp_info[0].v_samp_factor = 2;
    for (int i = 1; i < 3; i++) cinfo->comp_info[i].h_samp_factor = cinfo->comp_info[i].v_samp_factor = 1;
    cinfo->optimize_coding = TRUE;
    jpeg_start_compress(cinfo, TRUE);
    while (cinfo->next_scanline < height) {
        JSAMPROW rows[16];
        JDIMENSION count = height - cinfo->next_scanline < 16 ? height - cinfo->next_scanline : 16;
        for (JDIMENSION i = 0; i < count; i++) /* libjpeg only reads the input rows */
            rows[i] = (JSAMPROW)(uintptr_t)(rgba + (size_t)(cinfo->next_scanline + i) * width * 4);
        jpeg_write_scanlines(cinfo, rows, count);
    }
    jpeg_finish_compress(cinfo);
    return CT_OK;
}

ct_status ct_encode_jpeg(const uint8_t *rgba, uint32_t width, uint32_t height, int quality, ct_buffer *output,
                         ct_error *error) {
    if (output == NULL || rgba == NULL) return ct_fail(error, CT_INVALID_ARGUMENT, "ct_encode_jpeg: NULL argument");
    output->data = NULL;
    output->size = 0;
    if (width == 0 || height == 0 || width > JPEG_MAX_DIMENSION || height > JPEG_MAX_DIMENSION)
        return ct_fail(error, CT_INVALID_ARGUMENT, "JPEG: cannot encode a %ux%u image (each side must be 1…%ld)",
                       width, height, (long)JPEG_MAX_DIMENSION);
    if (quality < 1 || quality > 100)
        return ct_fail(error, CT_INVALID_ARGUMENT, "JPEG: quality %d is outside 1…100", quality);
    uint64_t capacity = ct_jpeg_worst_case_size(width, height);
    if (capacity > SIZE_MAX || capacity > ULONG_MAX)
        return ct_fail(error, CT_OUT_OF_MEMORY, "JPEG: a %ux%u image is too large to encode in memory", width, height);

    ct_jpeg_encoder e;
    memset(&e, 0, sizeof e);
    ct_jpeg_error_init(&e.error, NULL);
    e.cinfo.err = &e.error.pub;
    e.buffer = malloc((size_t)capacity);
    if (e.buffer == NULL) return ct_fail(error, CT_OUT_OF_MEMORY, "out of memory for the JPEG output");
    e.output = e.buffer;
    e.output_size = (unsigned long)capacity;

    ct_status status = ct_jpeg_compress(&e, rgba, width, height, quality, error);
    jpeg_destroy_compress(&e.cinfo);
    if (status != CT_OK) {
        free(e.buffer);
        return status;
    }
    if (e.output != e.buffer) { /* the bound did not hold and libjpeg grew its own malloc'd buffer */
        free(e.buffer);
        output->data = e.output;
    } else {
        uint8_t *fitted = realloc(e.buffer, e.output_size);
        output->data = fitted != NULL ? fitted : e.buffer;
    }
    output->size = e.output_size;
    return CT_OK;
}
