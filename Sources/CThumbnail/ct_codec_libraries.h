/*
 * libavif, libheif and libjxl, opened the first time an image needs them
 * (see lazy_library.h). Linked, they would be mapped by every process that
 * makes a thumbnail, with the thirteen libraries they bring (dav1d, aom,
 * rav1e, x265, libde265, highway, brotli…): 4.4 MB more resident for a
 * server that may never see one of these formats. Types and constants come
 * from their headers as usual; calls go through a table, e.g.
 * ct_heif.heif_context_alloc(), filled by ct_*_load before a decoder runs.
 * Nothing may call these libraries directly: they are not linked.
 */
#ifndef CT_CODEC_LIBRARIES_H
#define CT_CODEC_LIBRARIES_H

#include <avif/avif.h>
#include <jxl/decode.h>
#include <jxl/version.h>
#include <libheif/heif.h>

#include "ct_internal.h"

/* Every function of each library the decoders call. */
#define CT_AVIF_FUNCTIONS(X)                                                                                     \
    X(avifDecoderCreate) X(avifDecoderDestroy) X(avifDecoderSetIO) X(avifDecoderParse) X(avifDecoderNextImage)   \
    X(avifDecoderNthImageMaxExtent) X(avifCropRectConvertCleanApertureBox) X(avifResultToString)                 \
    X(avifPixelFormatToString)

#define CT_HEIF_FUNCTIONS(X)                                                                                     \
    X(heif_context_alloc) X(heif_context_free) X(heif_context_set_maximum_image_size_limit)                      \
    X(heif_context_set_max_decoding_threads) X(heif_context_read_from_reader)                                    \
    X(heif_context_get_primary_image_handle) X(heif_context_get_primary_image_ID)                                \
    X(heif_image_handle_get_thumbnail) X(heif_image_handle_release) X(heif_image_handle_has_alpha_channel)       \
    X(heif_image_handle_is_premultiplied_alpha) X(heif_image_handle_get_luma_bits_per_pixel)                     \
    X(heif_image_handle_get_color_profile_type) X(heif_image_handle_get_raw_color_profile_size)                  \
    X(heif_image_handle_get_raw_color_profile) X(heif_image_handle_get_nclx_color_profile)                       \
    X(heif_nclx_color_profile_free) X(heif_decoding_options_alloc) X(heif_decoding_options_free)                 \
    X(heif_decode_image) X(heif_image_release) X(heif_image_has_channel) X(heif_image_get_width)                 \
    X(heif_image_get_height) X(heif_image_get_plane_readonly) X(heif_image_get_bits_per_pixel)                   \
    X(heif_image_get_bits_per_pixel_range) X(heif_image_get_nclx_color_profile)                                  \
    X(heif_image_get_decoding_warnings)

#define CT_JXL_FUNCTIONS(X)                                                                                      \
    X(JxlDecoderCreate) X(JxlDecoderDestroy) X(JxlDecoderSubscribeEvents) X(JxlDecoderSetKeepOrientation)        \
    X(JxlDecoderSetUnpremultiplyAlpha) X(JxlDecoderSetPreferredColorProfile) X(JxlDecoderSetImageOutCallback)    \
    X(JxlDecoderSetInput) X(JxlDecoderReleaseInput) X(JxlDecoderCloseInput) X(JxlDecoderProcessInput)            \
    X(JxlDecoderGetBasicInfo) X(JxlDecoderGetExtraChannelInfo) X(JxlDecoderGetColorAsEncodedProfile)             \
    X(JxlDecoderGetICCProfileSize) X(JxlDecoderGetColorAsICCProfile)

/* A field of a table: the function under its own name, with the type its library's header declares. */
#define CT_CODEC_FUNCTION(name) __typeof__(&name) name;

typedef struct ct_avif_functions {
    CT_AVIF_FUNCTIONS(CT_CODEC_FUNCTION)
} ct_avif_functions;

typedef struct ct_heif_functions {
    CT_HEIF_FUNCTIONS(CT_CODEC_FUNCTION)
} ct_heif_functions;

typedef struct ct_jxl_functions {
    CT_JXL_FUNCTIONS(CT_CODEC_FUNCTION)
} ct_jxl_functions;

/*
 * The tables. Each is written once, by the first successful ct_*_load, under
 * the library's lock; a decoder reads it only after its own ct_*_load has
 * returned CT_OK, which took that lock too, so the reads see the writes.
 */
extern ct_avif_functions ct_avif;
extern ct_heif_functions ct_heif;
extern ct_jxl_functions ct_jxl;

/*
 * Opens the library on the first call (later calls give the first call's
 * answer): CT_OK, or CT_UNSUPPORTED_FORMAT with a message naming the file and
 * why it could not be loaded. Thread-safe.
 */
ct_status ct_avif_load(ct_error *error);
ct_status ct_heif_load(ct_error *error);
ct_status ct_jxl_load(ct_error *error);

#endif /* CT_CODEC_LIBRARIES_H */
