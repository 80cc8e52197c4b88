/*
 * The thumbnail WebP encoder: RGBA8 in, lossy WebP out (the alpha plane kept,
 * losslessly compressed, when any pixel is not opaque; dropped otherwise).
 *
 * libwebp's advanced API with a fixed configuration: method 4 (its default
 * speed/size trade-off), one thread, so equal pixels always give equal bytes,
 * which the server's ETags rely on. The output goes through a
 * WebPMemoryWriter and is copied into a malloc'd buffer of its exact size, so
 * the caller frees it like every other ct_buffer.
 */
#include <stdlib.h>
#include <string.h>
#include <webp/encode.h>

#include "ct_internal.h"

static int ct_has_transparency(const uint8_t *rgba, uint32_t width, uint32_t height) {
    size_t count = (size_t)width * height;
    for (size_t i = 0; i < count; i++)
        if (rgba[i * 4 + 3] != 255) return 1;
    return 0;
}

ct_status ct_encode_webp(const uint8_t *rgba, uint32_t width, uint32_t height, int quality, ct_buffer *output,
                         ct_error *error) {
    if (output != NULL) memset(output, 0, sizeof *output);
    if (rgba == NULL || output == NULL)
        return ct_fail(error, CT_INVALID_ARGUMENT, "ct_encode_webp: NULL argument");
    if (width == 0 || height == 0 || width > WEBP_MAX_DIMENSION || height > WEBP_MAX_DIMENSION)
        return ct_fail(error, CT_INVALID_ARGUMENT, "ct_encode_webp: cannot encode a %ux%u image", width, height);

    WebPConfig config;
    WebPPicture picture;
    if (!WebPConfigPreset(&config, WEBP_PRESET_DEFAULT, (float)(quality < 1 ? 1 : quality > 100 ? 100 : quality)) ||
        !WebPPictureInit(&picture))
        return ct_fail(error, CT_INVALID_ARGUMENT, "ct_encode_webp: libwebp version mismatch");
    config.method = 4;
    config.thread_level = 0;
    picture.use_argb = 0;
    picture.width = (int)width;
    picture.height = (int)height;
    int imported = ct_has_transparency(rgba, width, height)
                       ? WebPPictureImportRGBA(&picture, rgba, (int)width * 4)
                       : WebPPictureImportRGBX(&picture, rgba, (int)width * 4);
    if (!imported) {
        WebPPictureFree(&picture);
        return ct_fail(error, CT_OUT_OF_MEMORY, "cannot allocate a %ux%u WebP picture", width, height);
    }
    WebPMemoryWriter writer;
    WebPMemoryWriterInit(&writer);
    picture.writer = WebPMemoryWrite;
    picture.custom_ptr = &writer;
    int encoded = WebPEncode(&config, &picture);
    WebPEncodingError reason = picture.error_code;
    WebPPictureFree(&picture);
    if (!encoded) {
        WebPMemoryWriterClear(&writer);
        return ct_fail(error, reason == VP8_ENC_ERROR_OUT_OF_MEMORY ? CT_OUT_OF_MEMORY : CT_INVALID_ARGUMENT,
                       "WebP encoder: error %d", (int)reason);
    }
    output->data = malloc(writer.size);
    if (output->data == NULL) {
        WebPMemoryWriterClear(&writer);
        return ct_fail(error, CT_OUT_OF_MEMORY, "cannot allocate %zu bytes for a WebP thumbnail", writer.size);
    }
    memcpy(output->data, writer.mem, writer.size);
    output->size = writer.size;
    WebPMemoryWriterClear(&writer);
    return CT_OK;
}
