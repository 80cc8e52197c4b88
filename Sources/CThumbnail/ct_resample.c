/*
 * The area filter every decoder feeds. Coordinates are kept in integer units
 * so that the weights are exact: a source column is dst_width units wide and
 * an output column src_width units wide (rows likewise), so every output
 * pixel collects a total weight of exactly src_width × src_height.
 */
#include <string.h>

#include "ct_internal.h"

#define CT_ALWAYS_INLINE static inline __attribute__((always_inline))

static int ct_is_identity(const ct_resampler *r) {
    return r->src_width == r->dst_width && r->src_height == r->dst_height;
}

/*
 * The functions below take the layout as a constant, so each is inlined
 * once per layout; `samples` is how many bytes (and sums) a pixel has.
 */
CT_ALWAYS_INLINE int ct_samples(int layout) { return layout == CT_LAYOUT_CMYK ? 4 : layout; }

/* Writes one source-layout pixel as RGBA8 (CMYK as its four inks), unchanged. */
CT_ALWAYS_INLINE void ct_copy_pixel(uint8_t *out, const uint8_t *in, int layout) {
    switch (layout) {
    case CT_LAYOUT_GRAY: out[0] = out[1] = out[2] = in[0]; out[3] = 255; break;
    case CT_LAYOUT_GRAY_ALPHA: out[0] = out[1] = out[2] = in[0]; out[3] = in[1]; break;
    case CT_LAYOUT_RGB: out[0] = in[0]; out[1] = in[1]; out[2] = in[2]; out[3] = 255; break;
    default: memcpy(out, in, 4); break;
    }
}

/* Turns one output pixel's weighted sums (total weight `total`) into RGBA8 (or CMYK). */
CT_ALWAYS_INLINE void ct_finish_pixel(uint8_t *out, const uint64_t *sum, int layout, uint64_t total) {
    uint64_t half = total / 2;
    switch (layout) {
    case CT_LAYOUT_CMYK:
        for (int c = 0; c < 4; c++) out[c] = (uint8_t)((sum[c] + half) / total);
        break;
    case CT_LAYOUT_GRAY:
        out[0] = out[1] = out[2] = (uint8_t)((sum[0] + half) / total);
        out[3] = 255;
        break;
    case CT_LAYOUT_RGB:
        out[0] = (uint8_t)((sum[0] + half) / total);
        out[1] = (uint8_t)((sum[1] + half) / total);
        out[2] = (uint8_t)((sum[2] + half) / total);
        out[3] = 255;
        break;
    case CT_LAYOUT_GRAY_ALPHA:
    case CT_LAYOUT_RGBA: {
        /* Colour sums are premultiplied (colour × alpha); alpha is the last sum. */
        uint64_t alpha_sum = sum[layout - 1];
        out[3] = (uint8_t)((alpha_sum + half) / total);
        if (alpha_sum == 0) {
            out[0] = out[1] = out[2] = 0;
        } else if (layout == CT_LAYOUT_GRAY_ALPHA) {
            out[0] = out[1] = out[2] = (uint8_t)((sum[0] + alpha_sum / 2) / alpha_sum);
        } else {
            out[0] = (uint8_t)((sum[0] + alpha_sum / 2) / alpha_sum);
            out[1] = (uint8_t)((sum[1] + alpha_sum / 2) / alpha_sum);
            out[2] = (uint8_t)((sum[2] + alpha_sum / 2) / alpha_sum);
        }
        break;
    }
    }
}

/* Adds weight × pixel (premultiplied where the layout has alpha) to sum. */
CT_ALWAYS_INLINE void ct_add_weighted(uint64_t *sum, const uint8_t *p, int layout, uint64_t weight) {
    switch (layout) {
    case CT_LAYOUT_GRAY:
    case CT_LAYOUT_RGB:
    case CT_LAYOUT_CMYK:
        for (int c = 0; c < ct_samples(layout); c++) sum[c] += weight * p[c];
        break;
    case CT_LAYOUT_GRAY_ALPHA: sum[0] += weight * p[0] * p[1]; sum[1] += weight * p[1]; break;
    default:
        sum[0] += weight * p[0] * p[3];
        sum[1] += weight * p[1] * p[3];
        sum[2] += weight * p[2] * p[3];
        sum[3] += weight * p[3];
        break;
    }
}

