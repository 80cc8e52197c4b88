/*
 * cthumbnail: decode a JPEG, PNG, WebP, GIF, AVIF, HEIC or JPEG XL straight to
 * a small RGBA8 thumbnail.
 *
 * The only code in the project that includes jpeglib.h, png.h, libwebp's
 * headers, gif_lib.h, avif.h, heif.h or libjxl's decode.h. The image is decoded and downscaled in one pass
 * (JPEG: DCT scaling, then an area filter fed scanline by scanline; PNG and
 * GIF: one row at a time into the same filter, a GIF's first frame only;
 * WebP: libwebp's own scaler, writing the thumbnail directly), so a
 * full-size bitmap never exists, except inside libwebp: a lossless WebP's
 * ARGB image, a lossy WebP's alpha plane (see
 * ct_image_info.whole_image_bytes_per_pixel). Peak memory is bounded by the
 * thumbnail, a few source rows and the library's own working memory, and
 * every decode reports the peak it reached. AVIF, HEIC and JPEG XL have no
 * scaled decode in their libraries, which keep whole frames (dav1d's YUV
 * picture, libheif's RGB planes, libjxl's float frame): those are computed
 * from the header and refused past the memory limit before decoding, and
 * their rows go into the same filter, so no RGBA frame of ours exists. A
 * HEIC's thumbnail item is decoded instead of the photo when it covers the
 * box. Each decoder's file states its bound.
 * A file that declares its colour space (an ICC profile, a PNG gAMA/cHRM) has
 * the finished thumbnail converted to sRGB with LittleCMS.
 *
 * Errors never unwind past this API: libjpeg/libpng's longjmp stays inside
 * the C functions (giflib returns codes), and every failure comes back as a ct_status with a
 * message in a ct_error.
 *
 * This header uses stdint types only, so Swift needs no image-library headers.
 */
#ifndef CTHUMBNAIL_H
#define CTHUMBNAIL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Outcome of every call. CT_OK is zero; everything else is a failure. */
typedef enum ct_status {
    CT_OK = 0,
    /** The bytes are not JPEG, PNG, WebP, GIF, AVIF, HEIC or JPEG XL (judged by magic bytes only). */
    CT_UNSUPPORTED_FORMAT = 1,
    /** The data is structurally invalid: bad marker, bad CRC in a critical chunk, bad zlib data, bad Huffman code. */
    CT_CORRUPT = 2,
    /** The data ends before the image does. Never a grey-filled picture. */
    CT_TRUNCATED = 3,
    /** Width, height, pixel count or working memory exceed the caller's limits. */
    CT_TOO_LARGE = 4,
    /** Valid but not supported by this build: 12-bit, lossless or arithmetic JPEG, for example. */
    CT_UNSUPPORTED_FEATURE = 5,
    /** An allocation failed. */
    CT_OUT_OF_MEMORY = 6,
    /** Reading the input file or writing output failed. */
    CT_IO_ERROR = 7,
    /** The cancel token was set while decoding. */
    CT_CANCELLED = 8,
    /** A caller error: NULL pointer, zero size, quality out of range. */
    CT_INVALID_ARGUMENT = 9
} ct_status;

/** Container format, sniffed from magic bytes. */
typedef enum ct_format {
    CT_FORMAT_UNKNOWN = 0,
    CT_FORMAT_JPEG = 1,
    CT_FORMAT_PNG = 2,
    CT_FORMAT_WEBP = 3,
    /** GIF87a or GIF89a; the first frame is decoded. */
    CT_FORMAT_GIF = 4,
    /** AVIF: an AV1 image (or the first frame of an AVIS sequence) in an ISO-BMFF file. */
    CT_FORMAT_AVIF = 5,
    /** HEIF with HEVC images (HEIC), as iPhones write them. */
    CT_FORMAT_HEIC = 6,
    /** JPEG XL, a bare codestream or in its ISO-BMFF container. */
    CT_FORMAT_JXL = 7
} ct_format;

/** A failure's status and a human message naming what is wrong. */
typedef struct ct_error {
    ct_status status;
    char message[256];
} ct_error;

/**
 * Limits checked against the header before anything proportional to the
 * image is allocated. Zero in any field means "no limit" for that field.
 */
