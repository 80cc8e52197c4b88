/*
 * The 1/8 image of a progressive JPEG from its DC planes (ct_jpeg_dc.c), a
 * row at a time, into the area filter.
 *
 * Each sample is what libjpeg's 1×1 IDCT makes of a DC coefficient:
 * dequantised, divided by 8 with rounding, level-shifted and range-limited
 * through the same wrap-around table. Colour conversion uses libjpeg's
 * fixed-point YCbCr arithmetic, and a component libjpeg itself decodes from
 * its DC alone is upsampled as libjpeg does at this scale (by replication: it
 * turns fancy upsampling off at 1/8). Such output equals libjpeg's 1/8
 * decode. The exception is a component libjpeg decodes at 1/8 with a larger
 * IDCT than 1×1: 4:2:0 chroma, where it scales the chroma up through a 2×2
 * IDCT that reads AC coefficients. We have only the DC, so we interpolate
 * bilinearly between neighbouring blocks' values (centred, edges held),
 * which follows the smooth part of what the AC terms add but not their
 * detail: chroma edges come out softer than libjpeg's.
 */
#include <string.h>

#include "ct_jpeg.h"

/* The sample libjpeg's jpeg_idct_1x1 makes of a DC coefficient. */
static inline uint8_t ct_dc_sample(int16_t coefficient, uint16_t quant) {
    /* ISLOW_MULT_TYPE is a short in libjpeg-turbo's SIMD builds; DESCALE(x, 3) rounds. */
    int value = ((int)coefficient * (int)(int16_t)quant + 4) >> 3;
    /* libjpeg's IDCT range limit table, indexed by value & 1023: it wraps rather than clamps far outside. */
    int index = value & 1023;
    if (index < 128) return (uint8_t)(index + 128);
    if (index < 512) return 255;
    if (index < 896) return 0;
    return (uint8_t)(index - 896);
}

static inline uint8_t ct_dc_clamp(int value) {
    return (uint8_t)(value < 0 ? 0 : value > 255 ? 255 : value);
}

/* libjpeg's YCbCr → RGB (jdcolor.c), in its 16-bit fixed point. */
static inline void ct_dc_ycc_to_rgb(int y, int cb, int cr, uint8_t *out) {
    enum { ONE_HALF = 1 << 15 };
    int x_cb = cb - 128, x_cr = cr - 128;
    int red = (91881 * x_cr + ONE_HALF) >> 16;                     /* FIX(1.40200) */
    int blue = (116130 * x_cb + ONE_HALF) >> 16;                   /* FIX(1.77200) */
    int green = (-22554 * x_cb + ONE_HALF + -46802 * x_cr) >> 16; /* FIX(0.34414), FIX(0.71414) */
    out[0] = ct_dc_clamp(y + red);
    out[1] = ct_dc_clamp(y + green);
    out[2] = ct_dc_clamp(y + blue);
}

/* Where output position `at` falls between block samples, for `factor` outputs per block. */
typedef struct ct_dc_tap {
    uint32_t first, second; /* block indexes, held at the edges */
    int weight;             /* of `second`, out of 2 × factor */
} ct_dc_tap;

static ct_dc_tap ct_dc_tap_at(uint32_t at, int factor, uint32_t blocks) {
    /* The centre of output `at` in block units is (2·at + 1 − factor) / (2·factor). */
    int64_t numerator = 2 * (int64_t)at + 1 - factor, denominator = 2 * (int64_t)factor;
    int64_t first = numerator >= 0 ? numerator / denominator : -((-numerator + denominator - 1) / denominator);
    ct_dc_tap tap;
    tap.weight = (int)(numerator - first * denominator);
    int64_t last = (int64_t)blocks - 1;
    tap.first = (uint32_t)(first < 0 ? 0 : first > last ? last : first);
    tap.second = (uint32_t)(first + 1 > last ? last : first + 1 < 0 ? 0 : first + 1);
    return tap;
}

