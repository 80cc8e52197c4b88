/*
 * YUV rows to RGBA8: the pictures AV1 and HEVC decoders hand out (ct_yuv_frame)
 * turned into rows for the area filter, one row at a time, so no RGB frame
 * ever exists.
 *
 * The arithmetic is ITU-T H.273's: luma and chroma normalised by the range
 * (full: 0…2^d−1; limited: 16…235 and 16…240 scaled by 2^(d−8)), then the
 * matrix's Kr/Kb equations, the result scaled to 0…255 and rounded, so deeper
 * samples are reduced to 8 bits in the same step. It runs in 32-bit fixed
 * point with CT_YUV_SHIFT fraction bits: the largest intermediate (a 16-bit
 * limited-range sample, before clamping) stays under 600 · 2^21, inside an
 * int32_t, and the coefficients' own rounding adds at most a quarter of an
 * output step (weighted chroma reaches 2^19, a coefficient is off by at
 * most 2^-22) to the final rounding.
 *
 * Subsampled chroma is upsampled bilinearly with the chroma samples centred
 * between the luma samples they cover (weights 3/4 and 1/4 in each
 * subsampled direction, edge samples repeated), which is what libavif does
 * by default (its own "bilinear" and libyuv's kFilterBilinear both work so),
 * so thumbnails match avifdec's output. Both weights' sums are folded into
 * the coefficients, so chroma is never divided.
 *
 * A row goes in stretches of CT_YUV_STRETCH pixels through arrays on the
 * stack (about 10 KB): the chroma rows blended vertically, then per pixel
 * horizontally, then the three channels, then interleaved. Each step is a
 * plain loop compilers vectorize: with clang -O2, 8-bit 4:2:0 takes about
 * 3 ns a pixel on an EPYC core, where one loop doing it all took 9.
 */
#include <string.h>

#include "ct_internal.h"

#define CT_YUV_SHIFT 21
/* Pixels converted per stretch (even, so a stretch starts on a chroma column of 4:2:0 and 4:2:2). */
#define CT_YUV_STRETCH 512u

/* Per-frame constants, in CT_YUV_SHIFT fixed point, output scale 0…255. */
typedef struct ct_yuv_coefficients {
    int32_t luma;          /* per luma step */
    int32_t luma_bias;     /* −luma offset · luma, plus the rounding half */
    int32_t chroma_offset; /* a chroma sample's zero, times the upsampling weights' sum */
    int32_t r_v, g_u, g_v, b_u; /* per (weighted) chroma step */
} ct_yuv_coefficients;

static int32_t ct_yuv_fixed(double value) {
    double scaled = value * (double)(1 << CT_YUV_SHIFT);
    return (int32_t)(scaled < 0 ? scaled - 0.5 : scaled + 0.5);
}

/* Matrix equations' Kr and Kb (H.273 table 4). */
static void ct_yuv_matrix_constants(uint16_t matrix, double *kr, double *kb) {
    switch (matrix) {
    case 1: /* BT.709 */
        *kr = 0.2126;
        *kb = 0.0722;
        break;
    case 9: /* BT.2020 non-constant luminance */
    case 10: /* constant luminance: taken as non-constant, a close approximation for a thumbnail */
        *kr = 0.2627;
        *kb = 0.0593;
        break;
    default: /* BT.601 (5, 6) and everything this does not know, as libavif does for unspecified (2) */
        *kr = 0.299;
        *kb = 0.114;
        break;
    }
}

static void ct_yuv_coefficients_init(const ct_yuv_frame *frame, int32_t chroma_weight, ct_yuv_coefficients *c) {
    unsigned depth = frame->depth;
    double max = (double)((1u << depth) - 1u);
    double step = (double)(1u << (depth - 8));
    double luma_offset = frame->full_range ? 0.0 : 16.0 * step;
    double luma_range = frame->full_range ? max : 219.0 * step;
    double chroma_range = frame->full_range ? max : 224.0 * step;
    double kr, kb;
    ct_yuv_matrix_constants(frame->matrix, &kr, &kb);
    double kg = 1.0 - kr - kb;
    double chroma = 255.0 / (chroma_range * (double)chroma_weight);

    c->luma = ct_yuv_fixed(255.0 / luma_range);
    c->luma_bias = -(int32_t)luma_offset * c->luma + (1 << (CT_YUV_SHIFT - 1));
    c->chroma_offset = (int32_t)(1u << (depth - 1)) * chroma_weight;
    c->r_v = ct_yuv_fixed(2.0 * (1.0 - kr) * chroma);
    c->g_u = ct_yuv_fixed(2.0 * kb * (1.0 - kb) / kg * chroma);
    c->g_v = ct_yuv_fixed(2.0 * kr * (1.0 - kr) / kg * chroma);
    c->b_u = ct_yuv_fixed(2.0 * (1.0 - kb) * chroma);
}

/* Two selections, which compile to conditional moves: branches here are unpredictable in noisy pictures. */
static inline uint8_t ct_yuv_clamp(int32_t value) {
    const int32_t top = (256 << CT_YUV_SHIFT) - 1;
    value = value < 0 ? 0 : value;
    value = value > top ? top : value;
    return (uint8_t)(value >> CT_YUV_SHIFT);
}

