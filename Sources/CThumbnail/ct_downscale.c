/* Downscaling pixels already decoded: one decode serving several sizes. */
#include <stdlib.h>
#include <string.h>

#include "ct_internal.h"

ct_status ct_downscale_rgba(const uint8_t *rgba, uint32_t width, uint32_t height, uint32_t dst_width,
                            uint32_t dst_height, uint8_t **output, ct_error *error) {
    if (error != NULL) memset(error, 0, sizeof *error);
    if (rgba == NULL || output == NULL)
        return ct_fail(error, CT_INVALID_ARGUMENT, "ct_downscale_rgba: NULL argument");
    *output = NULL;
    if (width == 0 || height == 0 || dst_width == 0 || dst_height == 0 || dst_width > width || dst_height > height)
        return ct_fail(error, CT_INVALID_ARGUMENT, "cannot scale %ux%u down to %ux%u", width, height, dst_width,
                       dst_height);
    uint8_t *pixels = malloc((size_t)dst_width * dst_height * 4);
    if (pixels == NULL) return ct_fail(error, CT_OUT_OF_MEMORY, "out of memory for a %ux%u thumbnail", dst_width, dst_height);
    ct_alloc alloc = {0, 0};
    ct_resampler resampler;
    ct_status status = ct_resampler_init(&resampler, &alloc, width, height, dst_width, dst_height, CT_LAYOUT_RGBA,
                                         pixels, error);
    if (status != CT_OK) {
        free(pixels);
        return status;
    }
    size_t stride = (size_t)width * 4;
    for (uint32_t y = 0; y < height; y++) ct_resampler_push_row(&resampler, rgba + y * stride);
    ct_resampler_free(&resampler);
    *output = pixels;
    return CT_OK;
}