uint64_t ct_resampler_working_bytes(uint32_t src_width, uint32_t src_height, uint32_t dst_width,
                                    uint32_t dst_height, ct_layout layout, int sparse) {
    if (src_width == dst_width && src_height == dst_height) return 0;
    uint64_t samples = (uint64_t)ct_samples(layout);
    if (sparse)
        return (uint64_t)dst_width * dst_height * samples * sizeof(uint64_t) + (uint64_t)src_width * 2 * sizeof(uint32_t);
    return (uint64_t)src_width * samples * 2 * sizeof(uint64_t) + (uint64_t)dst_width * 4 * sizeof(uint32_t);
}

ct_status ct_resampler_check_limit(const char *decoder, uint64_t used, uint64_t limit, uint32_t src_width,
                                   uint32_t src_height, uint32_t dst_width, uint32_t dst_height, ct_layout layout,
                                   int sparse, ct_error *error) {
    uint64_t needed = used + ct_resampler_working_bytes(src_width, src_height, dst_width, dst_height, layout, sparse);
    if (limit != 0 && needed > limit) return ct_fail_memory_limit(error, decoder, needed, limit);
    return CT_OK;
}

/* The part both modes share: checks the sizes and records them. */
static ct_status ct_resampler_setup(ct_resampler *r, ct_alloc *alloc, uint32_t src_width, uint32_t src_height,
                                    uint32_t dst_width, uint32_t dst_height, ct_layout layout, uint8_t *dst,
                                    ct_error *error) {
    memset(r, 0, sizeof *r);
    if (dst_width == 0 || dst_height == 0 || dst_width > src_width || dst_height > src_height)
        return ct_fail(error, CT_INVALID_ARGUMENT, "resampler cannot map %ux%u to %ux%u", src_width, src_height,
                       dst_width, dst_height);
    r->alloc = alloc;
    r->src_width = src_width;
    r->src_height = src_height;
    r->dst_width = dst_width;
    r->dst_height = dst_height;
    r->layout = layout;
    r->dst = dst;
    return CT_OK;
}

ct_status ct_resampler_init(ct_resampler *r, ct_alloc *alloc, uint32_t src_width, uint32_t src_height,
                            uint32_t dst_width, uint32_t dst_height, ct_layout layout, uint8_t *dst,
                            ct_error *error) {
    ct_status status = ct_resampler_setup(r, alloc, src_width, src_height, dst_width, dst_height, layout, dst, error);
    if (status != CT_OK || ct_is_identity(r)) return status;

    size_t sums = (size_t)src_width * (size_t)ct_samples(layout);
    r->col_first = ct_alloc_bytes(alloc, sizeof(uint32_t) * dst_width);
    r->col_last = ct_alloc_bytes(alloc, sizeof(uint32_t) * dst_width);
    r->col_first_weight = ct_alloc_bytes(alloc, sizeof(uint32_t) * dst_width);
    r->col_last_weight = ct_alloc_bytes(alloc, sizeof(uint32_t) * dst_width);
    r->acc_current = ct_alloc_zeroed(alloc, sums, sizeof(uint64_t));
    r->acc_next = ct_alloc_zeroed(alloc, sums, sizeof(uint64_t));
    if (!r->col_first || !r->col_last || !r->col_first_weight || !r->col_last_weight || !r->acc_current || !r->acc_next) {
        ct_resampler_free(r);
        return ct_fail(error, CT_OUT_OF_MEMORY, "out of memory for the resampler");
    }
    uint64_t sw = src_width, dw = dst_width;
    for (uint32_t o = 0; o < dst_width; o++) {
        uint64_t start = o * sw, end = (o + 1) * sw;
        uint64_t first = start / dw, last = (end - 1) / dw;
        r->col_first[o] = (uint32_t)first;
        r->col_last[o] = (uint32_t)last;
        if (first == last) {
            r->col_first_weight[o] = (uint32_t)sw;
            r->col_last_weight[o] = 0;
        } else {
            r->col_first_weight[o] = (uint32_t)((first + 1) * dw - start);
            r->col_last_weight[o] = (uint32_t)(end - last * dw);
        }
    }
    return CT_OK;
}

