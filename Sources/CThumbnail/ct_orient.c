/* Applies an EXIF orientation (2…8) to a finished RGBA8 thumbnail, and swaps it in for the decoders. */
#include <stdlib.h>
#include <string.h>

#include "ct_internal.h"

uint8_t *ct_orient(const uint8_t *pixels, uint32_t width, uint32_t height, uint8_t orientation,
                   uint32_t *out_width, uint32_t *out_height) {
    int transposes = orientation >= 5 && orientation <= 8;
    uint32_t ow = transposes ? height : width;
    uint32_t oh = transposes ? width : height;
    uint8_t *out = malloc((size_t)ow * oh * 4);
    if (out == NULL) return NULL;
    /* For every output pixel, the source pixel it shows, per EXIF 2.3 table. */
    for (uint32_t y = 0; y < oh; y++) {
        for (uint32_t x = 0; x < ow; x++) {
            uint32_t sx, sy;
            switch (orientation) {
            case 2: sx = width - 1 - x; sy = y; break;                /* mirrored horizontally */
            case 3: sx = width - 1 - x; sy = height - 1 - y; break;   /* rotated 180° */
            case 4: sx = x; sy = height - 1 - y; break;               /* mirrored vertically */
            case 5: sx = y; sy = x; break;                            /* transposed */
            case 6: sx = y; sy = height - 1 - x; break;               /* needs 90° clockwise */
            case 7: sx = width - 1 - y; sy = height - 1 - x; break;   /* transversed */
            case 8: sx = width - 1 - y; sy = x; break;                /* needs 90° counter-clockwise */
            default: sx = x; sy = y; break;
            }
            memcpy(out + ((size_t)y * ow + x) * 4, pixels + ((size_t)sy * width + sx) * 4, 4);
        }
    }
    *out_width = ow;
    *out_height = oh;
    return out;
}

ct_status ct_finish_orientation(ct_alloc *alloc, uint8_t **pixels, uint32_t *width, uint32_t *height,
                                uint8_t orientation, ct_error *error) {
    if (orientation < 2 || orientation > 8) return CT_OK;
    uint32_t oriented_width, oriented_height;
    uint8_t *oriented = ct_orient(*pixels, *width, *height, orientation, &oriented_width, &oriented_height);
    if (oriented == NULL) return ct_fail(error, CT_OUT_OF_MEMORY, "out of memory applying EXIF orientation");
    uint64_t bytes = (uint64_t)*width * *height * 4;
    ct_alloc_note(alloc, (int64_t)bytes);
    free(*pixels);
    ct_alloc_note(alloc, -(int64_t)bytes);
    *pixels = oriented;
    *width = oriented_width;
    *height = oriented_height;
    return CT_OK;
}
