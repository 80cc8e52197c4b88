/*
 * Sizes every decoder shares: the limits a header's size is checked
 * against, the size of a thumbnail that fits a box, and for a fill the size
 * that covers the box and the centred crop taken from it (all after EXIF
 * orientation, which swaps the sides of a transposed image).
 */
#include <stdlib.h>
#include <string.h>

#include "ct_internal.h"

ct_status ct_check_limits(uint32_t width, uint32_t height, const ct_limits *limits, ct_error *error) {
    if (width == 0 || height == 0)
        return ct_fail(error, CT_CORRUPT, "image header gives a size of %ux%u", width, height);
    if (limits->max_width != 0 && width > limits->max_width)
        return ct_fail(error, CT_TOO_LARGE, "image is %u px wide; the limit is %u", width, limits->max_width);
    if (limits->max_height != 0 && height > limits->max_height)
        return ct_fail(error, CT_TOO_LARGE, "image is %u px high; the limit is %u", height, limits->max_height);
    uint64_t pixels = (uint64_t)width * height;
    if (limits->max_pixels != 0 && pixels > limits->max_pixels)
        return ct_fail(error, CT_TOO_LARGE, "image is %ux%u (%llu pixels); the limit is %llu pixels", width,
                       height, (unsigned long long)pixels, (unsigned long long)limits->max_pixels);
    return CT_OK;
}

void ct_fit_size(uint32_t width, uint32_t height, uint32_t max_width, uint32_t max_height,
                 uint32_t *out_width, uint32_t *out_height) {
    uint64_t w = width, h = height;
    uint64_t box_w = max_width == 0 ? w : max_width;
    uint64_t box_h = max_height == 0 ? h : max_height;
    if (w <= box_w && h <= box_h) {
        *out_width = width;
        *out_height = height;
        return;
    }
    uint64_t fit_w, fit_h;
    if (box_w * h <= box_h * w) { /* width is the binding side */
        fit_w = box_w;
        fit_h = (2 * h * box_w + w) / (2 * w);
    } else {
        fit_h = box_h;
        fit_w = (2 * w * box_h + h) / (2 * h);
    }
    if (fit_w < 1) fit_w = 1;
    if (fit_h < 1) fit_h = 1;
    if (fit_w > box_w) fit_w = box_w;
    if (fit_h > box_h) fit_h = box_h;
    *out_width = (uint32_t)fit_w;
    *out_height = (uint32_t)fit_h;
}

void ct_cover_size(uint32_t width, uint32_t height, uint32_t box_width, uint32_t box_height,
                   uint32_t *out_width, uint32_t *out_height) {
    uint64_t w = width, h = height, box_w = box_width, box_h = box_height;
    /* Covering needs a scale of max(box_w / w, box_h / h); at 1 or more that is an upscale, which never happens. */
    if (box_w == 0 || box_h == 0 || box_w >= w || box_h >= h) {
        *out_width = width;
        *out_height = height;
        return;
    }
    uint64_t cover_w, cover_h;
    if (box_w * h >= box_h * w) { /* width is the binding side: box_w / w is the larger scale */
        cover_w = box_w;
        cover_h = (2 * h * box_w + w) / (2 * w);
    } else {
        cover_h = box_h;
        cover_w = (2 * w * box_h + h) / (2 * h);
    }
    /* Rounding to nearest must not leave the other side short of the box. */
    if (cover_w < box_w) cover_w = box_w;
    if (cover_h < box_h) cover_h = box_h;
    *out_width = (uint32_t)cover_w;
    *out_height = (uint32_t)cover_h;
}

void ct_fill_size(uint32_t width, uint32_t height, uint32_t box_width, uint32_t box_height,
                  uint32_t *out_width, uint32_t *out_height) {
    if (box_width == 0 || box_height == 0) {
        ct_fit_size(width, height, box_width, box_height, out_width, out_height);
        return;
    }
    uint32_t cover_w, cover_h;
    ct_cover_size(width, height, box_width, box_height, &cover_w, &cover_h);
    /*
     * The box itself when the cover holds it (the usual case); a source too
     * small to cover it gives the largest rectangle of the box's shape inside
     * it, which is the box fitted into the source.
     */
    ct_fit_size(box_width, box_height, cover_w, cover_h, out_width, out_height);
}

static int ct_orientation_transposes(uint8_t orientation) { return orientation >= 5 && orientation <= 8; }

void ct_thumbnail_size(uint32_t width, uint32_t height, uint8_t orientation, const ct_decode_options *options,
                       uint32_t *out_width, uint32_t *out_height) {
    void (*size)(uint32_t, uint32_t, uint32_t, uint32_t, uint32_t *, uint32_t *) =
        options->fill && options->max_width != 0 && options->max_height != 0 ? ct_cover_size : ct_fit_size;
    if (ct_orientation_transposes(orientation)) {
        size(height, width, options->max_width, options->max_height, out_height, out_width);
    } else {
        size(width, height, options->max_width, options->max_height, out_width, out_height);
    }
}

ct_status ct_crop_to_fill(const ct_decode_options *options, ct_thumbnail *thumbnail, ct_error *error) {
    if (!options->fill || options->max_width == 0 || options->max_height == 0) return CT_OK;
    uint32_t crop_w, crop_h;
    ct_fill_size(thumbnail->width, thumbnail->height, options->max_width, options->max_height, &crop_w, &crop_h);
    if (crop_w == thumbnail->width && crop_h == thumbnail->height) return CT_OK;
    /* Centred; an odd excess leaves the extra pixel cut on the right (bottom) side. */
    size_t left = (thumbnail->width - crop_w) / 2, top = (thumbnail->height - crop_h) / 2;
    size_t source_row = (size_t)thumbnail->width * 4, row = (size_t)crop_w * 4;
    /*
     * In place, row by row from the top: each destination starts at or before
     * its source (row <= source_row, left and top >= 0), so memmove never
     * overwrites a row still to be read and no second buffer is needed.
     */
    for (size_t y = 0; y < crop_h; y++)
        memmove(thumbnail->pixels + y * row, thumbnail->pixels + (y + top) * source_row + left * 4, row);
    uint8_t *shrunk = realloc(thumbnail->pixels, row * crop_h);
    if (shrunk == NULL) {
        ct_thumbnail_free(thumbnail);
        return ct_fail(error, CT_OUT_OF_MEMORY, "out of memory cropping the thumbnail to its box");
    }
    thumbnail->pixels = shrunk;
    thumbnail->width = crop_w;
    thumbnail->height = crop_h;
    return CT_OK;
}