/*
 * Adds one source row into source-width accumulators with the row's vertical
 * weight. This is the per-pixel work: one multiply-add per sample in a
 * straight loop the compiler vectorizes (premultiplying first where the
 * layout has alpha).
 */
CT_ALWAYS_INLINE void ct_accumulate_row(uint64_t *restrict sums, const uint8_t *restrict row, uint32_t width,
                                        int layout, uint64_t weight) {
    switch (layout) {
    case CT_LAYOUT_GRAY:
    case CT_LAYOUT_RGB:
    case CT_LAYOUT_CMYK:
        for (size_t i = 0; i < (size_t)width * (size_t)ct_samples(layout); i++) sums[i] += row[i] * weight;
        break;
    case CT_LAYOUT_GRAY_ALPHA:
        for (size_t x = 0; x < width; x++) {
            uint64_t alpha = row[2 * x + 1] * weight;
            sums[2 * x] += row[2 * x] * alpha;
            sums[2 * x + 1] += alpha;
        }
        break;
    default:
        for (size_t x = 0; x < width; x++) {
            uint64_t alpha = row[4 * x + 3] * weight;
            sums[4 * x] += row[4 * x] * alpha;
            sums[4 * x + 1] += row[4 * x + 1] * alpha;
            sums[4 * x + 2] += row[4 * x + 2] * alpha;
            sums[4 * x + 3] += alpha;
        }
        break;
    }
}

/* Reduces one output row's source-width sums horizontally and writes its pixels. */
CT_ALWAYS_INLINE void ct_emit_row(ct_resampler *r, const uint64_t *sums, int layout) {
    const int samples = ct_samples(layout);
    const uint64_t middle_weight = r->dst_width;
    const uint64_t total = (uint64_t)r->src_width * r->src_height;
    uint8_t *out = r->dst + (size_t)r->current_dst_row * r->dst_width * 4;
    for (uint32_t o = 0; o < r->dst_width; o++) {
        uint32_t first = r->col_first[o], last = r->col_last[o];
        uint64_t sum[4] = {0, 0, 0, 0};
        for (int c = 0; c < samples; c++) sum[c] = sums[(size_t)first * samples + c] * r->col_first_weight[o];
        if (last > first) {
            for (uint32_t x = first + 1; x < last; x++)
                for (int c = 0; c < samples; c++) sum[c] += sums[(size_t)x * samples + c] * middle_weight;
            for (int c = 0; c < samples; c++) sum[c] += sums[(size_t)last * samples + c] * r->col_last_weight[o];
        }
        ct_finish_pixel(out + (size_t)o * 4, sum, layout, total);
    }
}

CT_ALWAYS_INLINE void ct_push_row(ct_resampler *r, const uint8_t *row, int layout) {
    uint32_t y = r->next_src_row++;
    if (ct_is_identity(r)) {
        uint8_t *out = r->dst + (size_t)y * r->dst_width * 4;
        for (uint32_t x = 0; x < r->src_width; x++)
            ct_copy_pixel(out + (size_t)x * 4, row + (size_t)x * (size_t)ct_samples(layout), layout);
        return;
    }
    uint64_t sh = r->src_height, dh = r->dst_height;
    uint64_t row_start = y * dh, row_end = (y + 1) * dh;
    uint64_t output_end = ((uint64_t)r->current_dst_row + 1) * sh;
    uint64_t weight_current = (row_end < output_end ? row_end : output_end) - row_start;
    uint64_t weight_next = dh - weight_current;
    ct_accumulate_row(r->acc_current, row, r->src_width, layout, weight_current);
    if (weight_next > 0) ct_accumulate_row(r->acc_next, row, r->src_width, layout, weight_next);

    if (row_end >= output_end) {
        ct_emit_row(r, r->acc_current, layout);
        uint64_t *finished = r->acc_current;
        r->acc_current = r->acc_next;
        r->acc_next = finished;
        memset(r->acc_next, 0, (size_t)r->src_width * (size_t)ct_samples(layout) * sizeof(uint64_t));
        r->current_dst_row++;
    }
}

