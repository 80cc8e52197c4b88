/* The public entry points: sniff the format, check limits, hand over to a decoder. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>

#include "ct_internal.h"

#define CT_UNRECOGNISED_MESSAGE "not a JPEG, PNG, WebP, GIF, AVIF, HEIC or JPEG XL image (unrecognised magic bytes)"

ct_limits ct_default_limits(void) {
    ct_limits limits = {
        .max_width = 0,
        .max_height = 0,
        .max_pixels = 100000000u,
        .max_decoder_memory = 32u * 1024u * 1024u,
        .max_jxl_decoder_memory = 256u * 1024u * 1024u,
    };
    return limits;
}

ct_decode_options ct_default_decode_options(void) {
    ct_decode_options options = {
        .max_width = 256,
        .max_height = 256,
        .limits = ct_default_limits(),
        .apply_orientation = 1,
        .progressive_scan_skipping = 1,
        .progressive_dc_decoding = 1,
        .convert_to_srgb = 1,
        .cancel = NULL,
    };
    return options;
}

/* Whether a brand (four characters) is one of a list of them, written one after another. */
static int ct_brand_in(const uint8_t *brand, const char *brands) {
    for (; *brands != '\0'; brands += 4)
        if (memcmp(brand, brands, 4) == 0) return 1;
    return 0;
}

/*
 * An ISO-BMFF file's `ftyp` box: its major brand and the compatible brands
 * that fit in the bytes given. AVIF wins over HEIC (an AVIF file may also name
 * the general `mif1`); a file that names only the general HEIF brands is taken
 * for HEIC, which libheif decodes.
 */
static ct_format ct_sniff_ftyp(const uint8_t *data, size_t size) {
    if (size < 12 || memcmp(data + 4, "ftyp", 4) != 0) return CT_FORMAT_UNKNOWN;
    uint32_t box = (uint32_t)data[0] << 24 | (uint32_t)data[1] << 16 | (uint32_t)data[2] << 8 | data[3];
    size_t end = box < size ? box : size;
    int heic = 0, heif = 0;
    for (size_t at = 8; at + 4 <= end; at += at == 8 ? 8 : 4) { /* the minor version after the major brand is no brand */
        if (ct_brand_in(data + at, "avifavis")) return CT_FORMAT_AVIF;
        heic |= ct_brand_in(data + at, "heicheixheimheishevchevx");
        heif |= ct_brand_in(data + at, "mif1msf1");
    }
    return heic || heif ? CT_FORMAT_HEIC : CT_FORMAT_UNKNOWN;
}

ct_format ct_sniff_format(const uint8_t *data, size_t size) {
    static const uint8_t png_signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1A, '\n'};
    static const uint8_t jxl_container[12] = {0, 0, 0, 0x0C, 'J', 'X', 'L', ' ', 0x0D, 0x0A, 0x87, 0x0A};
    if (data == NULL) return CT_FORMAT_UNKNOWN;
    if (size >= 3 && data[0] == 0xFF && data[1] == 0xD8 && data[2] == 0xFF) return CT_FORMAT_JPEG;
    if (size >= 8 && memcmp(data, png_signature, 8) == 0) return CT_FORMAT_PNG;
    if (size >= 12 && memcmp(data, "RIFF", 4) == 0 && memcmp(data + 8, "WEBP", 4) == 0) return CT_FORMAT_WEBP;
    if (size >= 6 && (memcmp(data, "GIF87a", 6) == 0 || memcmp(data, "GIF89a", 6) == 0)) return CT_FORMAT_GIF;
    if (size >= 2 && data[0] == 0xFF && data[1] == 0x0A) return CT_FORMAT_JXL;
    if (size >= 12 && memcmp(data, jxl_container, 12) == 0) return CT_FORMAT_JXL;
    return ct_sniff_ftyp(data, size);
}

void ct_thumbnail_free(ct_thumbnail *thumbnail) {
    if (thumbnail == NULL) return;
    free(thumbnail->pixels);
    memset(thumbnail, 0, sizeof *thumbnail);
}