typedef struct ct_limits {
    uint32_t max_width;
    uint32_t max_height;
    /** Maximum width × height of the source image (decompression bombs). */
    uint64_t max_pixels;
    /**
     * Maximum working memory a decode may allocate: the codec library's
     * (libjpeg's memory manager; libpng's allocations and chunk malloc limit;
     * giflib needs a fixed 26 KB or so) and the area filter's sums (16 bytes
     * a sample of a source row, or for interlaced PNG and GIF 8 bytes a
     * sample of the whole thumbnail), checked before they are allocated. The
     * thumbnail itself is not counted. A progressive JPEG's whole-image coefficient buffer that
     * does not fit is kept in an unlinked temporary file in $TMPDIR (or
     * /tmp) with a window of about 1 MiB per component in memory, so it
     * decodes within the limit at the cost of that file's I/O. libwebp's
     * whole-frame buffers (a lossless WebP's ARGB image, a lossy one's alpha
     * plane), with the WebP file held whole when read from disk, cannot be
     * bounded that way: they are computed from the header and refused as too
     * large, naming the bytes needed, before libwebp allocates them. The same
     * holds for libavif's and libheif's frames (see ct_avif_decode.c and
     * ct_heic_decode.c). JPEG XL is checked against max_jxl_decoder_memory.
     */
    uint64_t max_decoder_memory;
    /**
     * Maximum working memory of a JPEG XL decode, in place of
     * max_decoder_memory. libjxl 0.7 allocates with malloc and aborts the
     * process when an allocation fails, so its memory cannot be refused as it
     * grows: a decode is admitted by an upper bound of libjxl's memory
     * estimated from the header (see ct_jxl_decode.c), which for the costliest
     * kinds of file is large: 182 MiB for 1920x1080, 995 MiB for 12 MP.
     */
    uint64_t max_jxl_decoder_memory;
} ct_limits;

/**
 * The limits used when a caller has no opinion: 100 megapixels, 32 MiB working
 * memory, so that one decode of any image keeps a process near 64 MiB; 256
 * MiB for JPEG XL, which admits images up to about 2 megapixels.
 */
ct_limits ct_default_limits(void);

/**
 * A flag another thread can raise to stop a decode between scanline batches.
 * Create, share the pointer, cancel from anywhere, destroy when no decode uses it.
 */
typedef struct ct_cancel_token ct_cancel_token;
/** Returns NULL when out of memory. */
ct_cancel_token *ct_cancel_token_create(void);
/** Called with its context on the decoding thread at each checkpoint (see below). */
typedef void (*ct_checkpoint_observer)(void *context);
/**
 * Like ct_cancel_token_create, with an observer that a decode calls each time
 * it looks at the token (its checkpoints: every 32 PNG or GIF rows, each JPEG
 * scanline batch or absorbed row of blocks, each slice of WebP data handed
 * to libwebp), just before it reads the flag, so
 * the observer sees how far the decode has come and may cancel it there. The
 * observer and context never change; the caller keeps context valid until
 * the token is destroyed. Returns NULL when out of memory.
 */
ct_cancel_token *ct_cancel_token_create_observed(ct_checkpoint_observer observer, void *context);
/** Thread-safe; idempotent. */
void ct_cancel_token_cancel(ct_cancel_token *token);
/** Thread-safe. */
int ct_cancel_token_is_cancelled(const ct_cancel_token *token);
void ct_cancel_token_destroy(ct_cancel_token *token);

/** What the header says about an image. */
typedef struct ct_image_info {
    ct_format format;
    /** Size as stored, before EXIF orientation (a WebP's canvas). */
    uint32_t width;
    uint32_t height;
    /** EXIF orientation 1…8 (JPEG APP1, WebP EXIF chunk); 1 when absent, 0 or out of range. */
    uint8_t orientation;
    /**
     * 1 when the image has an alpha channel or transparency (PNG tRNS; a
     * WebP animation whose first frame leaves part of the canvas empty; a GIF
     * whose first frame has a transparent index or leaves part of the screen uncovered).
     */
    uint8_t has_alpha;
    /** 1 for progressive JPEG, Adam7-interlaced PNG or an interlaced first GIF frame. */
    uint8_t progressive;
    /** Colour components in the file: 1 gray, 2 gray+alpha, 3 colour, 4 CMYK/RGBA (GIF: 4 with alpha, else 3). */
    uint8_t components;
    /**
     * Bits per sample as stored (JPEG 8 or 12; PNG 1, 2, 4, 8 or 16; WebP 8;
     * GIF: bits per index of the first frame's palette, 1…8, and 8 when it has none).
     */
    uint8_t bit_depth;
    /**
     * Bytes per pixel of the buffers as large as the whole image that the
     * codec library keeps whatever the thumbnail's size: 4 for a lossless
     * WebP (libwebp's ARGB image); for a lossy WebP with alpha, 1 (the alpha
     * plane) or 5 when the alpha is compressed losslessly (its stream may
     * need an ARGB image of its own); 0 where decoding runs a few rows at a
     * time. A progressive JPEG's coefficient buffer depends on the DCT scale
     * and is not counted here.
     */
    uint8_t whole_image_bytes_per_pixel;
    /**
     * The bytes of whole-image buffers that do not come to a whole number per
     * pixel, known from the header: what dav1d and libavif keep for an AVIF
     * (its YUV pictures, about 1.5 bytes a pixel for 8-bit 4:2:0, and their
     * state), libheif and libde265 for a HEIC's primary image (its RGB planes,
     * 3 bytes a pixel at 8 bits, and the decode before them), libjxl for a JPEG
     * XL (its frame). 0 where whole_image_bytes_per_pixel says it all.
     */
    uint64_t whole_image_bytes;
} ct_image_info;