static inline int32_t ct_yuv_sample(const uint8_t *row, int wide, uint32_t x) {
    return wide ? (int32_t)((const uint16_t *)(const void *)row)[x] : (int32_t)row[x];
}

/*
 * Chroma columns first…last of the row vertically blended for luma row y,
 * 3 · nearer + farther when rows are subsampled, else the sample itself;
 * columns outside the plane (one at most on either side) repeat its edge.
 */
static inline void ct_yuv_chroma_columns(const ct_yuv_frame *frame, int wide, uint32_t y, int64_t first,
                                         int64_t last, int32_t *u, int32_t *v) {
    uint32_t chroma_width = (frame->width + frame->chroma_shift_x) >> frame->chroma_shift_x;
    uint32_t chroma_height = (frame->height + frame->chroma_shift_y) >> frame->chroma_shift_y;
    uint32_t near_row = y >> frame->chroma_shift_y;
    /* Chroma row j sits between luma rows 2j and 2j+1: an even row's other neighbour is above, an odd row's below. */
    int64_t far = (y & 1) ? (int64_t)near_row + 1 : (int64_t)near_row - 1;
    uint32_t far_row = !frame->chroma_shift_y ? near_row
                       : far < 0              ? 0
                       : far >= chroma_height ? chroma_height - 1
                                              : (uint32_t)far;
    int32_t near_weight = frame->chroma_shift_y ? 3 : 1, far_weight = frame->chroma_shift_y ? 1 : 0;
    const uint8_t *near_u = frame->planes[1] + (size_t)near_row * frame->row_bytes[1];
    const uint8_t *near_v = frame->planes[2] + (size_t)near_row * frame->row_bytes[2];
    const uint8_t *far_u = frame->planes[1] + (size_t)far_row * frame->row_bytes[1];
    const uint8_t *far_v = frame->planes[2] + (size_t)far_row * frame->row_bytes[2];
    uint32_t from = first < 0 ? 0 : (uint32_t)first;
    uint32_t to = last >= chroma_width ? chroma_width - 1 : (uint32_t)last;
    int32_t *inner_u = u + (from - first), *inner_v = v + (from - first);
    for (uint32_t x = from; x <= to; x++) {
        inner_u[x - from] = near_weight * ct_yuv_sample(near_u, wide, x) + far_weight * ct_yuv_sample(far_u, wide, x);
        inner_v[x - from] = near_weight * ct_yuv_sample(near_v, wide, x) + far_weight * ct_yuv_sample(far_v, wide, x);
    }
    if (first < 0) {
        u[0] = u[1];
        v[0] = v[1];
    }
    if (last > to) {
        u[last - first] = u[last - first - 1];
        v[last - first] = v[last - first - 1];
    }
}

/* The colour of row y, for 8-bit (wide 0) or 16-bit (wide 1) samples; inlined into each. */
static inline __attribute__((always_inline)) void ct_yuv_color_row(const ct_yuv_frame *frame, int wide, uint32_t y,
                                                                   uint8_t *rgba) {
    uint32_t shift_x = frame->chroma_shift_x;
    int32_t weight = (shift_x ? 4 : 1) * (frame->chroma_shift_y ? 4 : 1);
    ct_yuv_coefficients c;
    ct_yuv_coefficients_init(frame, weight, &c);
    /* In locals: the byte stores below may alias anything, so fields would be reloaded for every pixel. */
    const int32_t luma_scale = c.luma, luma_bias = c.luma_bias, r_v = c.r_v, g_u = c.g_u, g_v = c.g_v, b_u = c.b_u;
    const uint8_t *luma = frame->planes[0] + (size_t)y * frame->row_bytes[0];
    /* the stretch's chroma rows, with a column either side for the horizontal neighbours... */
    int32_t column_u[CT_YUV_STRETCH + 3], column_v[CT_YUV_STRETCH + 3];
    /* ...and upsampled to one value per pixel, less the chroma zero */
    int32_t u[CT_YUV_STRETCH], v[CT_YUV_STRETCH];
    uint8_t red[CT_YUV_STRETCH], green[CT_YUV_STRETCH], blue[CT_YUV_STRETCH];

    for (uint32_t start = 0; start < frame->width; start += CT_YUV_STRETCH) {
        uint32_t count = frame->width - start < CT_YUV_STRETCH ? frame->width - start : CT_YUV_STRETCH;
        int64_t first = (int64_t)(start >> shift_x) - 1;
        ct_yuv_chroma_columns(frame, wide, y, first, (int64_t)((start + count - 1) >> shift_x) + 1, column_u,
                              column_v);
        if (shift_x) {
            /*
             * Chroma column j sits between luma columns 2j and 2j+1, as for
             * rows; start is even, so pixel pair k has chroma column k + 1
             * of the stretch's (an odd count writes one spare value).
             */
            for (uint32_t k = 0; k < (count + 1) / 2; k++) {
                int32_t near_u = 3 * column_u[k + 1] - c.chroma_offset, near_v = 3 * column_v[k + 1] - c.chroma_offset;
                u[2 * k] = near_u + column_u[k];
                u[2 * k + 1] = near_u + column_u[k + 2];
                v[2 * k] = near_v + column_v[k];
                v[2 * k + 1] = near_v + column_v[k + 2];
            }
        } else {
            for (uint32_t i = 0; i < count; i++) {
                u[i] = column_u[i + 1] - c.chroma_offset;
                v[i] = column_v[i + 1] - c.chroma_offset;
            }
        }
        /* Channel by channel into planes, loops compilers vectorize, then interleaved. */
        for (uint32_t i = 0; i < count; i++) {
            int32_t base = ct_yuv_sample(luma, wide, start + i) * luma_scale + luma_bias;
            red[i] = ct_yuv_clamp(base + v[i] * r_v);
            green[i] = ct_yuv_clamp(base - u[i] * g_u - v[i] * g_v);
            blue[i] = ct_yuv_clamp(base + u[i] * b_u);
        }
        uint8_t *out = rgba + (size_t)start * 4;
        for (uint32_t i = 0; i < count; i++) {
            out[4 * i + 0] = red[i];
            out[4 * i + 1] = green[i];
            out[4 * i + 2] = blue[i];
            out[4 * i + 3] = 255;
        }
    }
}

