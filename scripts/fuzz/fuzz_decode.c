/*
 * libFuzzer harness over the C decode module: every input is decoded from
 * memory with options drawn from its length, so one corpus exercises the
 * DCT scales, the area filter at many ratios, orientation, scan skipping and
 * the limits. Crashes, leaks, undefined behaviour and hangs are findings;
 * decode errors are not.
 */
#include <stdlib.h>
#include <string.h>

#include "cthumbnail.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const uint32_t boxes[] = {0, 1, 7, 32, 64, 256, 1000};
    ct_decode_options options = ct_default_decode_options();
    options.max_width = boxes[size % 7];
    options.max_height = boxes[(size / 7) % 7];
    options.apply_orientation = (size / 49) % 2 == 0;
    options.progressive_scan_skipping = (size / 98) % 2 == 0;
    /* Keep allocations small enough for the fuzzer's RSS limit. */
    options.limits.max_pixels = 16u * 1024 * 1024;
    options.limits.max_decoder_memory = 256u * 1024 * 1024;

    ct_thumbnail thumbnail;
    ct_error error;
    if (ct_decode_memory(data, size, &options, &thumbnail, &error) == CT_OK) {
        /* Touch every output byte so ASan/MSan see the whole buffer. */
        volatile uint8_t sum = 0;
        size_t bytes = (size_t)thumbnail.width * thumbnail.height * 4;
        for (size_t i = 0; i < bytes; i++) sum ^= thumbnail.pixels[i];
        (void)sum;
        ct_thumbnail_free(&thumbnail);
    }
    ct_image_info info;
    ct_limits limits = options.limits;
    (void)ct_probe_memory(data, size, &limits, &info, &error);
    return 0;
}