void ct_resampler_push_row(ct_resampler *r, const uint8_t *row) {
    if (r->next_src_row >= r->src_height) return;
    switch (r->layout) {
    case CT_LAYOUT_GRAY: ct_push_row(r, row, CT_LAYOUT_GRAY); break;
    case CT_LAYOUT_GRAY_ALPHA: ct_push_row(r, row, CT_LAYOUT_GRAY_ALPHA); break;
    case CT_LAYOUT_RGB: ct_push_row(r, row, CT_LAYOUT_RGB); break;
    case CT_LAYOUT_RGBA: ct_push_row(r, row, CT_LAYOUT_RGBA); break;
    case CT_LAYOUT_CMYK: ct_push_row(r, row, CT_LAYOUT_CMYK); break;
    }
}

/* ---- sparse (interlaced) mode ---- */

ct_status ct_resampler_init_sparse(ct_resampler *r, ct_alloc *alloc, uint32_t src_width, uint32_t src_height,
                                   uint32_t dst_width, uint32_t dst_height, ct_layout layout, uint8_t *dst,
                                   ct_error *error) {
    ct_status status = ct_resampler_setup(r, alloc, src_width, src_height, dst_width, dst_height, layout, dst, error);
    if (status != CT_OK || ct_is_identity(r)) return status;

    r->acc_all = ct_alloc_zeroed(alloc, (size_t)dst_width * dst_height * (size_t)ct_samples(layout), sizeof(uint64_t));
    r->col_split_target = ct_alloc_bytes(alloc, sizeof(uint32_t) * src_width);
    r->col_split_weight = ct_alloc_bytes(alloc, sizeof(uint32_t) * src_width);
    if (!r->acc_all || !r->col_split_target || !r->col_split_weight) {
        ct_resampler_free(r);
        return ct_fail(error, CT_OUT_OF_MEMORY, "out of memory for the interlaced resampler");
    }
    uint64_t sw = src_width, dw = dst_width;
    for (uint32_t x = 0; x < src_width; x++) {
        uint64_t target = (x * dw) / sw;
        uint64_t end = (x + 1) * dw, target_end = (target + 1) * sw;
        r->col_split_target[x] = (uint32_t)target;
        r->col_split_weight[x] = (uint32_t)((end < target_end ? end : target_end) - x * dw);
    }
    return CT_OK;
}

CT_ALWAYS_INLINE void ct_add_pixels(ct_resampler *r, uint32_t y, uint32_t first_column, uint32_t column_step,
                                    uint32_t count, const uint8_t *pixels, int layout) {
    const size_t samples = (size_t)ct_samples(layout);
    if (ct_is_identity(r)) {
        uint8_t *out = r->dst + (size_t)y * r->dst_width * 4;
        for (uint32_t i = 0; i < count; i++)
            ct_copy_pixel(out + ((size_t)first_column + (size_t)i * column_step) * 4, pixels + (size_t)i * samples,
                          layout);
        return;
    }
    uint64_t sh = r->src_height, dh = r->dst_height, dw = r->dst_width;
    uint64_t row_target = (y * dh) / sh;
    uint64_t row_end = (y + 1) * dh, target_end = (row_target + 1) * sh;
    uint64_t row_weight = (row_end < target_end ? row_end : target_end) - y * dh;
    uint64_t row_weights[2] = {row_weight, dh - row_weight};
    size_t row_stride = (size_t)r->dst_width * samples;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t x = first_column + i * column_step;
        const uint8_t *p = pixels + (size_t)i * samples;
        uint64_t column_weights[2] = {r->col_split_weight[x], dw - r->col_split_weight[x]};
        for (int dy = 0; dy < 2; dy++) {
            if (row_weights[dy] == 0) continue;
            uint64_t *row_sums = r->acc_all + (size_t)(row_target + dy) * row_stride;
            for (int dx = 0; dx < 2; dx++) {
                if (column_weights[dx] == 0) continue;
                uint64_t *sum = row_sums + ((size_t)r->col_split_target[x] + dx) * samples;
                ct_add_weighted(sum, p, layout, row_weights[dy] * column_weights[dx]);
            }
        }
    }
}