/* One component's samples for output row y. */
static void ct_dc_component_row(const ct_jpeg_dc_frame *frame, const ct_jpeg_dc_planes *planes, int c, uint32_t y,
                                uint8_t *out) {
    const ct_jpeg_dc_component *component = &frame->components[c];
    int factor_h = frame->max_h / component->h, factor_v = frame->max_v / component->v;
    const int16_t *plane = planes->plane[c];
    size_t stride = planes->stride[c];
    uint16_t quant = planes->quant[c];
    uint32_t width = frame->output_width;
    if (component->scaled_size == 1 || (factor_h == 1 && factor_v == 1)) {
        const int16_t *row = plane + (size_t)(y / (uint32_t)factor_v) * stride;
        for (uint32_t x = 0; x < width; x++) out[x] = ct_dc_sample(row[x / (uint32_t)factor_h], quant);
        return;
    }
    ct_dc_tap vertical = ct_dc_tap_at(y, factor_v, component->height_in_blocks);
    const int16_t *top = plane + (size_t)vertical.first * stride, *bottom = plane + (size_t)vertical.second * stride;
    int span_v = 2 * factor_v, span_h = 2 * factor_h, total = span_v * span_h;
    for (uint32_t x = 0; x < width; x++) {
        ct_dc_tap horizontal = ct_dc_tap_at(x, factor_h, component->width_in_blocks);
        int left = (span_v - vertical.weight) * ct_dc_sample(top[horizontal.first], quant)
                   + vertical.weight * ct_dc_sample(bottom[horizontal.first], quant);
        int right = (span_v - vertical.weight) * ct_dc_sample(top[horizontal.second], quant)
                    + vertical.weight * ct_dc_sample(bottom[horizontal.second], quant);
        out[x] = (uint8_t)(((span_h - horizontal.weight) * left + horizontal.weight * right + total / 2) / total);
    }
}

ct_status ct_jpeg_dc_render(const ct_jpeg_dc_frame *frame, const ct_jpeg_dc_planes *planes, ct_alloc *alloc,
                            const ct_cancel_token *cancel, ct_resampler *resampler, ct_error *error) {
    uint32_t width = frame->output_width;
    int count = frame->luma_only ? 1 : frame->component_count;
    /* One row per component, then the converted row (4 bytes a pixel, for CMYK before its conversion). */
    uint8_t *rows = ct_alloc_bytes(alloc, (size_t)width * (size_t)(count + 4));
    if (rows == NULL) return ct_fail(error, CT_OUT_OF_MEMORY, "out of memory for JPEG rows");
    uint8_t *component_rows[4] = {0}, *out = rows + (size_t)width * (size_t)count;
    for (int c = 0; c < count; c++) component_rows[c] = rows + (size_t)width * (size_t)c;
    ct_status status = CT_OK;
    for (uint32_t y = 0; y < frame->output_height; y++) {
        if ((y & 63) == 0 && ct_is_cancelled(cancel)) {
            status = ct_fail(error, CT_CANCELLED, "decode cancelled");
            break;
        }
        for (int c = 0; c < count; c++) ct_dc_component_row(frame, planes, c, y, component_rows[c]);
        const uint8_t *c0 = component_rows[0], *c1 = component_rows[1], *c2 = component_rows[2],
                      *c3 = component_rows[3];
        switch (frame->luma_only ? JCS_GRAYSCALE : frame->color_space) {
        case JCS_GRAYSCALE:
            memcpy(out, c0, width);
            break;
        case JCS_RGB:
            for (uint32_t x = 0; x < width; x++) {
                out[3 * x] = c0[x];
                out[3 * x + 1] = c1[x];
                out[3 * x + 2] = c2[x];
            }
            break;
        case JCS_YCbCr:
            for (uint32_t x = 0; x < width; x++) ct_dc_ycc_to_rgb(c0[x], c1[x], c2[x], out + 3 * x);
            break;
        case JCS_CMYK:
            for (uint32_t x = 0; x < width; x++) {
                out[4 * x] = c0[x];
                out[4 * x + 1] = c1[x];
                out[4 * x + 2] = c2[x];
                out[4 * x + 3] = c3[x];
            }
            if (!frame->keeps_cmyk) ct_jpeg_cmyk_to_rgb(out, width, frame->inverted_cmyk);
            break;
        default: /* JCS_YCCK: libjpeg's ycck_cmyk_convert, then CMYK as above */
            for (uint32_t x = 0; x < width; x++) {
                uint8_t rgb[3];
                ct_dc_ycc_to_rgb(c0[x], c1[x], c2[x], rgb);
                out[4 * x] = (uint8_t)(255 - rgb[0]);
                out[4 * x + 1] = (uint8_t)(255 - rgb[1]);
                out[4 * x + 2] = (uint8_t)(255 - rgb[2]);
                out[4 * x + 3] = c3[x];
            }
            if (!frame->keeps_cmyk) ct_jpeg_cmyk_to_rgb(out, width, frame->inverted_cmyk);
            break;
        }
        ct_resampler_push_row(resampler, out);
    }
    ct_alloc_free(alloc, rows);
    return status;
}
