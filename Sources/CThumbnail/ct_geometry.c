/*
 * Sizes every decoder shares: the limits a header's size is checked
 * against, and the size of a thumbnail that fits a box (after EXIF
 * orientation, which swaps the sides of a transposed image).
 */
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

static int ct_orientation_transposes(uint8_t orientation) { return orientation >= 5 && orientation <= 8; }

void ct_thumbnail_size(uint32_t width, uint32_t height, uint8_t orientation, uint32_t max_width,
                       uint32_t max_height, uint32_t *out_width, uint32_t *out_height) {
    if (ct_orientation_transposes(orientation)) {
        ct_fit_size(height, width, max_width, max_height, out_height, out_width);
    } else {
        ct_fit_size(width, height, max_width, max_height, out_width, out_height);
    }
}
