/* The thumbnail the row-by-row decoders (PNG, GIF) fill, and how they hand it over. */
#include <stdlib.h>
#include <string.h>

#include "ct_internal.h"

ct_status ct_row_output_init(ct_row_output *output, ct_alloc *alloc, uint32_t src_width, uint32_t src_height,
                             int interlaced, ct_layout layout, uint32_t dst_width, uint32_t dst_height,
                             ct_error *error) {
    memset(output, 0, sizeof *output);
    output->pixel_bytes = (size_t)dst_width * dst_height * 4;
    /* Zeroed: at full size the sparse resampler writes only the pixels some row reaches; the rest stays transparent. */
    output->pixels = calloc(output->pixel_bytes, 1);
    if (output->pixels == NULL)
        return ct_fail(error, CT_OUT_OF_MEMORY, "out of memory for a %ux%u thumbnail", dst_width, dst_height);
    ct_alloc_note(alloc, (int64_t)output->pixel_bytes);
    if (interlaced)
        return ct_resampler_init_sparse(&output->resampler, alloc, src_width, src_height, dst_width, dst_height,
                                        layout, output->pixels, error);
    return ct_resampler_init(&output->resampler, alloc, src_width, src_height, dst_width, dst_height, layout,
                             output->pixels, error);
}

ct_status ct_row_output_deliver(ct_row_output *output, ct_alloc *alloc, ct_status status, const ct_error *failure,
                                ct_thumbnail *result, ct_thumbnail *thumbnail, ct_error *error) {
    ct_resampler_free(&output->resampler);
    if (status == CT_OK) {
        result->pixels = output->pixels;
        output->pixels = NULL; /* handed to the caller, still counted in the peak */
        result->scale_numerator = 8;
        result->peak_bytes = alloc->peak;
        *thumbnail = *result;
        return CT_OK;
    }
    if (output->pixels != NULL) {
        free(output->pixels);
        ct_alloc_note(alloc, -(int64_t)output->pixel_bytes);
        output->pixels = NULL;
    }
    memset(thumbnail, 0, sizeof *thumbnail);
    if (error != NULL) *error = *failure;
    return status;
}