/*
 * GBR stored as planes Y = G, U = B, V = R: each plane ranged like luma.
 * Only without subsampling (AV1 and HEVC allow no other); a subsampled
 * picture claiming it is taken as BT.601, so planes are never overrun.
 */
static void ct_yuv_identity_row(const ct_yuv_frame *frame, int wide, uint32_t y, uint8_t *rgba) {
    ct_yuv_coefficients c;
    ct_yuv_coefficients_init(frame, 1, &c);
    const uint8_t *g = frame->planes[0] + (size_t)y * frame->row_bytes[0];
    const uint8_t *b = frame->planes[1] + (size_t)y * frame->row_bytes[1];
    const uint8_t *r = frame->planes[2] + (size_t)y * frame->row_bytes[2];
    for (uint32_t x = 0; x < frame->width; x++) {
        rgba[4 * x + 0] = ct_yuv_clamp(ct_yuv_sample(r, wide, x) * c.luma + c.luma_bias);
        rgba[4 * x + 1] = ct_yuv_clamp(ct_yuv_sample(g, wide, x) * c.luma + c.luma_bias);
        rgba[4 * x + 2] = ct_yuv_clamp(ct_yuv_sample(b, wide, x) * c.luma + c.luma_bias);
        rgba[4 * x + 3] = 255;
    }
}

static void ct_yuv_gray_row(const ct_yuv_frame *frame, int wide, uint32_t y, uint8_t *rgba) {
    ct_yuv_coefficients c;
    ct_yuv_coefficients_init(frame, 1, &c);
    const uint8_t *luma = frame->planes[0] + (size_t)y * frame->row_bytes[0];
    for (uint32_t x = 0; x < frame->width; x++) {
        uint8_t value = ct_yuv_clamp(ct_yuv_sample(luma, wide, x) * c.luma + c.luma_bias);
        rgba[4 * x + 0] = value;
        rgba[4 * x + 1] = value;
        rgba[4 * x + 2] = value;
        rgba[4 * x + 3] = 255;
    }
}

static void ct_yuv_alpha_row(const ct_yuv_frame *frame, int wide, uint32_t y, uint8_t *rgba) {
    const uint8_t *alpha = frame->alpha + (size_t)y * frame->alpha_row_bytes;
    if (!wide && frame->alpha_full_range) {
        for (uint32_t x = 0; x < frame->width; x++) {
            rgba[4 * x + 3] = alpha[x];
        }
        return;
    }
    /* Limited-range alpha (16…235 scaled by depth) is stretched to 0…255, like luma. */
    ct_yuv_frame ranged = *frame;
    ranged.full_range = frame->alpha_full_range;
    ct_yuv_coefficients c;
    ct_yuv_coefficients_init(&ranged, 1, &c);
    for (uint32_t x = 0; x < frame->width; x++) {
        rgba[4 * x + 3] = ct_yuv_clamp(ct_yuv_sample(alpha, wide, x) * c.luma + c.luma_bias);
    }
}

void ct_yuv_row_to_rgba(const ct_yuv_frame *frame, uint32_t y, uint8_t *rgba) {
    int wide = frame->depth > 8;
    if (frame->monochrome) {
        ct_yuv_gray_row(frame, wide, y, rgba);
    } else if (frame->matrix == 0 && !frame->chroma_shift_x && !frame->chroma_shift_y) {
        ct_yuv_identity_row(frame, wide, y, rgba);
    } else if (wide) {
        ct_yuv_color_row(frame, 1, y, rgba);
    } else {
        ct_yuv_color_row(frame, 0, y, rgba);
    }
    if (frame->alpha) {
        ct_yuv_alpha_row(frame, wide, y, rgba);
    }
}