/* Reads the first bytes to sniff the format, then rewinds. */
static ct_format ct_sniff_input(ct_input *input) {
    uint8_t magic[CT_SNIFF_BYTES];
    size_t got = ct_input_read(input, magic, sizeof magic);
    ct_format format = ct_sniff_format(magic, got);
    if (ct_input_seek(input, 0) != 0) return CT_FORMAT_UNKNOWN;
    return format;
}

static ct_status ct_decode_format(ct_input *input, const ct_decode_options *options, ct_thumbnail *thumbnail,
                                  ct_error *error) {
    switch (ct_sniff_input(input)) {
    case CT_FORMAT_JPEG: return ct_jpeg_decode(input, options, thumbnail, error);
    case CT_FORMAT_PNG: return ct_png_decode(input, options, thumbnail, error);
    case CT_FORMAT_WEBP: return ct_webp_decode(input, options, thumbnail, error);
    case CT_FORMAT_GIF: return ct_gif_decode(input, options, thumbnail, error);
    case CT_FORMAT_AVIF: return ct_avif_decode(input, options, thumbnail, error);
    case CT_FORMAT_HEIC: return ct_heic_decode(input, options, thumbnail, error);
    case CT_FORMAT_JXL: return ct_jxl_decode(input, options, thumbnail, error);
    case CT_FORMAT_UNKNOWN: break;
    }
    if (input->read_error) return ct_fail(error, CT_IO_ERROR, "could not read the input");
    return ct_fail(error, CT_UNSUPPORTED_FORMAT, CT_UNRECOGNISED_MESSAGE);
}

/* Every decoder leaves a fill at its (oriented) cover size; the crop to the box is the same for all. */
static ct_status ct_decode_input(ct_input *input, const ct_decode_options *options, ct_thumbnail *thumbnail,
                                 ct_error *error) {
    ct_status status = ct_decode_format(input, options, thumbnail, error);
    return status == CT_OK ? ct_crop_to_fill(options, thumbnail, error) : status;
}

ct_status ct_decode_memory(const uint8_t *data, size_t size, const ct_decode_options *options,
                           ct_thumbnail *thumbnail, ct_error *error) {
    if (thumbnail == NULL || options == NULL || (data == NULL && size != 0))
        return ct_fail(error, CT_INVALID_ARGUMENT, "ct_decode_memory: NULL argument");
    memset(thumbnail, 0, sizeof *thumbnail);
    if (error != NULL) memset(error, 0, sizeof *error);
    ct_input input;
    ct_input_from_memory(&input, data, size);
    return ct_decode_input(&input, options, thumbnail, error);
}

ct_status ct_decode_file(const char *path, const ct_decode_options *options, ct_thumbnail *thumbnail,
                         ct_error *error) {
    if (thumbnail == NULL || options == NULL || path == NULL)
        return ct_fail(error, CT_INVALID_ARGUMENT, "ct_decode_file: NULL argument");
    memset(thumbnail, 0, sizeof *thumbnail);
    if (error != NULL) memset(error, 0, sizeof *error);
    FILE *file = fopen(path, "rb");
    if (file == NULL) return ct_fail(error, CT_IO_ERROR, "cannot open %s: %s", path, strerror(errno));
    ct_input input;
    ct_input_from_file(&input, file, 0, UINT64_MAX);
    ct_status status = ct_decode_input(&input, options, thumbnail, error);
    fclose(file);
    return status;
}

/* A stream of its own on a duplicate of descriptor, so that fclose leaves the caller's open; NULL with errno set. */
static FILE *ct_open_descriptor(int descriptor) {
    int own = fcntl(descriptor, F_DUPFD_CLOEXEC, 0);
    if (own < 0) return NULL;
    FILE *file = fdopen(own, "rb");
    if (file == NULL) {
        int saved = errno;
        close(own);
        errno = saved;
    }
    return file;
}