/** What a decode asks for. */
typedef struct ct_decode_options {
    /**
     * The box the thumbnail must fit in (or, with fill below, fill), after
     * orientation. The aspect ratio is kept, each side is at least 1 px and an
     * image is never upscaled. Zero in a dimension means unbounded there (0×0
     * decodes at full size).
     */
    uint32_t max_width;
    uint32_t max_height;
    ct_limits limits;
    /** Nonzero: rotate/flip the thumbnail by the EXIF orientation. */
    uint8_t apply_orientation;
    /**
     * Nonzero: a progressive JPEG decoded at a reduced DCT scale skips the scans
     * that scale cannot use. The output is identical to the full decode.
     */
    uint8_t progressive_scan_skipping;
    /**
     * Nonzero: a progressive Huffman JPEG decoded at 1/8 keeps one DC
     * coefficient per block instead of libjpeg's 64, decoding only its DC
     * scans; anything that path does not handle goes to libjpeg as before.
     * Luma matches libjpeg's 1/8 decode exactly; 4:2:0 chroma is interpolated
     * from its DC values (libjpeg reads AC terms for it).
     */
    uint8_t progressive_dc_decoding;
    /**
     * Nonzero: a YCbCr JPEG decodes its luma (Y) alone, into a gray thumbnail.
     * Other colour spaces, and PNGs, are unaffected.
     */
    uint8_t jpeg_luma_only;
    /**
     * Nonzero: a thumbnail whose file describes its colours (an embedded ICC
     * profile: JPEG APP2, PNG iCCP; a PNG gAMA/cHRM far from sRGB's) is
     * converted to sRGB with LittleCMS (relative colorimetric), once the
     * thumbnail is made, so the cost is per thumbnail, not per source pixel.
     * A profile that cannot be used leaves the pixels as decoded; see
     * ct_thumbnail.color. Zero: colour information is not even read.
     */
    uint8_t convert_to_srgb;
    /** May be NULL. Checked between scanline batches (WebP: between slices of data). */
    const ct_cancel_token *cancel;
    /**
     * Nonzero: fill the box instead of fitting in it. The picture (after
     * orientation) is scaled to cover the box, decoded at the smallest scale
     * that covers it (a JPEG's DCT scale is chosen for the cover size, not
     * the box), then its centre is cut out at exactly the box's size (see
     * ct_fill_size). The thumbnail buffer is the cover size until the crop,
     * at most box × the source's aspect ratio; the crop is done in place.
     * Ignored when max_width or max_height is zero (unbounded).
     */
    uint8_t fill;
} ct_decode_options;

/**
 * Options with a 256×256 box, default limits, orientation applied, scan
 * skipping, DC-only decoding and conversion to sRGB on.
 */
ct_decode_options ct_default_decode_options(void);

/** Which decoder read a JPEG's entropy data. */
typedef enum ct_jpeg_path {
    CT_JPEG_PATH_NONE = 0,
    /** libjpeg, every scan. */
    CT_JPEG_PATH_LIBJPEG = 1,
    /** libjpeg, with the progressive scans the scale cannot use left out. */
    CT_JPEG_PATH_SCAN_SKIPPING = 2,
    /** The DC-only decoder: a progressive file's DC scans, one coefficient per block. */
    CT_JPEG_PATH_DC_ONLY = 3
} ct_jpeg_path;

