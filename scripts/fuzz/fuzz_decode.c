/*
 * libFuzzer harness over the C decode module: every input is decoded from
 * memory with options drawn from its length, so one corpus exercises the
 * DCT scales, the area filter at many ratios, orientation, scan skipping,
 * the DC-only progressive path, the colour stage (ICC profiles, gAMA and
 * cHRM) and the limits. Half the inputs are decoded into a box of 1/8 of
 * their size (read from their header), the scale where the DC-only path
 * runs. Crashes, leaks, undefined behaviour and hangs are findings; decode
 * errors are not. At exit it says how many decodes each format and each
 * JPEG path completed, so a run shows it reached the format's decoder and
 * the DC-only path.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cthumbnail.h"

static unsigned long completed_by_path[4];
/* By ct_format: unknown, JPEG, PNG, WebP, GIF, AVIF, HEIC, JPEG XL. */
static unsigned long completed_by_format[8];

static void report_paths(void) {
    fprintf(stderr, "fuzz: decodes completed by format: jpeg %lu, png %lu, webp %lu, gif %lu, avif %lu, heic %lu, "
                    "jxl %lu\n",
            completed_by_format[1], completed_by_format[2], completed_by_format[3], completed_by_format[4],
            completed_by_format[5], completed_by_format[6], completed_by_format[7]);
    fprintf(stderr, "fuzz: JPEG decodes completed by path: libjpeg %lu, skipping-scans %lu, dc-only %lu\n",
            completed_by_path[CT_JPEG_PATH_LIBJPEG], completed_by_path[CT_JPEG_PATH_SCAN_SKIPPING],
            completed_by_path[CT_JPEG_PATH_DC_ONLY]);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    atexit(report_paths);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static const uint32_t boxes[] = {0, 1, 7, 32, 64, 256, 1000};
    ct_decode_options options = ct_default_decode_options();
    options.max_width = boxes[size % 7];
    options.max_height = boxes[(size / 7) % 7];
    options.apply_orientation = (size / 49) % 2 == 0;
    options.progressive_scan_skipping = (size / 98) % 4 != 0;
    options.progressive_dc_decoding = (size / 98) % 4 != 1;
    options.jpeg_luma_only = (size / 392) % 2 == 0;
    options.convert_to_srgb = (size / 784) % 4 != 0;
    /*
     * Keep allocations small enough for the fuzzer's RSS limit. A GIF or WebP
     * decodes every source pixel (a few bytes of LZW or VP8L can stand for
     * millions), so they get 256 kP: a fuzzer spends its time on code paths, not
     * on the size of one image.
     */
    ct_format format = ct_sniff_format(data, size);
    options.limits.max_pixels = format == CT_FORMAT_GIF || format == CT_FORMAT_WEBP ? 1u << 18 : 16u << 20;
    /* AV1 and HEVC decoders hold whole frames: kept to 4 MP so a run measures code paths, not memory. */
    if (format == CT_FORMAT_AVIF || format == CT_FORMAT_HEIC) options.limits.max_pixels = 4u << 20;
    /* libjxl renders every pixel of what a few bytes of a modular stream claim, as GIF and WebP do. */
    if (format == CT_FORMAT_JXL) options.limits.max_pixels = 1u << 18;
    /* A third of the inputs get a small limit: progressive JPEGs then spill their coefficients to a file. */
    options.limits.max_decoder_memory = size % 3 == 0 ? 512u * 1024 : 256u * 1024 * 1024;
    /* and JPEG XL its refusal by estimate (35 MiB is about the smallest image's). */
    options.limits.max_jxl_decoder_memory = size % 3 == 0 ? 40u * 1024 * 1024 : 256u * 1024 * 1024;

    ct_image_info info;
    ct_error error;
    if (size % 2 == 0 && ct_probe_memory(data, size, &options.limits, &info, &error) == CT_OK) {
        options.max_width = (info.width + 7) / 8; /* the 1/8 image: the DC-only path's scale */
        options.max_height = (info.height + 7) / 8;
    }
    ct_thumbnail thumbnail;
    if (ct_decode_memory(data, size, &options, &thumbnail, &error) == CT_OK) {
        /* Touch every output byte so ASan/MSan see the whole buffer. */
        volatile uint8_t sum = 0;
        size_t bytes = (size_t)thumbnail.width * thumbnail.height * 4;
        for (size_t i = 0; i < bytes; i++) sum ^= thumbnail.pixels[i];
        (void)sum;
        if (thumbnail.jpeg_path < 4) completed_by_path[thumbnail.jpeg_path]++;
        if (thumbnail.source.format < 8) completed_by_format[thumbnail.source.format]++;
        ct_thumbnail_free(&thumbnail);
    }
    ct_limits limits = options.limits;
    (void)ct_probe_memory(data, size, &limits, &info, &error);
    return 0;
}