ct_status ct_decode_descriptor(int descriptor, uint64_t offset, uint64_t length, const ct_decode_options *options,
                               ct_thumbnail *thumbnail, ct_error *error) {
    if (thumbnail == NULL || options == NULL || descriptor < 0)
        return ct_fail(error, CT_INVALID_ARGUMENT, "ct_decode_descriptor: invalid argument");
    memset(thumbnail, 0, sizeof *thumbnail);
    if (error != NULL) memset(error, 0, sizeof *error);
    FILE *file = ct_open_descriptor(descriptor);
    if (file == NULL) return ct_fail(error, CT_IO_ERROR, "cannot read the image file: %s", strerror(errno));
    ct_input input;
    ct_input_from_file(&input, file, offset, length);
    ct_status status = ct_input_seek(&input, 0) == 0
        ? ct_decode_input(&input, options, thumbnail, error)
        : ct_fail(error, CT_IO_ERROR, "cannot seek in the image file");
    fclose(file);
    return status;
}

ct_status ct_probe_memory(const uint8_t *data, size_t size, const ct_limits *limits, ct_image_info *info,
                          ct_error *error) {
    if (info == NULL || limits == NULL || (data == NULL && size != 0))
        return ct_fail(error, CT_INVALID_ARGUMENT, "ct_probe_memory: NULL argument");
    memset(info, 0, sizeof *info);
    ct_input input;
    ct_input_from_memory(&input, data, size);
    switch (ct_sniff_format(data, size)) {
    case CT_FORMAT_JPEG: return ct_jpeg_probe(&input, limits, info, error);
    case CT_FORMAT_PNG: return ct_png_probe(&input, limits, info, error);
    case CT_FORMAT_WEBP: return ct_webp_probe(&input, limits, info, error);
    case CT_FORMAT_GIF: return ct_gif_probe(&input, limits, info, error);
    case CT_FORMAT_AVIF: return ct_avif_probe(&input, limits, info, error);
    case CT_FORMAT_HEIC: return ct_heic_probe(&input, limits, info, error);
    case CT_FORMAT_JXL: return ct_jxl_probe(&input, limits, info, error);
    case CT_FORMAT_UNKNOWN: break;
    }
    return ct_fail(error, CT_UNSUPPORTED_FORMAT, CT_UNRECOGNISED_MESSAGE);
}

ct_status ct_probe_descriptor(int descriptor, uint64_t offset, uint64_t length, const ct_limits *limits,
                              ct_image_info *info, ct_error *error) {
    if (info == NULL || limits == NULL || descriptor < 0)
        return ct_fail(error, CT_INVALID_ARGUMENT, "ct_probe_descriptor: invalid argument");
    memset(info, 0, sizeof *info);
    FILE *file = ct_open_descriptor(descriptor);
    if (file == NULL) return ct_fail(error, CT_IO_ERROR, "cannot read the image file: %s", strerror(errno));
    ct_input input;
    ct_input_from_file(&input, file, offset, length);
    ct_status status;
    switch (ct_input_seek(&input, 0) == 0 ? ct_sniff_input(&input) : CT_FORMAT_UNKNOWN) {
    case CT_FORMAT_JPEG: status = ct_jpeg_probe(&input, limits, info, error); break;
    case CT_FORMAT_PNG: status = ct_png_probe(&input, limits, info, error); break;
    case CT_FORMAT_WEBP: status = ct_webp_probe(&input, limits, info, error); break;
    case CT_FORMAT_GIF: status = ct_gif_probe(&input, limits, info, error); break;
    case CT_FORMAT_AVIF: status = ct_avif_probe(&input, limits, info, error); break;
    case CT_FORMAT_HEIC: status = ct_heic_probe(&input, limits, info, error); break;
    case CT_FORMAT_JXL: status = ct_jxl_probe(&input, limits, info, error); break;
    default:
        status = input.read_error ? ct_fail(error, CT_IO_ERROR, "could not read the input")
                                  : ct_fail(error, CT_UNSUPPORTED_FORMAT, CT_UNRECOGNISED_MESSAGE);
    }
    fclose(file);
    return status;
}