/** What became of the colour information a file carries. */
typedef enum ct_color_status {
    /** The file says nothing about its colours (or convert_to_srgb was off): taken as sRGB. */
    CT_COLOR_NONE = 0,
    /** The file says sRGB (a PNG sRGB chunk, or a profile equal to sRGB): nothing to convert. */
    CT_COLOR_SRGB = 1,
    /** The thumbnail was converted from the file's colour space to sRGB. */
    CT_COLOR_CONVERTED = 2,
    /** The colour information could not be used (see note): the pixels are as decoded. */
    CT_COLOR_IGNORED = 3
} ct_color_status;

/** The colour stage's outcome. Strings are NUL-terminated ASCII, cut to fit. */
typedef struct ct_color_report {
    ct_color_status status;
    /**
     * The profile's description (its desc tag), or what stood for one (a PNG
     * sRGB chunk, "PNG gAMA 1.00000"); empty when not known.
     */
    char profile[64];
    /** For CT_COLOR_IGNORED: why; empty otherwise. */
    char note[128];
} ct_color_report;

/** A decoded thumbnail and what making it cost. */
typedef struct ct_thumbnail {
    /**
     * width × height × 4 bytes of RGBA8, straight (not premultiplied) alpha,
     * rows top to bottom with no padding. Allocated with malloc: the caller
     * owns it and releases it with free() (or ct_thumbnail_free).
     */
    uint8_t *pixels;
    /** Thumbnail size, after orientation. */
    uint32_t width;
    uint32_t height;
    /** The source image's header facts. */
    ct_image_info source;
    /** JPEG DCT scale numerator M of M/8 that was decoded (1, 2, 4 or 8); 8 for the other formats. */
    uint8_t scale_numerator;
    /** How a JPEG's entropy data was decoded (CT_JPEG_PATH_NONE for the other formats). */
    ct_jpeg_path jpeg_path;
    /**
     * 1 when the thumbnail was made from a thumbnail the file carries (a HEIC's thumbnail
     * item, large enough for the box) instead of its primary image; 0 otherwise.
     */
    uint8_t embedded_thumbnail;
    /** What was done about the file's colour space. */
    ct_color_report color;
    /**
     * Peak bytes allocated during the decode: this module's buffers plus what
     * libjpeg/libpng and LittleCMS requested through their memory managers.
     * libwebp has no allocator hook: for WebP this counts the held file and
     * an estimate of libwebp's working memory (see ct_webp_decode.c for what
     * it covers). For GIF, giflib's blocks (decoder state, palettes) are
     * counted by their sizes, as giflib has no hooks either. libavif with
     * dav1d, libheif with libde265 and libjxl allocate with malloc: for
     * AVIF, HEIC and JPEG XL this counts our buffers and the libraries'
     * memory as estimated from the header (ct_avif_decode.c,
     * ct_heic_decode.c, ct_jxl_decode.c say what it covers).
     */
    uint64_t peak_bytes;
    /**
     * Empty when the image decoded cleanly. Otherwise the codec's first
     * complaint about an image that is whole (a JPEG that reaches its EOI
     * marker) but damaged where it was made: bad Huffman codes, a scan that
     * ends early, a missing scan. The thumbnail shows it as browsers do, the
     * damaged part grey. A file cut short fails with CT_TRUNCATED instead.
     */
    char damage[160];
} ct_thumbnail;

/**
 * How many bytes ct_sniff_format may look at: an ISO-BMFF file's `ftyp` box,
 * whose compatible brands tell AVIF from HEIC, fits in them as files are written.
 */
#define CT_SNIFF_BYTES 64

/**
 * Sniffs the format from the first bytes (at most CT_SNIFF_BYTES): magic
 * numbers, the JPEG XL signatures, an ISO-BMFF `ftyp` box's brands.
 */
ct_format ct_sniff_format(const uint8_t *data, size_t size);

/**
 * Reads only the header of an in-memory image. Applies the size limits, so a
 * hostile header fails here with CT_TOO_LARGE.
 */
ct_status ct_probe_memory(const uint8_t *data, size_t size, const ct_limits *limits,
                          ct_image_info *info, ct_error *error);

/**
 * Decodes an in-memory JPEG, PNG, WebP or GIF (its first frame) to a thumbnail. On success fills
 * *thumbnail (the caller owns thumbnail->pixels). On failure *thumbnail is
 * zeroed, nothing is left allocated, and *error says why.
 */
ct_status ct_decode_memory(const uint8_t *data, size_t size, const ct_decode_options *options,
                           ct_thumbnail *thumbnail, ct_error *error);