void ct_resampler_add_pixels(ct_resampler *r, uint32_t y, uint32_t first_column, uint32_t column_step,
                             uint32_t count, const uint8_t *pixels) {
    if (y >= r->src_height || count == 0) return;
    if (first_column + (uint64_t)(count - 1) * column_step >= r->src_width) return;
    switch (r->layout) {
    case CT_LAYOUT_GRAY: ct_add_pixels(r, y, first_column, column_step, count, pixels, CT_LAYOUT_GRAY); break;
    case CT_LAYOUT_GRAY_ALPHA: ct_add_pixels(r, y, first_column, column_step, count, pixels, CT_LAYOUT_GRAY_ALPHA); break;
    case CT_LAYOUT_RGB: ct_add_pixels(r, y, first_column, column_step, count, pixels, CT_LAYOUT_RGB); break;
    case CT_LAYOUT_RGBA: ct_add_pixels(r, y, first_column, column_step, count, pixels, CT_LAYOUT_RGBA); break;
    case CT_LAYOUT_CMYK: ct_add_pixels(r, y, first_column, column_step, count, pixels, CT_LAYOUT_CMYK); break;
    }
}

void ct_resampler_finish_sparse(ct_resampler *r) {
    if (ct_is_identity(r)) return;
    uint64_t total = (uint64_t)r->src_width * r->src_height;
    size_t samples = (size_t)ct_samples(r->layout);
    size_t pixels = (size_t)r->dst_width * r->dst_height;
    for (size_t i = 0; i < pixels; i++) {
        const uint64_t *sum = r->acc_all + i * samples;
        uint8_t *out = r->dst + i * 4;
        switch (r->layout) {
        case CT_LAYOUT_GRAY: ct_finish_pixel(out, sum, CT_LAYOUT_GRAY, total); break;
        case CT_LAYOUT_GRAY_ALPHA: ct_finish_pixel(out, sum, CT_LAYOUT_GRAY_ALPHA, total); break;
        case CT_LAYOUT_RGB: ct_finish_pixel(out, sum, CT_LAYOUT_RGB, total); break;
        case CT_LAYOUT_RGBA: ct_finish_pixel(out, sum, CT_LAYOUT_RGBA, total); break;
        case CT_LAYOUT_CMYK: ct_finish_pixel(out, sum, CT_LAYOUT_CMYK, total); break;
        }
    }
}

void ct_resampler_free(ct_resampler *r) {
    ct_alloc *alloc = r->alloc;
    if (alloc == NULL) return;
    ct_alloc_free(alloc, r->col_first);
    ct_alloc_free(alloc, r->col_last);
    ct_alloc_free(alloc, r->col_first_weight);
    ct_alloc_free(alloc, r->col_last_weight);
    ct_alloc_free(alloc, r->acc_current);
    ct_alloc_free(alloc, r->acc_next);
    ct_alloc_free(alloc, r->acc_all);
    ct_alloc_free(alloc, r->col_split_target);
    ct_alloc_free(alloc, r->col_split_weight);
    memset(r, 0, sizeof *r);
}