/**
 * Like ct_decode_memory, but streams the file at path through a small buffer,
 * so the compressed file never sits whole in memory either. The exception is
 * WebP: libwebp decodes from memory, so a WebP file is read whole into one
 * buffer (counted in peak_bytes and against limits.max_decoder_memory).
 * libavif and libheif read at the offsets they ask for and keep the coded
 * data of the image they decode; libjxl is fed 64 KiB at a time.
 */
ct_status ct_decode_file(const char *path, const ct_decode_options *options,
                         ct_thumbnail *thumbnail, ct_error *error);

/**
 * Like ct_decode_file, for the length bytes at offset in an open file (an
 * image inside a larger file, such as a cache entry). The descriptor stays
 * open and is only read, through a duplicate of its own.
 */
ct_status ct_decode_descriptor(int descriptor, uint64_t offset, uint64_t length, const ct_decode_options *options,
                               ct_thumbnail *thumbnail, ct_error *error);

/** Like ct_probe_memory, for the length bytes at offset in an open file (see ct_decode_descriptor). */
ct_status ct_probe_descriptor(int descriptor, uint64_t offset, uint64_t length, const ct_limits *limits,
                              ct_image_info *info, ct_error *error);

/** Frees thumbnail->pixels and zeroes the struct. Safe on a zeroed struct. */
void ct_thumbnail_free(ct_thumbnail *thumbnail);

/** Bytes produced by an encoder. data is malloc'd; free() it (or ct_buffer_free). */
typedef struct ct_buffer {
    uint8_t *data;
    size_t size;
} ct_buffer;

void ct_buffer_free(ct_buffer *buffer);

/**
 * Encodes width × height RGBA8 pixels (alpha ignored) as a baseline JPEG with
 * 4:2:0 subsampling at quality 1…100.
 */
ct_status ct_encode_jpeg(const uint8_t *rgba, uint32_t width, uint32_t height, int quality,
                         ct_buffer *output, ct_error *error);

/** Encodes width × height RGBA8 pixels as an 8-bit RGBA PNG (RGB when every alpha is 255). */
ct_status ct_encode_png(const uint8_t *rgba, uint32_t width, uint32_t height,
                        ct_buffer *output, ct_error *error);

/**
 * Encodes width × height RGBA8 pixels as a lossy WebP at quality 1…100, with
 * an alpha plane when any pixel is not opaque. Deterministic: equal pixels,
 * equal bytes.
 */
ct_status ct_encode_webp(const uint8_t *rgba, uint32_t width, uint32_t height, int quality,
                         ct_buffer *output, ct_error *error);

/**
 * The size an image of width × height takes when fitted into max_width ×
 * max_height (0 = unbounded): the aspect ratio kept (rounded to nearest),
 * never upscaled, each side at least 1. The decoders size thumbnails so.
 */
void ct_fit_size(uint32_t width, uint32_t height, uint32_t max_width, uint32_t max_height,
                 uint32_t *out_width, uint32_t *out_height);

/**
 * The size a picture of width × height is scaled to when it fills a box of
 * box_width × box_height: the smallest that covers the box, scale
 * max(box_width / width, box_height / height) rounded to nearest with neither
 * side short of the box. A source that would need upscaling keeps its size.
 * Zero in a box dimension (unbounded) also keeps the size.
 */
void ct_cover_size(uint32_t width, uint32_t height, uint32_t box_width, uint32_t box_height,
                   uint32_t *out_width, uint32_t *out_height);

/**
 * The size of a thumbnail that fills a box of box_width × box_height from a
 * picture of width × height (after orientation): exactly the box, cut from
 * the centre of the ct_cover_size picture, the extra pixel of an odd excess
 * cut on the right (bottom). A source too small to cover the box is never
 * upscaled: it gives the largest centred crop of itself with the box's
 * aspect ratio (rounded to nearest), at its own scale. With zero in a box
 * dimension this is ct_fit_size.
 */
void ct_fill_size(uint32_t width, uint32_t height, uint32_t box_width, uint32_t box_height,
                  uint32_t *out_width, uint32_t *out_height);

/**
 * Scales width × height RGBA8 pixels (straight alpha) down to exactly
 * dst_width × dst_height (each no larger than the source) with the decoders'
 * area filter. On success *output is a malloc'd dst_width × dst_height × 4
 * buffer the caller frees.
 */
ct_status ct_downscale_rgba(const uint8_t *rgba, uint32_t width, uint32_t height, uint32_t dst_width,
                            uint32_t dst_height, uint8_t **output, ct_error *error);

/** A static English name for a status ("corrupt", "truncated", …). */
const char *ct_status_name(ct_status status);

#ifdef __cplusplus
}
#endif

#endif /* CTHUMBNAIL_H */
