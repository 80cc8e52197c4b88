/*
 * HEIC header probe and HEIC-to-thumbnail decode with libheif 1.15 (HEVC by libde265).
 *
 * The cheap picture first. A HEIC file usually carries a thumbnail item (an
 * iPhone's is about 320×240; heif-enc -t writes one) beside its primary
 * image. The decode sizes the thumbnail from the primary, as for every other
 * format, then decodes the smallest thumbnail item that still covers that
 * size once both are shown upright, has the primary's aspect ratio (to
 * within the rounding of its size) and its alpha, instead of the primary:
 * for a 256 px thumbnail of a 12 or 24 megapixel photo, a 320 px HEVC
 * picture instead of the photo. ct_thumbnail's embedded_thumbnail says
 * which was decoded; the source facts (size, orientation, alpha, depth)
 * are always the primary's. The thumbnail item
 * is only as good as its writer made it: heif-enc's are scaled by nearest
 * neighbour, an iPhone's are filtered.
 *
 * Geometry. libheif 1.15 applies an item's transforms but does not say
 * what they are, and applying them would turn its full-size planes, so the
 * picture is decoded untransformed (ignore_transformations) and this file
 * reads the transforms itself, with a bounded walk through ct_input of the
 * boxes of the meta box it needs: pitm, iinf (item types), iloc (item data
 * sizes), iref (thumbnails, grid tiles, alpha and metadata items), ipma and
 * ipco (each item's ispe, hvcC, pixi, auxC, irot, imir and clap, in the
 * order the item lists them, which is the order they apply in). irot and
 * imir fold into one EXIF orientation 1…8 for ct_finish_orientation, so
 * apply_orientation works as for the other formats; clap becomes a crop of
 * the rows and columns fed to the area filter, placed as libheif places it
 * (on the decoded picture, with its rounding). imir follows libheif, Apple
 * and ISO/IEC 23008-12 Amd 2 (the byte is a "mode": 0 flips top and bottom,
 * 1 left and right), not the 2017 text's "axis" wording. An Exif
 * Orientation tag is ignored: HEIF makes irot/imir authoritative and Exif
 * orientation informative only (iPhones write both, consistently). A
 * thumbnail item is turned by its own transforms (usually the primary's),
 * so the result is the picture the primary would give.
 *
 * Pixels. libheif 1.15 turns every HEVC picture it decodes into planar RGB
 * (4:4:4) inside heif_decode_image, whatever colour space is asked for: a
 * YCbCr request is served by converting that RGB back to YCbCr, and a grid
 * is assembled in RGB. The native YCbCr planes are never handed out, so
 * this decoder asks for planar RGB (heif_colorspace_RGB, heif_chroma_444),
 * the one request that costs no further whole-image buffer, and feeds its
 * rows (with the alpha plane libheif attaches from the auxiliary alpha
 * image) to the area filter: 8-bit samples as they are, deeper ones scaled
 * to 8 bits, premultiplied alpha made straight. libheif converts YCbCr to
 * RGB with the item's nclx (colr box, else the HEVC stream's), as
 * heif-convert does. Damaged HEVC data decodes without complaint from
 * libde265; a warning libheif does report ends up in ct_thumbnail.damage.
 *
 * Colour. An ICC profile (colr 'prof' or 'rICC') goes to ct_color_to_srgb;
 * an nclx colr box to ct_color_gamma_to_srgb with its primaries as
 * chromaticities (BT.709 and unspecified primaries need nothing; the
 * BT.709, BT.601, BT.2020 and sRGB curves are taken as sRGB's; PQ and HLG
 * are left as decoded, with a note). The decoded item's colr first, else the
 * primary's, else the nclx of the HEVC stream.
 *
 * Memory. libheif and libde265 allocate with malloc and have no allocator
 * hook, so their memory is an estimate from the meta box's facts, checked
 * against limits.max_decoder_memory before libheif is given the file and
 * again before heif_decode_image, and counted in peak_bytes. It follows
 * what libheif 1.15 does, measured with a malloc-counting shim:
 *  - parsing keeps objects for the boxes (at most CT_HEIC_META_FACTOR times
 *    the meta box, CT_HEIC_BYTES_PER_BOX per top-level box) and reads every
 *    item's data once, keeping the metadata items' (Exif, XMP: the ones a
 *    'cdsc' reference attaches) and dropping the rest: K = those objects +
 *    the metadata + CT_HEIC_LIBRARY_BYTES for the contexts and small
 *    objects, plus the largest item while parsing;
 *  - one coded HEVC picture of w×h (the larger of its ispe and its SPS),
 *    with c chroma planes each 1/s of the luma (4:2:0 s = 4, 4:2:2 s = 2,
 *    4:4:4 s = 1; 4:0:0 has none), b bytes a sample (1 up to 8 bits, else
 *    2) and C bytes of item data, peaks at the larger of
 *        decoding:   2C + 2P + M   (libheif's copy of the data and
 *                    libde265's, its picture, the copy its SAO filter
 *                    writes, its per-block metadata)
 *        converting: C + Y + R     (libheif's YCbCr copy and its RGB)
 *    P = b·(w+64)(h+64)(1 + c/s), M = 3/2·(w+64)(h+64),
 *    Y = b·(w+16)·h·(1 + c/s) (4:0:0: 2.5·b·(w+16)·h, as libheif goes
 *    through a 4:2:0 copy), R = 3b·(w+16)·h;
 *  - a grid of W×H holds its RGB, G = 3b·(W+16)·H, while its tiles are
 *    decoded one at a time (the context decodes tiles on the calling
 *    thread): G + the largest tile's peak as above, which is the first
 *    tile's or that of any larger SPS in ipco, with the largest item's data;
 *  - an alpha image is decoded after the colour image, beside its RGB,
 *    without an RGB conversion (a grid alpha image is assembled in RGB
 *    too), and leaves one plane, b·(W+16)·H.
 * What stays once heif_decode_image returns, the RGB (and alpha) planes,
 * lives while the rows are read. whole_image_bytes reports the estimate for
 * the primary, parsing included, whether or not a decode uses a thumbnail
 * item. Our own memory is counted exactly: one RGBA row of the crop's
 * width w, the area filter's sums F (16 bytes a sample of a row: 3
 * samples, 4 with alpha), the thumbnail T = 4·tw·th, the ICC profile and
 * LittleCMS. With I the image's peak and H its planes as above, for the
 * image decoded (thumbnail item or primary):
 *     peak_bytes = max(K + largest item, K + I, K + H + 4w + F + T,
 *                      K + T + colour stage, 2T while orienting)
 * and the limit is checked on the same sums without the thumbnail. Known
 * gaps: HEVC parameter sets sent inside the item data rather than in the
 * hvcC could ask libde265 for a larger picture than the estimate; grid
 * tiles other than the first are taken to be no larger than the largest
 * hvcC SPS.
 *
 * Input. libheif reads through a heif_reader over ct_input, memory or file
 * alike, so a file is never held whole by this code (libheif reads each
 * item's data whole, see above). A file whose top-level boxes reach past
 * its end, or whose item data libheif finds past it, is truncated.
 *
 * Cancellation is seen before libheif parses the file, before it decodes
 * and every 32 rows fed to the filter. heif_decode_image cannot be
 * interrupted: libheif 1.15 has progress callbacks for grid tiles but no way
 * to stop from them.
 *
 * Only HEVC is read: a primary or thumbnail coded otherwise (AV1, JPEG,
 * uncompressed) or built as an overlay ('iovl') is refused as unsupported,
 * as the estimates are libde265's.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "ct_codec_libraries.h"

/* Rows between looks at the cancel token, as for PNG. */
#define CT_HEIC_CANCEL_INTERVAL 32
/* Properties kept per item: real items have under ten (hvcC, ispe, colr, pixi, irot, …). */
#define CT_HEIC_MAX_ASSOCIATIONS 32
/* Thumbnail items of the primary, and auxiliary items of an image, considered. */
#define CT_HEIC_MAX_THUMBNAILS 8
#define CT_HEIC_MAX_AUXILIARIES 8
/* Items looked up in one walk: an image, its first tile, its auxiliary candidates. */
#define CT_HEIC_MAX_LOOKUP (2 + CT_HEIC_MAX_AUXILIARIES)
#define CT_HEIC_FOURCC(a, b, c, d) ((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (uint32_t)(d))
/* hvcC absent: the chroma format is unknown and estimated as 4:4:4. */
#define CT_HEIC_CHROMA_UNKNOWN 0xFF
/*
 * libheif's parsed structures for the meta box: C++ objects of a few
 * hundred bytes for entries of a few bytes (an empty property box, an ipma
 * association, a 2-byte item reference). Measured: 19 times the box for a
 * 50-item grid file, 7 to 8 for files of two items; this allows 64. Every
 * top-level box becomes an object too.
 */
#define CT_HEIC_META_FACTOR 64u
#define CT_HEIC_BYTES_PER_BOX 256u
/* libde265's decoder context, libheif's context, handles and image objects (measured: about 80 KB). */
#define CT_HEIC_LIBRARY_BYTES (256u * 1024u)
/* libde265 pads its pictures to whole coding blocks of up to 64 samples; libheif's rows to 16 bytes. */
#define CT_HEIC_CODED_PADDING 64u
#define CT_HEIC_ROW_PADDING 16u

static const char ct_heic_alpha_urn_hevc[] = "urn:mpeg:hevc:2015:auxid:1";
static const char ct_heic_alpha_urn_avc[] = "urn:mpeg:avc:2015:auxid:1";
static const char ct_heic_alpha_urn_miaf[] = "urn:mpeg:mpegB:cicp:systems:auxiliary:alpha";

/* A box's payload: [start, end) of the input. */
typedef struct ct_heic_range {
    uint64_t start, end;
} ct_heic_range;

/* Sequential big-endian reads of one range of the input. */
typedef struct ct_heic_reader {
    ct_input *input;
    uint64_t position, end;
    /* a read went past `end` or the input: the structure is cut or wrong */
    int overrun;
} ct_heic_reader;

/* What the walk learns about one item. */
typedef struct ct_heic_item {
    uint32_t id;
    uint32_t type; /* infe item_type; 0 when the item has no infe */
    int found;     /* it has an infe */
    uint64_t data_bytes; /* its iloc extents */
    uint32_t width, height; /* ispe; 0 when absent */
    uint8_t chroma; /* hvcC chroma_format_idc, CT_HEIC_CHROMA_UNKNOWN without hvcC */
    uint8_t depth;  /* luma bits (hvcC, else pixi); 0 when unknown */
    uint8_t is_alpha; /* auxC names an alpha plane */
    uint32_t coded_width, coded_height; /* the hvcC's SPS picture size; 0 when it has none */
    /* where its data starts: construction method 0 (file) or 1 (idat), absolute offset */
    uint64_t data_offset;
    int data_in_idat;
    uint16_t association_count;
    uint16_t associations[CT_HEIC_MAX_ASSOCIATIONS]; /* ipco indices, 1-based, in ipma order */
    /* irot/imir/clap folded: shown = orientation applied to the crop of the stored picture */
    uint8_t orientation;
    uint32_t crop_left, crop_top, crop_width, crop_height;
    /* the clap property, and the orientation of the picture it applies to */
    int has_clap;
    int64_t clap[8];
    uint8_t clap_orientation;
} ct_heic_item;

/* An image to decode: its item, and what libheif decodes with it. */
typedef struct ct_heic_image {
    ct_heic_item item;
    ct_heic_item tile;  /* grid or iden: the first referenced item */
    int has_tile;
    ct_heic_item alpha; /* the alpha plane's item, when libheif attaches one */
    ct_heic_item alpha_tile;
    int has_alpha, has_alpha_tile;
} ct_heic_image;

/* A parsed property of ipco, the ones the walk understands. */
typedef struct ct_heic_property {
    uint16_t index;
    uint32_t type;
    /* ispe: width, height; hvcC: chroma, depth, SPS width, height; pixi: depth; irot: turns; imir: mode; auxC: alpha */
    uint32_t a, b, c, d;
    int64_t clap[8];           /* clap: width N/D, height N/D, horizontal offset N/D, vertical offset N/D */
} ct_heic_property;

/* libheif's reader callbacks' state. */
typedef struct ct_heic_source {
    ct_input *input;
    uint64_t length;
} ct_heic_source;

typedef struct ct_heic_decoder {
    ct_alloc alloc;
    ct_input *input;
    uint64_t length;
    /* declared boxes or item data reach past the input's end */
    int cut_short;
    uint64_t data_end;
    uint64_t top_level_boxes;
    ct_heic_range meta, pitm, iloc, iinf, iref, ipco, ipma, idat;
    uint32_t primary_id;
    uint64_t item_data_bytes; /* all items' data: what libheif reads while parsing */
    uint64_t largest_item_bytes;
    uint64_t parse_bytes;     /* the estimate of libheif's parsing */
    uint64_t context_bytes;   /* what its context keeps after parsing, noted in alloc while it lives */
    /* libheif */
    ct_heic_source source;
    struct heif_context *context;
    struct heif_image_handle *primary_handle, *thumbnail_handle;
    struct heif_image *picture;
    uint64_t picture_bytes; /* the estimate noted in alloc while `picture` lives */
    /* the primary image and the one decoded (the primary or a thumbnail item) */
    ct_heic_image primary, thumbnail;
    const ct_heic_image *decoded;
    struct heif_image_handle *decoded_handle;
    uint64_t primary_bytes;
    ct_image_info info;
    /* the decode */
    uint8_t orientation; /* applied to the pre-orientation thumbnail */
    uint32_t thumb_width, thumb_height;
    uint8_t *row;
    ct_row_output output;
    int has_output;
    ct_color_report color;
    char damage[160];
} ct_heic_decoder;

/* ---- reading the boxes ---- */

static void ct_heic_reader_at(ct_heic_reader *r, ct_input *input, uint64_t start, uint64_t end) {
    r->input = input;
    r->position = start;
    r->end = end;
    r->overrun = ct_input_seek(input, start) != 0;
}

static int ct_heic_read(ct_heic_reader *r, uint8_t *buffer, size_t count) {
    if (r->overrun || count > r->end - r->position) {
        r->overrun = 1;
        memset(buffer, 0, count);
        return 0;
    }
    size_t got = ct_input_read(r->input, buffer, count);
    r->position += got;
    if (got < count) {
        r->overrun = 1;
        memset(buffer + got, 0, count - got);
        return 0;
    }
    return 1;
}

/* An unsigned big-endian integer of `bytes` (0…8) bytes; 0 after an overrun. */
static uint64_t ct_heic_read_uint(ct_heic_reader *r, unsigned bytes) {
    uint8_t buffer[8];
    if (!ct_heic_read(r, buffer, bytes)) return 0;
    uint64_t value = 0;
    for (unsigned i = 0; i < bytes; i++) value = value << 8 | buffer[i];
    return value;
}

static uint8_t ct_heic_u8(ct_heic_reader *r) { return (uint8_t)ct_heic_read_uint(r, 1); }
static uint16_t ct_heic_u16(ct_heic_reader *r) { return (uint16_t)ct_heic_read_uint(r, 2); }
static uint32_t ct_heic_u32(ct_heic_reader *r) { return (uint32_t)ct_heic_read_uint(r, 4); }

static void ct_heic_skip(ct_heic_reader *r, uint64_t count) {
    if (r->overrun || count > r->end - r->position) {
        r->overrun = 1;
        return;
    }
    r->position += count;
    if (ct_input_seek(r->input, r->position) != 0) r->overrun = 1;
}

/* What ct_heic_box found. */
typedef enum ct_heic_box_result {
    CT_HEIC_BOX_OK,
    /* the header cannot be read, or its size is smaller than the header */
    CT_HEIC_BOX_BAD,
    /* the box reaches past `limit`; the payload range is what it declares */
    CT_HEIC_BOX_LONG
} ct_heic_box_result;

/*
 * Reads the header of the box at the reader's position: its type and
 * payload range. A size of 0 means "to `limit`". Leaves the reader at the
 * payload.
 */
static ct_heic_box_result ct_heic_box(ct_heic_reader *r, uint64_t limit, uint32_t *type, ct_heic_range *payload) {
    uint64_t start = r->position;
    uint64_t size = ct_heic_u32(r);
    *type = ct_heic_u32(r);
    if (size == 1) size = ct_heic_read_uint(r, 8);
    if (r->overrun) return CT_HEIC_BOX_BAD;
    uint64_t header = r->position - start;
    if (*type == CT_HEIC_FOURCC('u', 'u', 'i', 'd')) header += 16;
    if (size == 0) size = limit > start ? limit - start : 0;
    if (size < header) return CT_HEIC_BOX_BAD;
    payload->start = start + header;
    payload->end = size > UINT64_MAX - start ? UINT64_MAX : start + size;
    if (payload->end > limit) return CT_HEIC_BOX_LONG;
    ct_heic_skip(r, header - (r->position - start));
    return r->overrun ? CT_HEIC_BOX_BAD : CT_HEIC_BOX_OK;
}

/* A FullBox's version, with the flags in *flags. */
static uint8_t ct_heic_full_box(ct_heic_reader *r, uint32_t *flags) {
    uint32_t word = ct_heic_u32(r);
    if (flags != NULL) *flags = word & 0xFFFFFF;
    return (uint8_t)(word >> 24);
}

/* A structural failure: truncated when the file is cut short, corrupt otherwise. */
static ct_status ct_heic_bad(const ct_heic_decoder *d, ct_error *error, const char *what) {
    if (d->input->read_error) return ct_fail(error, CT_IO_ERROR, "could not read the HEIC input");
    if (d->cut_short)
        return ct_fail(error, CT_TRUNCATED, "HEIC data ends after %llu bytes, inside %s (its boxes reach %llu)",
                       (unsigned long long)d->length, what, (unsigned long long)d->data_end);
    return ct_fail(error, CT_CORRUPT, "HEIC is corrupt: %s", what);
}

/* Notes that the file's declared structure reaches `end`. */
static void ct_heic_reaches(ct_heic_decoder *d, uint64_t end) {
    if (end > d->data_end) d->data_end = end;
    if (end > d->length) d->cut_short = 1;
}

/*
 * The top-level boxes: finds the first meta box and counts the boxes
 * (libheif keeps an object for each). A box whose declared size passes the
 * end of the input marks the file as cut short, and so does an end right
 * after the ftyp; the walk stops there.
 */
static ct_status ct_heic_walk_top(ct_heic_decoder *d, ct_error *error) {
    ct_heic_reader r;
    uint64_t position = 0;
    int only_preamble = 1; /* nothing but ftyp, free and skip so far */
    while (position < d->length) {
        ct_heic_reader_at(&r, d->input, position, d->length);
        uint32_t type;
        ct_heic_range payload;
        ct_heic_box_result result = ct_heic_box(&r, d->length, &type, &payload);
        if (result == CT_HEIC_BOX_BAD && r.overrun && !d->input->read_error) {
            /* the input ends inside a box header */
            ct_heic_reaches(d, d->length + 1);
            break;
        }
        if (result == CT_HEIC_BOX_BAD) return ct_heic_bad(d, error, "a top-level box header");
        d->top_level_boxes++;
        if (type == CT_HEIC_FOURCC('m', 'e', 't', 'a') && d->meta.end == 0) d->meta = payload;
        if (type != CT_HEIC_FOURCC('f', 't', 'y', 'p') && type != CT_HEIC_FOURCC('f', 'r', 'e', 'e')
            && type != CT_HEIC_FOURCC('s', 'k', 'i', 'p'))
            only_preamble = 0;
        if (result == CT_HEIC_BOX_LONG) {
            ct_heic_reaches(d, payload.end);
            break;
        }
        position = payload.end;
    }
    if (d->input->read_error) return ct_fail(error, CT_IO_ERROR, "could not read the HEIC input");
    /* a file that stops after its ftyp was cut before its meta box */
    if (d->meta.end == 0 && only_preamble) ct_heic_reaches(d, d->length + 1);
    if (d->meta.end == 0) return ct_heic_bad(d, error, "the top-level boxes, before a meta box");
    if (d->meta.end - d->meta.start < 4) return ct_heic_bad(d, error, "the meta box");
    d->meta.start += 4; /* FullBox version and flags */
    return CT_OK;
}

/* Notes where the meta box's children are (the first of each kind, as libheif takes them). */
static ct_status ct_heic_walk_meta(ct_heic_decoder *d, ct_error *error) {
    ct_heic_reader r;
    ct_heic_reader_at(&r, d->input, d->meta.start, d->meta.end);
    ct_heic_range iprp = {0, 0};
    while (r.position < d->meta.end) {
        uint32_t type;
        ct_heic_range payload;
        if (ct_heic_box(&r, d->meta.end, &type, &payload) != CT_HEIC_BOX_OK) return ct_heic_bad(d, error, "a box in the meta box");
        ct_heic_range *slot = NULL;
        switch (type) {
        case CT_HEIC_FOURCC('p', 'i', 't', 'm'): slot = &d->pitm; break;
        case CT_HEIC_FOURCC('i', 'l', 'o', 'c'): slot = &d->iloc; break;
        case CT_HEIC_FOURCC('i', 'i', 'n', 'f'): slot = &d->iinf; break;
        case CT_HEIC_FOURCC('i', 'r', 'e', 'f'): slot = &d->iref; break;
        case CT_HEIC_FOURCC('i', 'p', 'r', 'p'): slot = &iprp; break;
        case CT_HEIC_FOURCC('i', 'd', 'a', 't'): slot = &d->idat; break;
        default: break;
        }
        if (slot != NULL && slot->end == 0) *slot = payload;
        ct_heic_skip(&r, payload.end - r.position);
    }
    if (d->pitm.end == 0 || d->iloc.end == 0 || d->iinf.end == 0 || iprp.end == 0)
        return ct_heic_bad(d, error, "the meta box: pitm, iloc, iinf or iprp is missing");
    ct_heic_reader_at(&r, d->input, iprp.start, iprp.end);
    while (r.position < iprp.end) {
        uint32_t type;
        ct_heic_range payload;
        if (ct_heic_box(&r, iprp.end, &type, &payload) != CT_HEIC_BOX_OK) return ct_heic_bad(d, error, "a box in the iprp box");
        if (type == CT_HEIC_FOURCC('i', 'p', 'c', 'o') && d->ipco.end == 0) d->ipco = payload;
        if (type == CT_HEIC_FOURCC('i', 'p', 'm', 'a') && d->ipma.end == 0) d->ipma = payload;
        ct_heic_skip(&r, payload.end - r.position);
    }
    if (d->ipco.end == 0 || d->ipma.end == 0) return ct_heic_bad(d, error, "the iprp box: ipco or ipma is missing");
    ct_heic_reader_at(&r, d->input, d->pitm.start, d->pitm.end);
    uint8_t version = ct_heic_full_box(&r, NULL);
    d->primary_id = version == 0 ? ct_heic_u16(&r) : ct_heic_u32(&r);
    if (r.overrun) return ct_heic_bad(d, error, "the pitm box");
    return CT_OK;
}

/* ---- items: iloc, iinf, iref, ipma and ipco ---- */

/*
 * One pass over iloc: the data size of each item in items[0…count), and
 * the total and largest over all items (libheif reads them all while
 * parsing).
 */
static ct_status ct_heic_scan_iloc(ct_heic_decoder *d, ct_heic_item *items, size_t count, ct_error *error) {
    ct_heic_reader r;
    ct_heic_reader_at(&r, d->input, d->iloc.start, d->iloc.end);
    uint8_t version = ct_heic_full_box(&r, NULL);
    if (version > 2) return ct_fail(error, CT_UNSUPPORTED_FEATURE, "HEIC iloc box version %u is not supported", version);
    uint8_t sizes = ct_heic_u8(&r), more = ct_heic_u8(&r);
    unsigned offset_size = sizes >> 4, length_size = sizes & 15, base_size = more >> 4;
    unsigned index_size = version >= 1 ? (more & 15) : 0;
    uint32_t item_count = version < 2 ? ct_heic_u16(&r) : ct_heic_u32(&r);
    if (offset_size > 8 || length_size > 8 || base_size > 8 || index_size > 8)
        return ct_heic_bad(d, error, "the iloc box: a field size over 8 bytes");
    uint64_t total = 0;
    for (uint32_t i = 0; i < item_count && !r.overrun; i++) {
        uint32_t id = version < 2 ? ct_heic_u16(&r) : ct_heic_u32(&r);
        unsigned method = version >= 1 ? (ct_heic_u16(&r) & 15) : 0;
        ct_heic_u16(&r); /* data_reference_index */
        uint64_t base = ct_heic_read_uint(&r, base_size);
        uint16_t extents = ct_heic_u16(&r);
        uint64_t bytes = 0, first = 0;
        for (uint16_t e = 0; e < extents && !r.overrun; e++) {
            ct_heic_read_uint(&r, index_size);
            uint64_t offset = ct_heic_read_uint(&r, offset_size);
            uint64_t length = ct_heic_read_uint(&r, length_size);
            uint64_t container = method == 1 ? d->idat.end - d->idat.start : d->length;
            uint64_t start = base + offset;
            if (start < base) start = UINT64_MAX; /* overflow: past any end */
            if (length == 0) length = start < container ? container - start : 0; /* to the end */
            uint64_t end = start + length < start ? UINT64_MAX : start + length;
            if (e == 0) first = method == 1 ? d->idat.start + start : start;
            /* data past the end of a file whose boxes are whole is libheif's to judge (End_of_data) */
            if (method == 1 && end > container) return ct_heic_bad(d, error, "an item's extent in the idat box");
            bytes = bytes + length < bytes ? UINT64_MAX : bytes + length;
        }
        total = total + bytes < total ? UINT64_MAX : total + bytes;
        if (bytes > d->largest_item_bytes) d->largest_item_bytes = bytes;
        for (size_t k = 0; k < count; k++) {
            if (items[k].id == id && items[k].data_bytes == 0) {
                items[k].data_bytes = bytes;
                items[k].data_offset = first;
                items[k].data_in_idat = method == 1;
            }
        }
    }
    if (r.overrun) return ct_heic_bad(d, error, "the iloc box");
    d->item_data_bytes = total < d->length ? total : d->length;
    return CT_OK;
}

/* One pass over iinf: the type of each item in items[0…count). */
static ct_status ct_heic_scan_iinf(ct_heic_decoder *d, ct_heic_item *items, size_t count, ct_error *error) {
    ct_heic_reader r;
    ct_heic_reader_at(&r, d->input, d->iinf.start, d->iinf.end);
    uint8_t version = ct_heic_full_box(&r, NULL);
    uint32_t entries = version == 0 ? ct_heic_u16(&r) : ct_heic_u32(&r);
    for (uint32_t i = 0; i < entries && r.position < d->iinf.end && !r.overrun; i++) {
        uint32_t type;
        ct_heic_range payload;
        if (ct_heic_box(&r, d->iinf.end, &type, &payload) != CT_HEIC_BOX_OK) return ct_heic_bad(d, error, "an infe box");
        if (type == CT_HEIC_FOURCC('i', 'n', 'f', 'e')) {
            uint8_t infe_version = ct_heic_full_box(&r, NULL);
            uint32_t id = infe_version == 3 ? ct_heic_u32(&r) : ct_heic_u16(&r);
            ct_heic_u16(&r); /* item_protection_index */
            uint32_t item_type = infe_version >= 2 ? ct_heic_u32(&r) : 0;
            if (r.overrun || r.position > payload.end) return ct_heic_bad(d, error, "an infe box");
            for (size_t k = 0; k < count; k++) {
                if (items[k].id == id && !items[k].found) {
                    items[k].type = item_type;
                    items[k].found = 1;
                }
            }
        }
        ct_heic_skip(&r, payload.end - r.position);
    }
    if (r.overrun) return ct_heic_bad(d, error, "the iinf box");
    return CT_OK;
}

/* What one iref pass collects about one subject item. */
typedef struct ct_heic_references {
    uint32_t first_tile;  /* 'dimg' from the subject: its first reference */
    uint32_t thumbnails[CT_HEIC_MAX_THUMBNAILS]; /* 'thmb' to the subject */
    size_t thumbnail_count;
    uint32_t auxiliaries[CT_HEIC_MAX_AUXILIARIES]; /* 'auxl' to the subject */
    size_t auxiliary_count;
    /* 'cdsc' from any item: the metadata libheif keeps; more than the array holds counts as all */
    uint32_t metadata[CT_HEIC_MAX_LOOKUP];
    size_t metadata_count;
    int metadata_overflow;
} ct_heic_references;

/*
 * One pass over iref for `subject`, and the metadata items of the file.
 * libheif takes thmb and auxl references with exactly one target.
 */
static ct_status ct_heic_scan_iref(ct_heic_decoder *d, uint32_t subject, ct_heic_references *refs, ct_error *error) {
    memset(refs, 0, sizeof *refs);
    if (d->iref.end == 0) return CT_OK;
    ct_heic_reader r;
    ct_heic_reader_at(&r, d->input, d->iref.start, d->iref.end);
    uint8_t version = ct_heic_full_box(&r, NULL);
    unsigned id_size = version == 0 ? 2 : 4;
    while (r.position < d->iref.end && !r.overrun) {
        uint32_t type;
        ct_heic_range payload;
        if (ct_heic_box(&r, d->iref.end, &type, &payload) != CT_HEIC_BOX_OK) return ct_heic_bad(d, error, "a reference in the iref box");
        uint32_t from = (uint32_t)ct_heic_read_uint(&r, id_size);
        uint16_t count = ct_heic_u16(&r);
        uint32_t first = count > 0 ? (uint32_t)ct_heic_read_uint(&r, id_size) : 0;
        if (r.overrun || r.position > payload.end) return ct_heic_bad(d, error, "a reference in the iref box");
        if (type == CT_HEIC_FOURCC('d', 'i', 'm', 'g') && from == subject && count > 0 && refs->first_tile == 0)
            refs->first_tile = first;
        if (type == CT_HEIC_FOURCC('c', 'd', 's', 'c')) {
            if (refs->metadata_count < CT_HEIC_MAX_LOOKUP) refs->metadata[refs->metadata_count++] = from;
            else refs->metadata_overflow = 1;
        }
        if (count == 1 && first == subject && from != subject) {
            if (type == CT_HEIC_FOURCC('t', 'h', 'm', 'b') && refs->thumbnail_count < CT_HEIC_MAX_THUMBNAILS)
                refs->thumbnails[refs->thumbnail_count++] = from;
            if (type == CT_HEIC_FOURCC('a', 'u', 'x', 'l') && refs->auxiliary_count < CT_HEIC_MAX_AUXILIARIES)
                refs->auxiliaries[refs->auxiliary_count++] = from;
        }
        ct_heic_skip(&r, payload.end - r.position);
    }
    if (r.overrun) return ct_heic_bad(d, error, "the iref box");
    return CT_OK;
}

/* One pass over ipma: the property indices of each item in items[0…count), the first entry for each. */
static ct_status ct_heic_scan_ipma(ct_heic_decoder *d, ct_heic_item *items, size_t count, ct_error *error) {
    ct_heic_reader r;
    ct_heic_reader_at(&r, d->input, d->ipma.start, d->ipma.end);
    uint32_t flags;
    uint8_t version = ct_heic_full_box(&r, &flags);
    uint32_t entries = ct_heic_u32(&r);
    int seen[CT_HEIC_MAX_LOOKUP] = {0};
    for (uint32_t i = 0; i < entries && !r.overrun; i++) {
        uint32_t id = version < 1 ? ct_heic_u16(&r) : ct_heic_u32(&r);
        uint8_t associations = ct_heic_u8(&r);
        ct_heic_item *item = NULL;
        for (size_t k = 0; k < count; k++) {
            if (items[k].id == id && !seen[k]) {
                item = &items[k];
                seen[k] = 1;
            }
        }
        if (item != NULL && associations > CT_HEIC_MAX_ASSOCIATIONS)
            return ct_fail(error, CT_UNSUPPORTED_FEATURE, "HEIC item %u has %u properties; at most %d are read", id,
                           associations, CT_HEIC_MAX_ASSOCIATIONS);
        for (uint8_t a = 0; a < associations && !r.overrun; a++) {
            uint16_t index = (flags & 1) ? (ct_heic_u16(&r) & 0x7FFF) : (ct_heic_u8(&r) & 0x7F);
            if (item != NULL && index != 0) item->associations[item->association_count++] = index;
        }
    }
    if (r.overrun) return ct_heic_bad(d, error, "the ipma box");
    return CT_OK;
}

static int ct_heic_compare_properties(const void *a, const void *b) {
    const ct_heic_property *x = a, *y = b;
    return (x->index > y->index) - (x->index < y->index);
}

/* ---- the HEVC sequence parameter set's picture size ---- */

/* A bit reader over an RBSP (emulation prevention bytes removed). */
typedef struct ct_heic_bits {
    const uint8_t *data;
    size_t size, bit;
    int overrun;
} ct_heic_bits;

static uint32_t ct_heic_bits_read(ct_heic_bits *b, unsigned count) {
    uint32_t value = 0;
    for (unsigned i = 0; i < count; i++) {
        if (b->bit >= b->size * 8) {
            b->overrun = 1;
            return 0;
        }
        value = value << 1 | ((b->data[b->bit >> 3] >> (7 - (b->bit & 7))) & 1);
        b->bit++;
    }
    return value;
}

static void ct_heic_bits_skip(ct_heic_bits *b, size_t count) {
    if (count > b->size * 8 - b->bit) b->overrun = 1;
    else b->bit += count;
}

/* Exp-Golomb ue(v); values past 2^31 are treated as damage. */
static uint32_t ct_heic_bits_ue(ct_heic_bits *b) {
    unsigned zeros = 0;
    while (ct_heic_bits_read(b, 1) == 0 && !b->overrun) {
        if (++zeros > 31) {
            b->overrun = 1;
            return 0;
        }
    }
    return (uint32_t)((1u << zeros) - 1 + ct_heic_bits_read(b, zeros));
}

/*
 * pic_width/height_in_luma_samples of an SPS NAL unit (H.265 7.3.2.2), the
 * size libde265 allocates for. Returns 0 when it cannot be read.
 */
static int ct_heic_sps_size(const uint8_t *nal, size_t size, uint32_t *width, uint32_t *height) {
    uint8_t rbsp[256];
    size_t length = 0, zeros = 0;
    for (size_t i = 2; i < size && length < sizeof rbsp; i++) { /* after the 2-byte NAL header */
        if (zeros >= 2 && nal[i] == 3) {
            zeros = 0;
            continue;
        }
        zeros = nal[i] == 0 ? zeros + 1 : 0;
        rbsp[length++] = nal[i];
    }
    ct_heic_bits b = {rbsp, length, 0, 0};
    ct_heic_bits_skip(&b, 4); /* sps_video_parameter_set_id */
    unsigned sub_layers = ct_heic_bits_read(&b, 3);
    ct_heic_bits_skip(&b, 1);
    ct_heic_bits_skip(&b, 88 + 8); /* general profile, tier and level */
    uint32_t present = 0;
    for (unsigned i = 0; i < sub_layers; i++) present |= ct_heic_bits_read(&b, 2) << (2 * i);
    if (sub_layers > 0) ct_heic_bits_skip(&b, 2 * (8 - sub_layers));
    for (unsigned i = 0; i < sub_layers; i++) {
        if (present >> (2 * i + 1) & 1) ct_heic_bits_skip(&b, 88); /* sub_layer_profile_present_flag */
        if (present >> (2 * i) & 1) ct_heic_bits_skip(&b, 8);      /* sub_layer_level_present_flag */
    }
    ct_heic_bits_ue(&b); /* sps_seq_parameter_set_id */
    if (ct_heic_bits_ue(&b) == 3) ct_heic_bits_skip(&b, 1); /* separate_colour_plane_flag */
    *width = ct_heic_bits_ue(&b);
    *height = ct_heic_bits_ue(&b);
    return !b.overrun && *width > 0 && *height > 0;
}

/*
 * hvcC: chroma format and luma depth from its header, and the picture size
 * from its first SPS (libde265 takes the parameter sets from here).
 */
static void ct_heic_parse_hvcc(ct_heic_reader *r, ct_heic_property *property) {
    /* configurationVersion, profile (1), compatibility flags (4), constraints (6), level (1), … */
    ct_heic_skip(r, 16);
    property->a = ct_heic_u8(r) & 3;       /* chroma_format_idc */
    property->b = (ct_heic_u8(r) & 7) + 8; /* bitDepthLumaMinus8 + 8 */
    ct_heic_skip(r, 4);
    uint8_t arrays = ct_heic_u8(r);
    int header_read = !r->overrun;
    for (uint8_t a = 0; a < arrays && !r->overrun && property->c == 0; a++) {
        uint8_t nal_type = ct_heic_u8(r) & 0x3F;
        uint16_t units = ct_heic_u16(r);
        for (uint16_t u = 0; u < units && !r->overrun; u++) {
            uint16_t length = ct_heic_u16(r);
            if (nal_type == 33 && property->c == 0) {
                uint8_t nal[320];
                size_t taken = length < sizeof nal ? length : sizeof nal;
                if (!ct_heic_read(r, nal, taken)) break;
                ct_heic_skip(r, length - taken);
                uint32_t width, height;
                if (ct_heic_sps_size(nal, taken, &width, &height)) {
                    property->c = width;
                    property->d = height;
                }
            } else {
                ct_heic_skip(r, length);
            }
        }
    }
    /* a cut parameter set array only leaves the size unknown: libheif judges the arrays */
    r->overrun = !header_read;
}

/* Reads one property the walk understands; others keep only their type. */
static void ct_heic_parse_property(ct_heic_reader *r, uint32_t type, const ct_heic_range *payload,
                                   ct_heic_property *property) {
    property->type = type;
    switch (type) {
    case CT_HEIC_FOURCC('i', 's', 'p', 'e'):
        ct_heic_full_box(r, NULL);
        property->a = ct_heic_u32(r);
        property->b = ct_heic_u32(r);
        break;
    case CT_HEIC_FOURCC('h', 'v', 'c', 'C'): ct_heic_parse_hvcc(r, property); break;
    case CT_HEIC_FOURCC('p', 'i', 'x', 'i'):
        ct_heic_full_box(r, NULL);
        property->a = ct_heic_u8(r) > 0 ? ct_heic_u8(r) : 0;
        break;
    case CT_HEIC_FOURCC('i', 'r', 'o', 't'): property->a = ct_heic_u8(r) & 3; break;
    case CT_HEIC_FOURCC('i', 'm', 'i', 'r'): property->a = ct_heic_u8(r) & 1; break;
    case CT_HEIC_FOURCC('c', 'l', 'a', 'p'):
        for (int i = 0; i < 8; i++) {
            uint32_t value = ct_heic_u32(r);
            /* the offsets' numerators are signed */
            property->clap[i] = (i == 4 || i == 6) ? (int64_t)(int32_t)value : (int64_t)value;
        }
        break;
    case CT_HEIC_FOURCC('a', 'u', 'x', 'C'): {
        ct_heic_full_box(r, NULL);
        char urn[64];
        size_t length = 0;
        uint8_t c = 1;
        while (r->position < payload->end && length < sizeof urn - 1 && (c = ct_heic_u8(r)) != 0) urn[length++] = (char)c;
        urn[length] = 0;
        property->a = strcmp(urn, ct_heic_alpha_urn_hevc) == 0 || strcmp(urn, ct_heic_alpha_urn_avc) == 0
            || strcmp(urn, ct_heic_alpha_urn_miaf) == 0;
        break;
    }
    default: break;
    }
}

/* One pass over ipco reading the properties in `wanted` (sorted by index). */
static ct_status ct_heic_scan_ipco(ct_heic_decoder *d, ct_heic_property *wanted, size_t count, ct_error *error) {
    if (count == 0) return CT_OK;
    ct_heic_reader r;
    ct_heic_reader_at(&r, d->input, d->ipco.start, d->ipco.end);
    size_t next = 0;
    for (uint32_t index = 1; next < count && r.position < d->ipco.end; index++) {
        uint32_t type;
        ct_heic_range payload;
        if (ct_heic_box(&r, d->ipco.end, &type, &payload) != CT_HEIC_BOX_OK) return ct_heic_bad(d, error, "a property in the ipco box");
        if (wanted[next].index == index) {
            ct_heic_reader inside;
            ct_heic_reader_at(&inside, d->input, payload.start, payload.end);
            ct_heic_parse_property(&inside, type, &payload, &wanted[next]);
            if (inside.overrun) return ct_heic_bad(d, error, "an item property (ispe, hvcC, clap, …) too short");
            size_t same = next + 1;
            while (same < count && wanted[same].index == index) wanted[same++] = wanted[next];
            next = same;
        }
        ct_heic_reader_at(&r, d->input, payload.end, d->ipco.end);
    }
    if (next < count)
        return ct_heic_bad(d, error, "an item refers to a property ipco does not have");
    return CT_OK;
}

/* ---- geometry: irot, imir and clap as an EXIF orientation and a crop ---- */

/*
 * An EXIF orientation as the matrix taking a stored pixel's centred
 * coordinates (x, y), y down, to where it is shown: x' = m[0]x + m[1]y,
 * y' = m[2]x + m[3]y.
 */
static const int8_t ct_heic_orientation_matrix[9][4] = {
    {0, 0, 0, 0},
    {1, 0, 0, 1},   /* 1 */
    {-1, 0, 0, 1},  /* 2 flip left-right */
    {-1, 0, 0, -1}, /* 3 rotate 180° */
    {1, 0, 0, -1},  /* 4 flip top-bottom */
    {0, 1, 1, 0},   /* 5 transpose */
    {0, -1, 1, 0},  /* 6 rotate 90° clockwise */
    {0, -1, -1, 0}, /* 7 transverse */
    {0, 1, -1, 0},  /* 8 rotate 90° anticlockwise */
};

/* The orientation that shows `first`, then `then`. */
static uint8_t ct_heic_compose(uint8_t first, uint8_t then) {
    const int8_t *a = ct_heic_orientation_matrix[first], *b = ct_heic_orientation_matrix[then];
    int8_t m[4] = {(int8_t)(b[0] * a[0] + b[1] * a[2]), (int8_t)(b[0] * a[1] + b[1] * a[3]),
                   (int8_t)(b[2] * a[0] + b[3] * a[2]), (int8_t)(b[2] * a[1] + b[3] * a[3])};
    for (uint8_t o = 1; o <= 8; o++)
        if (memcmp(ct_heic_orientation_matrix[o], m, sizeof m) == 0) return o;
    return 1;
}

/* The orientation that undoes `o` (the transposed matrix). */
static uint8_t ct_heic_inverse(uint8_t o) {
    const int8_t *a = ct_heic_orientation_matrix[o];
    int8_t m[4] = {a[0], a[2], a[1], a[3]};
    for (uint8_t i = 1; i <= 8; i++)
        if (memcmp(ct_heic_orientation_matrix[i], m, sizeof m) == 0) return i;
    return 1;
}

static int ct_heic_transposes(uint8_t o) { return o >= 5; }

/* Where pixel (x, y) of a w×h picture goes when the picture is shown with orientation o. */
static void ct_heic_map_pixel(uint8_t o, uint32_t w, uint32_t h, uint32_t x, uint32_t y, uint32_t *out_x,
                              uint32_t *out_y) {
    const int8_t *m = ct_heic_orientation_matrix[o];
    uint32_t shown_w = ct_heic_transposes(o) ? h : w, shown_h = ct_heic_transposes(o) ? w : h;
    /* each output coordinate is ± one input coordinate */
    uint32_t from_x = m[0] != 0 ? x : y, from_y = m[2] != 0 ? x : y;
    int sign_x = m[0] + m[1], sign_y = m[2] + m[3];
    *out_x = sign_x > 0 ? from_x : shown_w - 1 - from_x;
    *out_y = sign_y > 0 ? from_y : shown_h - 1 - from_y;
}

/*
 * Crops the shown picture (the crop of the stored one, turned by the
 * orientation so far) by a clap property, with libheif's arithmetic
 * (Fraction: sums over the product of the denominators, quotients
 * truncated toward zero), and carries the crop back to stored coordinates.
 * 128-bit sums: the numerators and denominators are 32-bit. Returns 0 for an
 * aperture that is empty or has a zero denominator.
 */
static int ct_heic_apply_clap(ct_heic_item *item, const int64_t clap[8]) {
    uint8_t o = item->orientation;
    int64_t w = ct_heic_transposes(o) ? item->crop_height : item->crop_width;
    int64_t h = ct_heic_transposes(o) ? item->crop_width : item->crop_height;
    int64_t wn = clap[0], wd = clap[1], hn = clap[2], hd = clap[3], xn = clap[4], xd = clap[5], yn = clap[6],
            yd = clap[7];
    if (wd <= 0 || hd <= 0 || xd <= 0 || yd <= 0) return 0;
    /* left = ⌊x + (w − 1)/2 − (cw − 1)/2⌋ over the denominator 2·wd·xd; right = round(cw − 1 + left) */
    __int128 left = ((__int128)2 * xn * wd + (__int128)(w - 1) * wd * xd - (__int128)(wn - wd) * xd)
        / ((__int128)2 * wd * xd);
    __int128 right = ((__int128)(wn - wd) + left * wd + wd / 2) / wd;
    /* top = round(y + (h − 1)/2 − (ch − 1)/2); bottom = round(ch − 1 + top) */
    __int128 top_d = (__int128)2 * hd * yd;
    __int128 top = ((__int128)2 * yn * hd + (__int128)(h - 1) * hd * yd - (__int128)(hn - hd) * yd + top_d / 2) / top_d;
    __int128 bottom = ((__int128)(hn - hd) + top * hd + hd / 2) / hd;
    if (left < 0) left = 0;
    if (top < 0) top = 0;
    if (right >= w) right = w - 1;
    if (bottom >= h) bottom = h - 1;
    if (left > right || top > bottom) return 0;
    /* the shown rectangle's corners, back in the crop's stored coordinates */
    uint8_t back = ct_heic_inverse(o);
    uint32_t x0, y0, x1, y1;
    ct_heic_map_pixel(back, (uint32_t)w, (uint32_t)h, (uint32_t)left, (uint32_t)top, &x0, &y0);
    ct_heic_map_pixel(back, (uint32_t)w, (uint32_t)h, (uint32_t)right, (uint32_t)bottom, &x1, &y1);
    item->crop_left += x0 < x1 ? x0 : x1;
    item->crop_top += y0 < y1 ? y0 : y1;
    item->crop_width = (x0 < x1 ? x1 - x0 : x0 - x1) + 1;
    item->crop_height = (y0 < y1 ? y1 - y0 : y0 - y1) + 1;
    return 1;
}

/*
 * The item's crop of a stored picture of width × height: all of it, or its
 * clean aperture. libheif computes the aperture on the picture it decoded,
 * which can be larger than the ispe (libheif 1.15 writes the ispe of an
 * odd-sized picture it padded to even), so this runs again once the
 * picture's size is known. Returns 0 for an empty aperture.
 */
static int ct_heic_place(ct_heic_item *item, uint32_t width, uint32_t height) {
    item->crop_left = item->crop_top = 0;
    item->crop_width = width;
    item->crop_height = height;
    if (!item->has_clap) return 1;
    uint8_t orientation = item->orientation;
    item->orientation = item->clap_orientation;
    int placed = ct_heic_apply_clap(item, item->clap);
    item->orientation = orientation;
    return placed;
}

/* The orientation an irot or imir property stands for; 1 for other properties. */
static uint8_t ct_heic_transform(const ct_heic_property *p) {
    static const uint8_t quarter_turns[4] = {1, 8, 3, 6}; /* irot turns anticlockwise: 90° is EXIF 8, 270° is 6 */
    if (p->type == CT_HEIC_FOURCC('i', 'r', 'o', 't')) return quarter_turns[p->a & 3];
    if (p->type == CT_HEIC_FOURCC('i', 'm', 'i', 'r')) return p->a ? 2 : 4;
    return 1;
}

/*
 * Fills an item's facts from its properties: size (the last ispe, as
 * libheif), coding, alpha, then the transforms in the order listed.
 * HEIF puts descriptive properties before transformative ones; libheif
 * 1.15's own encoder, given an orientation, lists irot/imir first and
 * writes the ispe of the turned picture. libheif reads such an ispe as
 * already turned by the transforms before it, and so does this: the
 * stored size is that ispe turned back.
 */
static ct_status ct_heic_resolve_item(const ct_heic_decoder *d, ct_heic_item *item, const ct_heic_property *table,
                                      size_t count, ct_error *error) {
    item->chroma = CT_HEIC_CHROMA_UNKNOWN;
    int has_hvcc = 0;
    uint8_t before_ispe = 1, turned = 1;
    const ct_heic_property *found[CT_HEIC_MAX_ASSOCIATIONS];
    for (uint16_t i = 0; i < item->association_count; i++) {
        ct_heic_property key = {.index = item->associations[i]};
        const ct_heic_property *p = bsearch(&key, table, count, sizeof *table, ct_heic_compare_properties);
        found[i] = p;
        turned = ct_heic_compose(turned, ct_heic_transform(p));
        switch (p->type) {
        case CT_HEIC_FOURCC('i', 's', 'p', 'e'):
            item->width = p->a;
            item->height = p->b;
            before_ispe = turned;
            break;
        case CT_HEIC_FOURCC('h', 'v', 'c', 'C'):
            item->chroma = (uint8_t)p->a;
            item->depth = (uint8_t)p->b;
            item->coded_width = p->c;
            item->coded_height = p->d;
            has_hvcc = 1;
            break;
        case CT_HEIC_FOURCC('p', 'i', 'x', 'i'):
            if (!has_hvcc && p->a > 0) item->depth = (uint8_t)(p->a > 16 ? 16 : p->a);
            break;
        case CT_HEIC_FOURCC('a', 'u', 'x', 'C'): item->is_alpha = p->a != 0; break;
        default: break;
        }
    }
    if (ct_heic_transposes(before_ispe)) {
        uint32_t width = item->width;
        item->width = item->height;
        item->height = width;
    }
    item->orientation = 1;
    for (uint16_t i = 0; i < item->association_count; i++) {
        const ct_heic_property *p = found[i];
        item->orientation = ct_heic_compose(item->orientation, ct_heic_transform(p));
        if (p->type != CT_HEIC_FOURCC('c', 'l', 'a', 'p')) continue;
        if (item->has_clap)
            return ct_fail(error, CT_UNSUPPORTED_FEATURE, "HEIC item %u has more than one clean aperture (clap)",
                           item->id);
        item->has_clap = 1;
        item->clap_orientation = item->orientation;
        memcpy(item->clap, p->clap, sizeof item->clap);
    }
    if (item->width > 0 && item->height > 0 && !ct_heic_place(item, item->width, item->height))
        return ct_heic_bad(d, error, "a clean aperture (clap) that is empty or has a zero denominator");
    return CT_OK;
}

/* Looks up items[0…count) (ids set, the rest zero): types, data sizes, properties. */
static ct_status ct_heic_lookup(ct_heic_decoder *d, ct_heic_item *items, size_t count, ct_error *error) {
    ct_status status = ct_heic_scan_iinf(d, items, count, error);
    if (status == CT_OK) status = ct_heic_scan_iloc(d, items, count, error);
    if (status == CT_OK) status = ct_heic_scan_ipma(d, items, count, error);
    if (status != CT_OK) return status;
    size_t wanted = 0;
    for (size_t k = 0; k < count; k++) wanted += items[k].association_count;
    ct_heic_property *table = ct_alloc_zeroed(&d->alloc, wanted > 0 ? wanted : 1, sizeof *table);
    if (table == NULL) return ct_fail(error, CT_OUT_OF_MEMORY, "out of memory reading HEIC item properties");
    wanted = 0;
    for (size_t k = 0; k < count; k++)
        for (uint16_t i = 0; i < items[k].association_count; i++) table[wanted++].index = items[k].associations[i];
    qsort(table, wanted, sizeof *table, ct_heic_compare_properties);
    status = ct_heic_scan_ipco(d, table, wanted, error);
    for (size_t k = 0; k < count && status == CT_OK; k++) status = ct_heic_resolve_item(d, &items[k], table, wanted, error);
    ct_alloc_free(&d->alloc, table);
    return status;
}

/* ---- describing an image ---- */

#define CT_HEIC_HVC1 CT_HEIC_FOURCC('h', 'v', 'c', '1')
#define CT_HEIC_GRID CT_HEIC_FOURCC('g', 'r', 'i', 'd')
#define CT_HEIC_IDEN CT_HEIC_FOURCC('i', 'd', 'e', 'n')

/* An item type as text for messages, "?" for bytes that are not printable. */
static void ct_heic_type_text(uint32_t type, char text[5]) {
    for (int i = 0; i < 4; i++) {
        char c = (char)(type >> (24 - 8 * i));
        text[i] = c >= 32 && c < 127 ? c : '?';
    }
    text[4] = 0;
}

/* The size an item is shown at: its crop, turned by its orientation. */
static void ct_heic_shown_size(const ct_heic_item *item, uint32_t *width, uint32_t *height) {
    int turned = ct_heic_transposes(item->orientation);
    *width = turned ? item->crop_height : item->crop_width;
    *height = turned ? item->crop_width : item->crop_height;
}

/* An item this decoder can have libheif decode: HEVC, a grid of it or an identity derivation of it. */
static ct_status ct_heic_check_item(const ct_heic_decoder *d, const ct_heic_item *item, const char *role,
                                    int derived_allowed, ct_error *error) {
    char type[5];
    ct_heic_type_text(item->type, type);
    if (!item->found) {
        char what[64];
        snprintf(what, sizeof what, "the %s (item %u) has no infe entry", role, item->id);
        return ct_heic_bad(d, error, what);
    }
    int derived = item->type == CT_HEIC_GRID || item->type == CT_HEIC_IDEN;
    if (item->type != CT_HEIC_HVC1 && !(derived && derived_allowed))
        return ct_fail(error, CT_UNSUPPORTED_FEATURE, "HEIC %s (item %u) is a '%s' item; only HEVC ('hvc1'), grids "
                       "and identity items of it are read", role, item->id, type);
    if (item->width == 0 || item->height == 0) {
        char what[64];
        snprintf(what, sizeof what, "the %s (item %u) has no size (ispe)", role, item->id);
        return ct_heic_bad(d, error, what);
    }
    return CT_OK;
}

/*
 * Checks a grid's descriptor (ImageGrid: version, flags, rows − 1, columns
 * − 1, output width and height) against its ispe: libheif sizes the
 * assembled picture from the descriptor, the estimates from the ispe.
 */
static ct_status ct_heic_check_grid(ct_heic_decoder *d, const ct_heic_item *item, ct_error *error) {
    uint64_t limit = item->data_in_idat ? d->idat.end : d->length;
    uint64_t end = item->data_offset + item->data_bytes < item->data_offset ? limit : item->data_offset + item->data_bytes;
    ct_heic_reader r;
    ct_heic_reader_at(&r, d->input, item->data_offset, end < limit ? end : limit);
    ct_heic_u8(&r); /* version */
    uint8_t flags = ct_heic_u8(&r);
    ct_heic_u16(&r); /* rows − 1, columns − 1 */
    uint32_t width = (flags & 1) ? ct_heic_u32(&r) : ct_heic_u16(&r);
    uint32_t height = (flags & 1) ? ct_heic_u32(&r) : ct_heic_u16(&r);
    if (r.overrun) return ct_heic_bad(d, error, "a grid item's descriptor");
    if (width != item->width || height != item->height)
        return ct_fail(error, CT_CORRUPT, "HEIC grid item %u assembles %ux%u pixels but its ispe says %ux%u",
                       item->id, width, height, item->width, item->height);
    return CT_OK;
}

/* The referenced item of a grid or iden item, looked up; it must be HEVC. */
static ct_status ct_heic_describe_tile(ct_heic_decoder *d, const ct_heic_item *item, uint32_t tile_id,
                                       ct_heic_item *tile, ct_error *error) {
    if (tile_id == 0) return ct_heic_bad(d, error, "a grid or iden item that references no image");
    memset(tile, 0, sizeof *tile);
    tile->id = tile_id;
    ct_status status = ct_heic_lookup(d, tile, 1, error);
    if (status == CT_OK) status = ct_heic_check_item(d, tile, "grid tile", 0, error);
    if (status == CT_OK && item->type == CT_HEIC_GRID) status = ct_heic_check_grid(d, item, error);
    return status;
}

/*
 * Looks up an image item with what libheif decodes along with it: the
 * first tile of a grid (or the item an iden derives from) and the alpha
 * plane, an auxiliary image whose auxC names alpha and whose shown size is
 * the image's (libheif attaches it under that condition).
 */
static ct_status ct_heic_describe(ct_heic_decoder *d, uint32_t id, const char *role, ct_heic_image *image,
                                  ct_heic_references *refs, const ct_limits *limits, ct_error *error) {
    memset(image, 0, sizeof *image);
    ct_status status = ct_heic_scan_iref(d, id, refs, error);
    if (status != CT_OK) return status;
    ct_heic_item items[1 + CT_HEIC_MAX_AUXILIARIES];
    memset(items, 0, sizeof items);
    size_t count = 0;
    items[count++].id = id;
    for (size_t i = 0; i < refs->auxiliary_count; i++) items[count++].id = refs->auxiliaries[i];
    status = ct_heic_lookup(d, items, count, error);
    if (status == CT_OK) status = ct_heic_check_item(d, &items[0], role, 1, error);
    /* A hostile size is refused as such before anything else about the item is judged. Limits
     * apply to the primary (NULL for a thumbnail item, whose pixels the memory limit bounds). */
    if (status == CT_OK && limits != NULL) status = ct_check_limits(items[0].width, items[0].height, limits, error);
    if (status != CT_OK) return status;
    image->item = items[0];
    if (image->item.type != CT_HEIC_HVC1) {
        status = ct_heic_describe_tile(d, &image->item, refs->first_tile, &image->tile, error);
        if (status != CT_OK) return status;
        image->has_tile = 1;
    }
    uint32_t width, height;
    ct_heic_shown_size(&image->item, &width, &height);
    for (size_t i = 1; i < count && !image->has_alpha; i++) {
        uint32_t alpha_width, alpha_height;
        ct_heic_shown_size(&items[i], &alpha_width, &alpha_height);
        if (!items[i].is_alpha || alpha_width != width || alpha_height != height) continue;
        status = ct_heic_check_item(d, &items[i], "alpha image", 1, error);
        if (status != CT_OK) return status;
        image->alpha = items[i];
        image->has_alpha = 1;
    }
    if (image->has_alpha && image->alpha.type != CT_HEIC_HVC1) {
        ct_heic_references alpha_refs;
        status = ct_heic_scan_iref(d, image->alpha.id, &alpha_refs, error);
        if (status == CT_OK)
            status = ct_heic_describe_tile(d, &image->alpha, alpha_refs.first_tile, &image->alpha_tile, error);
        if (status != CT_OK) return status;
        image->has_alpha_tile = 1;
    }
    return CT_OK;
}

/* ---- memory estimates (see the top of the file) ---- */

static uint64_t ct_heic_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }
static uint64_t ct_heic_mul(uint64_t a, uint64_t b) { return b != 0 && a > UINT64_MAX / b ? UINT64_MAX : a * b; }
static uint64_t ct_heic_max(uint64_t a, uint64_t b) { return a > b ? a : b; }
static uint64_t ct_heic_min(uint64_t a, uint64_t b) { return a < b ? a : b; }

static uint64_t ct_heic_sample_bytes(uint8_t depth) { return depth > 8 ? 2 : 1; }

/* A picture's planes in quarters of its luma plane: 4:0:0 4, 4:2:0 6, 4:2:2 8, 4:4:4 (or unknown) 12. */
static uint64_t ct_heic_plane_quarters(uint8_t chroma) {
    switch (chroma) {
    case 0: return 4;
    case 1: return 6;
    case 2: return 8;
    default: return 12;
    }
}

/* `planes` planes of w×h samples as libheif keeps them, rows padded to 16 bytes. */
static uint64_t ct_heic_plane_bytes(uint64_t width, uint64_t height, uint8_t depth, unsigned planes) {
    return ct_heic_mul(ct_heic_mul(planes * ct_heic_sample_bytes(depth), width + CT_HEIC_ROW_PADDING), height);
}

/*
 * Decoding one coded picture of `item` whose data is `data` bytes: 2C + 2P
 * + M while libde265 works, and when libheif turns it into RGB, C + Y + R
 * (an alpha picture keeps its YCbCr). The picture is the larger of the
 * ispe and the SPS size.
 */
static uint64_t ct_heic_coded_bytes(const ct_heic_item *item, uint64_t data, int to_rgb) {
    uint64_t width = ct_heic_max(item->width, item->coded_width), height = ct_heic_max(item->height, item->coded_height);
    uint64_t padded = ct_heic_mul(width + CT_HEIC_CODED_PADDING, height + CT_HEIC_CODED_PADDING);
    uint64_t quarters = ct_heic_plane_quarters(item->chroma), sample = ct_heic_sample_bytes(item->depth);
    uint64_t picture = ct_heic_mul(ct_heic_mul(padded, sample), quarters) / 4;
    uint64_t metadata = ct_heic_mul(padded, 3) / 2;
    uint64_t decoding = ct_heic_add(ct_heic_add(ct_heic_mul(data, 2), ct_heic_mul(picture, 2)), metadata);
    if (!to_rgb) return decoding;
    /* libheif turns 4:0:0 into RGB by way of a 4:2:0 copy, both alive with the RGB */
    uint64_t copies = item->chroma == 0 ? ct_heic_plane_quarters(0) + ct_heic_plane_quarters(1) : quarters;
    uint64_t ycbcr = ct_heic_mul(ct_heic_mul(ct_heic_mul(width + CT_HEIC_ROW_PADDING, height), sample), copies) / 4;
    uint64_t converting = ct_heic_add(ct_heic_add(data, ycbcr), ct_heic_plane_bytes(width, height, item->depth, 3));
    return ct_heic_max(decoding, converting);
}

/*
 * The largest tile decode a grid can cost. libheif decodes every tile the
 * grid lists, one at a time, and the file only promises they match the
 * first: so the first tile's cost, or more if any hvcC in ipco declares a
 * larger picture, with the largest item's data.
 */
static ct_status ct_heic_tile_bytes(ct_heic_decoder *d, const ct_heic_item *first, uint64_t *bytes, ct_error *error) {
    *bytes = ct_heic_coded_bytes(first, d->largest_item_bytes, 1);
    ct_heic_reader r;
    ct_heic_reader_at(&r, d->input, d->ipco.start, d->ipco.end);
    while (r.position < d->ipco.end) {
        uint32_t type;
        ct_heic_range payload;
        if (ct_heic_box(&r, d->ipco.end, &type, &payload) != CT_HEIC_BOX_OK)
            return ct_heic_bad(d, error, "a property in the ipco box");
        if (type == CT_HEIC_FOURCC('h', 'v', 'c', 'C')) {
            ct_heic_property property = {0};
            ct_heic_reader inside;
            ct_heic_reader_at(&inside, d->input, payload.start, payload.end);
            ct_heic_parse_property(&inside, type, &payload, &property);
            ct_heic_item coded = {.chroma = (uint8_t)property.a, .depth = (uint8_t)property.b,
                                  .coded_width = property.c, .coded_height = property.d};
            if (!inside.overrun && property.c > 0)
                *bytes = ct_heic_max(*bytes, ct_heic_coded_bytes(&coded, d->largest_item_bytes, 1));
        }
        ct_heic_reader_at(&r, d->input, payload.end, d->ipco.end);
    }
    return CT_OK;
}

/*
 * libheif's and libde265's memory to decode `image` (with its alpha plane
 * when `alpha`): the peak, and in *held what stays once heif_decode_image
 * returns (the RGB planes and the alpha plane).
 */
static ct_status ct_heic_image_bytes(ct_heic_decoder *d, const ct_heic_image *image, int alpha, uint64_t *peak,
                                     uint64_t *held, ct_error *error) {
    const ct_heic_item *item = &image->item;
    uint64_t width = item->width, height = item->height;
    uint8_t depth = item->depth != 0 ? item->depth : image->tile.depth;
    uint64_t tile = 0;
    if (item->type == CT_HEIC_HVC1) {
        *peak = ct_heic_coded_bytes(item, item->data_bytes, 1);
        *held = ct_heic_plane_bytes(ct_heic_max(width, item->coded_width), ct_heic_max(height, item->coded_height),
                                    depth, 3);
    } else if (item->type == CT_HEIC_IDEN) {
        const ct_heic_item *source = &image->tile;
        *peak = ct_heic_coded_bytes(source, source->data_bytes, 1);
        *held = ct_heic_plane_bytes(ct_heic_max(source->width, source->coded_width),
                                    ct_heic_max(source->height, source->coded_height), source->depth, 3);
    } else {
        ct_status status = ct_heic_tile_bytes(d, &image->tile, &tile, error);
        if (status != CT_OK) return status;
        *held = ct_heic_plane_bytes(width, height, depth, 3);
        *peak = ct_heic_add(*held, tile);
    }
    if (!alpha) return CT_OK;
    /* Without an alpha item of its own the walk found, libheif's is taken to be coded like the image. */
    const ct_heic_item *alpha_item = image->has_alpha ? &image->alpha : item;
    const ct_heic_item *alpha_tile = image->has_alpha ? &image->alpha_tile : &image->tile;
    uint64_t alpha_peak;
    if (alpha_item->type == CT_HEIC_HVC1) {
        alpha_peak = ct_heic_coded_bytes(alpha_item, alpha_item->data_bytes, 0);
    } else if (alpha_item->type == CT_HEIC_IDEN) {
        alpha_peak = ct_heic_coded_bytes(alpha_tile, alpha_tile->data_bytes, 0);
    } else {
        ct_status status = ct_heic_tile_bytes(d, alpha_tile, &tile, error);
        if (status != CT_OK) return status;
        /* an alpha grid is assembled in RGB too, its first plane kept */
        alpha_peak = ct_heic_add(ct_heic_plane_bytes(width, height, alpha_item->depth, 3), tile);
    }
    *peak = ct_heic_max(*peak, ct_heic_add(*held, alpha_peak));
    *held = ct_heic_add(*held, ct_heic_plane_bytes(width, height, alpha_item->depth, 1));
    return CT_OK;
}

/* ---- libheif ---- */

static int64_t ct_heic_source_position(void *userdata) {
    const ct_input *input = ((ct_heic_source *)userdata)->input;
    return (int64_t)(input->file != NULL ? input->file_position : input->position);
}

static int ct_heic_source_read(void *data, size_t size, void *userdata) {
    ct_input *input = ((ct_heic_source *)userdata)->input;
    return ct_input_read(input, data, size) == size ? 0 : -1;
}

static int ct_heic_source_seek(int64_t position, void *userdata) {
    ct_input *input = ((ct_heic_source *)userdata)->input;
    return position >= 0 && ct_input_seek(input, (uint64_t)position) == 0 ? 0 : -1;
}

static enum heif_reader_grow_status ct_heic_source_wait(int64_t target_size, void *userdata) {
    const ct_heic_source *source = userdata;
    return target_size >= 0 && (uint64_t)target_size <= source->length ? heif_reader_grow_status_size_reached
                                                                         : heif_reader_grow_status_size_beyond_eof;
}

static const struct heif_reader ct_heic_source_reader = {
    .reader_api_version = 1,
    .get_position = ct_heic_source_position,
    .read = ct_heic_source_read,
    .seek = ct_heic_source_seek,
    .wait_for_file_size = ct_heic_source_wait,
};

/* Turns a libheif error into a status and message; `what` says what libheif was doing. */
static ct_status ct_heic_library_status(const ct_heic_decoder *d, struct heif_error result, const char *what,
                                        ct_error *error) {
    /* libheif's messages may end in a newline */
    char message[160];
    snprintf(message, sizeof message, "%s", result.message != NULL ? result.message : "no message");
    for (size_t end = strlen(message); end > 0 && (message[end - 1] == '\n' || message[end - 1] == ' '); end--)
        message[end - 1] = 0;
    switch (result.code) {
    case heif_error_Ok: return CT_OK;
    case heif_error_Memory_allocation_error:
        if (result.subcode == heif_suberror_Security_limit_exceeded)
            return ct_fail(error, CT_TOO_LARGE, "HEIC %s: libheif refuses a size over its limit (%s)", what, message);
        return ct_fail(error, CT_OUT_OF_MEMORY, "out of memory in libheif (%s)", what);
    case heif_error_Unsupported_feature:
    case heif_error_Unsupported_filetype:
        return ct_fail(error, CT_UNSUPPORTED_FEATURE, "HEIC %s: libheif does not support it (%s)", what, message);
    default: break;
    }
    if (d->input->read_error) return ct_fail(error, CT_IO_ERROR, "could not read the HEIC input");
    if (d->cut_short || (result.code == heif_error_Invalid_input && result.subcode == heif_suberror_End_of_data))
        return ct_fail(error, CT_TRUNCATED, "HEIC data ends after %llu bytes, before the image does (%s: %s)",
                       (unsigned long long)d->length, what, message);
    return ct_fail(error, CT_CORRUPT, "HEIC is corrupt (%s: %s)", what, message);
}

/* The longest side ct_limits lets through, for libheif's own size check; 0 when unbounded. */
static uint64_t ct_heic_side_limit(const ct_limits *limits) {
    uint64_t width = limits->max_width != 0 ? limits->max_width : limits->max_pixels;
    uint64_t height = limits->max_height != 0 ? limits->max_height : limits->max_pixels;
    return width == 0 || height == 0 ? 0 : ct_heic_max(width, height);
}

/*
 * Hands the file to libheif, once its parsing is known to fit the limit,
 * and takes the primary image's handle. Tiles are decoded on this thread,
 * one at a time, so that a grid costs one tile decode beside its picture.
 */
static ct_status ct_heic_open_library(ct_heic_decoder *d, const ct_heic_references *refs, const ct_limits *limits,
                                      const ct_cancel_token *cancel, ct_error *error) {
    uint64_t kept = d->item_data_bytes;
    if (!refs->metadata_overflow) {
        ct_heic_item metadata[CT_HEIC_MAX_LOOKUP];
        memset(metadata, 0, sizeof metadata);
        for (size_t i = 0; i < refs->metadata_count; i++) metadata[i].id = refs->metadata[i];
        ct_status status = ct_heic_scan_iloc(d, metadata, refs->metadata_count, error);
        if (status != CT_OK) return status;
        kept = 0;
        for (size_t i = 0; i < refs->metadata_count; i++) kept = ct_heic_add(kept, metadata[i].data_bytes);
        if (kept > d->item_data_bytes) kept = d->item_data_bytes;
    }
    uint64_t structures = ct_heic_add(ct_heic_mul(d->meta.end - d->meta.start, CT_HEIC_META_FACTOR),
                                      ct_heic_mul(d->top_level_boxes, CT_HEIC_BYTES_PER_BOX));
    d->context_bytes = ct_heic_add(ct_heic_add(structures, kept), CT_HEIC_LIBRARY_BYTES);
    /* items are read one at a time while parsing, the metadata kept */
    d->parse_bytes = ct_heic_add(d->context_bytes, ct_heic_min(d->largest_item_bytes, d->item_data_bytes));
    uint64_t limit = limits->max_decoder_memory;
    if (limit != 0 && d->parse_bytes > limit)
        return ct_fail_memory_limit(error, "HEIC file (libheif parses its boxes and reads every item's data)",
                                    d->parse_bytes, limit);
    if (ct_is_cancelled(cancel)) return ct_fail(error, CT_CANCELLED, "HEIC decode cancelled");
    d->context = ct_heif.heif_context_alloc();
    if (d->context == NULL) return ct_fail(error, CT_OUT_OF_MEMORY, "out of memory creating a libheif context");
    ct_alloc_note(&d->alloc, (int64_t)d->parse_bytes);
    ct_heif.heif_context_set_max_decoding_threads(d->context, 0);
    uint64_t side = ct_heic_side_limit(limits);
    /* libheif refuses sizes at its limit for grids, above it for ispe: one more lets exactly the limit through */
    if (side != 0) ct_heif.heif_context_set_maximum_image_size_limit(d->context, side >= INT_MAX ? INT_MAX : (int)side + 1);
    d->source.input = d->input;
    d->source.length = d->length;
    if (ct_input_seek(d->input, 0) != 0) return ct_fail(error, CT_IO_ERROR, "cannot rewind the HEIC input");
    struct heif_error result = ct_heif.heif_context_read_from_reader(d->context, &ct_heic_source_reader, &d->source, NULL);
    /* parsed: only the metadata items' data stays */
    ct_alloc_note(&d->alloc, -(int64_t)(d->parse_bytes - d->context_bytes));
    ct_status status = ct_heic_library_status(d, result, "reading the file", error);
    if (status != CT_OK) return status;
    heif_item_id primary;
    result = ct_heif.heif_context_get_primary_image_ID(d->context, &primary);
    if (result.code == heif_error_Ok && primary != d->primary_id)
        return ct_fail(error, CT_CORRUPT, "HEIC primary item is %u for libheif and %u in pitm", primary, d->primary_id);
    if (result.code == heif_error_Ok) result = ct_heif.heif_context_get_primary_image_handle(d->context, &d->primary_handle);
    return ct_heic_library_status(d, result, "finding the primary image", error);
}

/* ---- opening: the walk, the limits, libheif, the facts ---- */

static ct_status ct_heic_open(ct_heic_decoder *d, ct_input *input, const ct_limits *limits,
                              const ct_cancel_token *cancel, ct_heic_references *refs, ct_error *error) {
    memset(d, 0, sizeof *d);
    d->input = input;
    if (ct_input_length(input, &d->length) != 0) return ct_fail(error, CT_IO_ERROR, "cannot find the HEIC input's size");
    ct_status status = ct_heic_walk_top(d, error);
    if (status == CT_OK) status = ct_heic_walk_meta(d, error);
    if (status == CT_OK) status = ct_heic_describe(d, d->primary_id, "primary image", &d->primary, refs, limits, error);
    if (status == CT_OK) status = ct_heic_open_library(d, refs, limits, cancel, error);
    if (status != CT_OK) return status;

    const ct_heic_item *item = &d->primary.item;
    const ct_heic_item *coded = d->primary.has_tile ? &d->primary.tile : item;
    int alpha = ct_heif.heif_image_handle_has_alpha_channel(d->primary_handle) != 0;
    int depth = ct_heif.heif_image_handle_get_luma_bits_per_pixel(d->primary_handle);
    uint64_t held;
    status = ct_heic_image_bytes(d, &d->primary, alpha, &d->primary_bytes, &held, error);
    if (status != CT_OK) return status;
    ct_image_info *info = &d->info;
    info->format = CT_FORMAT_HEIC;
    info->width = item->crop_width;
    info->height = item->crop_height;
    info->orientation = item->orientation;
    info->has_alpha = (uint8_t)alpha;
    info->components = (uint8_t)((coded->chroma == 0 ? 1 : 3) + alpha);
    info->bit_depth = (uint8_t)(depth > 0 && depth <= 16 ? depth : coded->depth);
    info->whole_image_bytes = ct_heic_max(d->parse_bytes, ct_heic_add(d->context_bytes, d->primary_bytes));
    return CT_OK;
}

/* Frees everything but the pixels handed over. Safe after any failure (the decoder starts zeroed). */
static void ct_heic_close(ct_heic_decoder *d) {
    if (d->picture != NULL) ct_heif.heif_image_release(d->picture);
    d->picture = NULL;
    ct_alloc_note(&d->alloc, -(int64_t)d->picture_bytes);
    d->picture_bytes = 0;
    if (d->thumbnail_handle != NULL) ct_heif.heif_image_handle_release(d->thumbnail_handle);
    if (d->primary_handle != NULL) ct_heif.heif_image_handle_release(d->primary_handle);
    d->thumbnail_handle = d->primary_handle = NULL;
    if (d->context != NULL) {
        ct_heif.heif_context_free(d->context);
        ct_alloc_note(&d->alloc, -(int64_t)d->context_bytes);
        d->context = NULL;
    }
    ct_alloc_free(&d->alloc, d->row);
    d->row = NULL;
    if (d->has_output) {
        ct_resampler_free(&d->output.resampler);
        if (d->output.pixels != NULL) {
            free(d->output.pixels);
            ct_alloc_note(&d->alloc, -(int64_t)d->output.pixel_bytes);
        }
        d->has_output = 0;
    }
}

/* ---- choosing the thumbnail item ---- */

/*
 * The smallest thumbnail item that covers the wanted size (shown upright,
 * shown_width × shown_height), has the primary's aspect ratio (to within
 * the rounding of its size) and its alpha, and is smaller than the
 * primary. Leaves d->decoded at the primary when there is none.
 */
static ct_status ct_heic_choose(ct_heic_decoder *d, const ct_heic_references *refs, uint32_t shown_width,
                                uint32_t shown_height, ct_error *error) {
    d->decoded = &d->primary;
    d->decoded_handle = d->primary_handle;
    if (refs->thumbnail_count == 0) return CT_OK;
    ct_heic_item candidates[CT_HEIC_MAX_THUMBNAILS];
    memset(candidates, 0, sizeof candidates);
    for (size_t i = 0; i < refs->thumbnail_count; i++) candidates[i].id = refs->thumbnails[i];
    ct_status status = ct_heic_lookup(d, candidates, refs->thumbnail_count, error);
    if (status != CT_OK) return status;
    uint32_t primary_width, primary_height;
    ct_heic_shown_size(&d->primary.item, &primary_width, &primary_height);
    uint64_t primary_pixels = (uint64_t)primary_width * primary_height;
    int need_alpha = d->info.has_alpha;
    const ct_heic_item *best = NULL;
    uint64_t best_pixels = primary_pixels;
    for (size_t i = 0; i < refs->thumbnail_count; i++) {
        const ct_heic_item *candidate = &candidates[i];
        ct_error ignored;
        if (ct_heic_check_item(d, candidate, "thumbnail", 1, &ignored) != CT_OK) continue;
        uint32_t width, height;
        ct_heic_shown_size(candidate, &width, &height);
        uint64_t pixels = (uint64_t)width * height;
        int64_t skew = (int64_t)width * primary_height - (int64_t)height * primary_width;
        if (width < shown_width || height < shown_height || pixels >= best_pixels
            || (uint64_t)(skew < 0 ? -skew : skew) > (uint64_t)primary_width + primary_height)
            continue;
        if (need_alpha) {
            struct heif_image_handle *handle = NULL;
            struct heif_error result = ct_heif.heif_image_handle_get_thumbnail(d->primary_handle, candidate->id, &handle);
            int has_alpha = result.code == heif_error_Ok && ct_heif.heif_image_handle_has_alpha_channel(handle);
            if (handle != NULL) ct_heif.heif_image_handle_release(handle);
            if (!has_alpha) continue;
        }
        best = candidate;
        best_pixels = pixels;
    }
    if (best == NULL) return CT_OK;
    ct_heic_references thumbnail_refs;
    status = ct_heic_describe(d, best->id, "thumbnail", &d->thumbnail, &thumbnail_refs, NULL, error);
    if (status != CT_OK) return status;
    struct heif_error result = ct_heif.heif_image_handle_get_thumbnail(d->primary_handle, best->id, &d->thumbnail_handle);
    status = ct_heic_library_status(d, result, "finding the thumbnail item", error);
    if (status != CT_OK) return status;
    d->decoded = &d->thumbnail;
    d->decoded_handle = d->thumbnail_handle;
    return CT_OK;
}

/* ---- rows ---- */

/* One plane of the decoded picture. */
typedef struct ct_heic_plane {
    const uint8_t *data;
    size_t stride;
    int wide;     /* 16-bit samples */
    uint32_t max; /* largest sample value */
} ct_heic_plane;

/* Finds a plane that covers the item's crop, with samples of 8 or 16 bits. */
static ct_status ct_heic_get_plane(const struct heif_image *picture, enum heif_channel channel,
                                   const ct_heic_item *item, ct_heic_plane *plane, ct_error *error) {
    if (!ct_heif.heif_image_has_channel(picture, channel))
        return ct_fail(error, CT_UNSUPPORTED_FEATURE, "HEIC picture came out of libheif without its %s plane",
                       channel == heif_channel_Alpha ? "alpha" : "R, G or B");
    int width = ct_heif.heif_image_get_width(picture, channel), height = ct_heif.heif_image_get_height(picture, channel);
    if (width < 0 || height < 0 || (uint64_t)width < (uint64_t)item->crop_left + item->crop_width
        || (uint64_t)height < (uint64_t)item->crop_top + item->crop_height)
        return ct_fail(error, CT_CORRUPT, "HEIC item %u decodes to a %dx%d plane, short of its %ux%u", item->id, width,
                       height, item->crop_left + item->crop_width, item->crop_top + item->crop_height);
    int storage = ct_heif.heif_image_get_bits_per_pixel(picture, channel);
    int range = ct_heif.heif_image_get_bits_per_pixel_range(picture, channel);
    int stride = 0;
    plane->data = ct_heif.heif_image_get_plane_readonly(picture, channel, &stride);
    if (plane->data == NULL || stride <= 0 || (storage != 8 && storage != 16) || range < 1 || range > storage)
        return ct_fail(error, CT_UNSUPPORTED_FEATURE, "HEIC picture has %d-bit samples in %d-bit storage", range,
                       storage);
    plane->stride = (size_t)stride;
    plane->wide = storage == 16;
    plane->max = (1u << range) - 1;
    return CT_OK;
}

/*
 * The crop of the picture libheif returned: placed on its actual size (see
 * ct_heic_place), which must hold the ispe and still cover the thumbnail.
 */
static ct_status ct_heic_place_picture(const ct_heic_decoder *d, ct_heic_item *item, ct_error *error) {
    int width = ct_heif.heif_image_has_channel(d->picture, heif_channel_R) ? ct_heif.heif_image_get_width(d->picture, heif_channel_R) : -1;
    int height = ct_heif.heif_image_has_channel(d->picture, heif_channel_R) ? ct_heif.heif_image_get_height(d->picture, heif_channel_R) : -1;
    if (width < 0 || height < 0 || (uint32_t)width < item->width || (uint32_t)height < item->height)
        return ct_fail(error, CT_CORRUPT, "HEIC item %u decodes to %dx%d pixels, less than its ispe of %ux%u",
                       item->id, width, height, item->width, item->height);
    if (!ct_heic_place(item, (uint32_t)width, (uint32_t)height) || item->crop_width < d->thumb_width
        || item->crop_height < d->thumb_height)
        return ct_fail(error, CT_CORRUPT, "HEIC item %u's clean aperture does not fit its %dx%d picture", item->id,
                       width, height);
    return CT_OK;
}

/* Copies count samples of row y from column x0 into out, every `step` bytes, scaled to 8 bits. */
static void ct_heic_sample_row(const ct_heic_plane *plane, uint32_t y, uint32_t x0, uint32_t count, uint8_t *out,
                               unsigned step) {
    const uint8_t *row = plane->data + (size_t)y * plane->stride;
    if (!plane->wide) {
        for (uint32_t i = 0; i < count; i++) out[(size_t)i * step] = row[x0 + i];
        return;
    }
    uint32_t max = plane->max, half = max / 2;
    for (uint32_t i = 0; i < count; i++) {
        uint16_t value;
        memcpy(&value, row + 2 * ((size_t)x0 + i), sizeof value);
        if (value > max) value = (uint16_t)max;
        out[(size_t)i * step] = (uint8_t)((value * 255u + half) / max);
    }
}

/* Premultiplied to straight alpha, which the area filter takes. */
static void ct_heic_unpremultiply(uint8_t *rgba, uint32_t count) {
    for (uint32_t i = 0; i < count; i++, rgba += 4) {
        unsigned alpha = rgba[3];
        if (alpha == 0 || alpha == 255) continue;
        for (int c = 0; c < 3; c++) {
            unsigned value = (rgba[c] * 255u + alpha / 2) / alpha;
            rgba[c] = (uint8_t)(value > 255 ? 255 : value);
        }
    }
}

/* Feeds the item's crop of the picture to the area filter, a row at a time. */
static ct_status ct_heic_feed_rows(ct_heic_decoder *d, const ct_heic_item *item, const ct_heic_plane planes[4],
                                   int alpha, int premultiplied, const ct_cancel_token *cancel, ct_error *error) {
    unsigned channels = alpha ? 4 : 3;
    for (uint32_t y = 0; y < item->crop_height; y++) {
        if (y % CT_HEIC_CANCEL_INTERVAL == 0 && ct_is_cancelled(cancel))
            return ct_fail(error, CT_CANCELLED, "HEIC decode cancelled");
        for (unsigned c = 0; c < channels; c++)
            ct_heic_sample_row(&planes[c], item->crop_top + y, item->crop_left, item->crop_width, d->row + c, channels);
        if (alpha && premultiplied) ct_heic_unpremultiply(d->row, item->crop_width);
        ct_resampler_push_row(&d->output.resampler, d->row);
    }
    return CT_OK;
}

/* ---- colour ---- */

/* An ICC profile (colr 'prof' or 'rICC') from libheif, converted to sRGB by ct_color.c. */
static void ct_heic_apply_icc(ct_heic_decoder *d, const struct heif_image_handle *handle) {
    size_t size = ct_heif.heif_image_handle_get_raw_color_profile_size(handle);
    if (size == 0 || size > CT_COLOR_PROFILE_MAX) {
        ct_color_ignore(&d->color, "HEIF ICC profile of %zu bytes (at most %u are read)", size,
                        (unsigned)CT_COLOR_PROFILE_MAX);
        return;
    }
    uint8_t *profile = ct_alloc_bytes(&d->alloc, size);
    if (profile == NULL) {
        ct_color_ignore(&d->color, "out of memory for the HEIF ICC profile");
        return;
    }
    struct heif_error result = ct_heif.heif_image_handle_get_raw_color_profile(handle, profile);
    if (result.code == heif_error_Ok)
        ct_color_to_srgb(&d->alloc, d->output.pixels, d->thumb_width, d->thumb_height, CT_COLOR_MODEL_RGB, profile,
                         size, &d->color);
    else
        ct_color_ignore(&d->color, "libheif cannot return the ICC profile (%s)", result.message);
    ct_alloc_free(&d->alloc, profile);
}

/*
 * An nclx description (H.273 codes): its primaries as chromaticities and
 * its transfer as a gamma for ct_color_gamma_to_srgb. The BT.709, BT.601,
 * BT.2020 and sRGB curves are all taken as sRGB's; PQ and HLG (HDR) would
 * need tone mapping and are left as decoded.
 */
static void ct_heic_apply_nclx(ct_heic_decoder *d, const struct heif_color_profile_nclx *nclx) {
    unsigned primaries = nclx->color_primaries, transfer = nclx->transfer_characteristics;
    char description[64];
    snprintf(description, sizeof description, "HEIF nclx %u/%u/%u", primaries, transfer,
             (unsigned)nclx->matrix_coefficients);
    snprintf(d->color.profile, sizeof d->color.profile, "%s", description);
    if (transfer == heif_transfer_characteristic_ITU_R_BT_2100_0_PQ
        || transfer == heif_transfer_characteristic_ITU_R_BT_2100_0_HLG) {
        ct_color_ignore(&d->color, "%s transfer (HDR) is not tone-mapped",
                        transfer == heif_transfer_characteristic_ITU_R_BT_2100_0_PQ ? "PQ" : "HLG");
        return;
    }
    if (transfer == heif_transfer_characteristic_logarithmic_100
        || transfer == heif_transfer_characteristic_logarithmic_100_sqrt10) {
        ct_color_ignore(&d->color, "logarithmic transfer %u is not converted", transfer);
        return;
    }
    double gamma = 0; /* the sRGB curve */
    if (transfer == heif_transfer_characteristic_ITU_R_BT_470_6_System_M) gamma = 1 / 2.2;
    if (transfer == heif_transfer_characteristic_ITU_R_BT_470_6_System_B_G) gamma = 1 / 2.8;
    if (transfer == heif_transfer_characteristic_linear) gamma = 1.0;
    if (transfer == heif_transfer_characteristic_SMPTE_ST_428_1) gamma = 1 / 2.6;
    int srgb_primaries = primaries == heif_color_primaries_ITU_R_BT_709_5 || primaries == heif_color_primaries_unspecified;
    if (srgb_primaries && gamma == 0) {
        if (primaries == heif_color_primaries_ITU_R_BT_709_5 && transfer == heif_transfer_characteristic_IEC_61966_2_1)
            d->color.status = CT_COLOR_SRGB;
        else
            d->color.profile[0] = 0; /* nothing to say: taken as sRGB */
        return;
    }
    ct_color_chromaticities c = {nclx->color_primary_white_x, nclx->color_primary_white_y,
                                 nclx->color_primary_red_x,   nclx->color_primary_red_y,
                                 nclx->color_primary_green_x, nclx->color_primary_green_y,
                                 nclx->color_primary_blue_x,  nclx->color_primary_blue_y};
    if (!srgb_primaries && !(c.white_y > 0 && c.red_y > 0 && c.green_y > 0 && c.blue_y > 0)) {
        ct_color_ignore(&d->color, "unknown colour primaries %u", primaries);
        return;
    }
    ct_color_gamma_to_srgb(&d->alloc, d->output.pixels, d->thumb_width, d->thumb_height, CT_COLOR_MODEL_RGB, gamma,
                           srgb_primaries ? NULL : &c, description, &d->color);
}

/*
 * The decoded item's colr property, else the primary's (a thumbnail item
 * written without one shows the same picture), else the nclx of the HEVC
 * stream, which libheif reports on the decoded picture: `stream`, or NULL.
 */
static void ct_heic_manage_color(ct_heic_decoder *d, const struct heif_color_profile_nclx *stream) {
    const struct heif_image_handle *handles[2] = {d->decoded_handle, d->primary_handle};
    for (int i = 0; i < 2; i++) {
        if (i == 1 && handles[1] == handles[0]) break;
        enum heif_color_profile_type type = ct_heif.heif_image_handle_get_color_profile_type(handles[i]);
        if (type == heif_color_profile_type_prof || type == heif_color_profile_type_rICC) {
            ct_heic_apply_icc(d, handles[i]);
            return;
        }
        if (type == heif_color_profile_type_nclx) {
            struct heif_color_profile_nclx *nclx = NULL;
            struct heif_error result = ct_heif.heif_image_handle_get_nclx_color_profile(handles[i], &nclx);
            if (result.code == heif_error_Ok && nclx != NULL) ct_heic_apply_nclx(d, nclx);
            ct_heif.heif_nclx_color_profile_free(nclx);
            return;
        }
    }
    if (stream != NULL) ct_heic_apply_nclx(d, stream);
}

/* ---- decoding ---- */

/* Checks that the decode fits the limit beside libheif's parsing, naming the item. */
static ct_status ct_heic_check_decode(const ct_heic_decoder *d, uint64_t needed, uint64_t limit, ct_error *error) {
    if (limit == 0 || needed <= limit) return CT_OK;
    const ct_heic_item *item = &d->decoded->item;
    char what[160];
    snprintf(what, sizeof what, "HEIC %s of %ux%u (libheif decodes it whole, to RGB planes beside libde265's picture)",
             d->decoded == &d->primary ? "primary image" : "thumbnail item", item->width, item->height);
    return ct_fail_memory_limit(error, what, needed, limit);
}

/*
 * Decodes the chosen item untransformed to planar RGB, feeds its crop to the
 * area filter and releases libheif's picture; keeps the stream's nclx and
 * the first decoder warning.
 */
static ct_status ct_heic_decode_picture(ct_heic_decoder *d, const ct_decode_options *options,
                                        struct heif_color_profile_nclx *stream, int *has_stream, ct_error *error) {
    const ct_heic_item *item = &d->decoded->item;
    int alpha = ct_heif.heif_image_handle_has_alpha_channel(d->decoded_handle) != 0;
    ct_layout layout = alpha ? CT_LAYOUT_RGBA : CT_LAYOUT_RGB;
    uint64_t peak, held;
    ct_status status = ct_heic_image_bytes(d, d->decoded, alpha, &peak, &held, error);
    if (status != CT_OK) return status;
    uint64_t ours = ct_heic_add((uint64_t)item->crop_width * 4,
                                ct_resampler_working_bytes(item->crop_width, item->crop_height, d->thumb_width,
                                                           d->thumb_height, layout, 0));
    uint64_t needed = ct_heic_add(d->context_bytes, ct_heic_max(peak, ct_heic_add(held, ours)));
    status = ct_heic_check_decode(d, needed, options->limits.max_decoder_memory, error);
    if (status != CT_OK) return status;
    if (ct_is_cancelled(options->cancel)) return ct_fail(error, CT_CANCELLED, "HEIC decode cancelled");

    struct heif_decoding_options *decoding = ct_heif.heif_decoding_options_alloc();
    if (decoding == NULL) return ct_fail(error, CT_OUT_OF_MEMORY, "out of memory for libheif's decoding options");
    decoding->ignore_transformations = 1;
    ct_alloc_note(&d->alloc, (int64_t)peak);
    d->picture_bytes = peak;
    struct heif_error result = ct_heif.heif_decode_image(d->decoded_handle, &d->picture, heif_colorspace_RGB, heif_chroma_444,
                                                 decoding);
    ct_heif.heif_decoding_options_free(decoding);
    status = ct_heic_library_status(d, result, "decoding the image", error);
    if (status != CT_OK) return status;
    /* from here on libheif holds the planes */
    if (held < peak) {
        ct_alloc_note(&d->alloc, -(int64_t)(peak - held));
        d->picture_bytes = held;
    }

    ct_heic_item placed = *item;
    status = ct_heic_place_picture(d, &placed, error);
    ct_heic_plane planes[4];
    static const enum heif_channel channels[4] = {heif_channel_R, heif_channel_G, heif_channel_B, heif_channel_Alpha};
    for (int c = 0; c < (alpha ? 4 : 3) && status == CT_OK; c++)
        status = ct_heic_get_plane(d->picture, channels[c], &placed, &planes[c], error);
    if (status != CT_OK) return status;
    struct heif_error warning;
    if (ct_heif.heif_image_get_decoding_warnings(d->picture, 0, &warning, 1) > 0)
        snprintf(d->damage, sizeof d->damage, "HEVC decoder warning: %s", warning.message);
    struct heif_color_profile_nclx *nclx = NULL;
    if (ct_heif.heif_image_get_nclx_color_profile(d->picture, &nclx).code == heif_error_Ok && nclx != NULL) {
        *stream = *nclx;
        *has_stream = 1;
    }
    ct_heif.heif_nclx_color_profile_free(nclx);

    d->row = ct_alloc_bytes(&d->alloc, (size_t)placed.crop_width * 4);
    if (d->row == NULL) return ct_fail(error, CT_OUT_OF_MEMORY, "out of memory for a HEIC row");
    d->has_output = 1;
    status = ct_row_output_init(&d->output, &d->alloc, placed.crop_width, placed.crop_height, 0, layout,
                                d->thumb_width, d->thumb_height, error);
    if (status == CT_OK)
        status = ct_heic_feed_rows(d, &placed, planes, alpha,
                                   ct_heif.heif_image_handle_is_premultiplied_alpha(d->decoded_handle) != 0, options->cancel,
                                   error);
    ct_heif.heif_image_release(d->picture);
    d->picture = NULL;
    ct_alloc_note(&d->alloc, -(int64_t)d->picture_bytes);
    d->picture_bytes = 0;
    ct_alloc_free(&d->alloc, d->row);
    d->row = NULL;
    return status;
}

/*
 * Sizes the thumbnail from the primary, picks the item to decode and how
 * to turn its picture, decodes it and converts its colours.
 */
static ct_status ct_heic_decode_image(ct_heic_decoder *d, const ct_heic_references *refs,
                                      const ct_decode_options *options, ct_error *error) {
    const ct_heic_item *primary = &d->primary.item;
    uint8_t shown = options->apply_orientation ? primary->orientation : 1;
    uint32_t width, height;
    ct_thumbnail_size(primary->crop_width, primary->crop_height, shown, options, &width, &height);
    /* the same picture shown upright, which a thumbnail item must cover */
    int turned = ct_heic_transposes(primary->orientation);
    uint32_t upright_width = turned ? height : width, upright_height = turned ? width : height;
    ct_status status = ct_heic_choose(d, refs, upright_width, upright_height, error);
    if (status != CT_OK) return status;
    const ct_heic_item *item = &d->decoded->item;
    if (d->decoded == &d->primary) {
        d->thumb_width = width;
        d->thumb_height = height;
        d->orientation = shown;
    } else {
        int item_turned = ct_heic_transposes(item->orientation);
        d->thumb_width = item_turned ? upright_height : upright_width;
        d->thumb_height = item_turned ? upright_width : upright_height;
        /* shown upright by its own transforms, back to the primary as stored, then as asked */
        d->orientation = ct_heic_compose(ct_heic_compose(item->orientation, ct_heic_inverse(primary->orientation)), shown);
    }
    struct heif_color_profile_nclx stream;
    int has_stream = 0;
    status = ct_heic_decode_picture(d, options, &stream, &has_stream, error);
    if (status == CT_OK && options->convert_to_srgb) ct_heic_manage_color(d, has_stream ? &stream : NULL);
    return status;
}

/* ---- entry points ---- */

ct_status ct_heic_probe(ct_input *input, const ct_limits *limits, ct_image_info *info, ct_error *error) {
    ct_status loaded = ct_heif_load(error);
    if (loaded != CT_OK) return loaded;
    ct_heic_decoder d;
    ct_heic_references refs;
    ct_status status = ct_heic_open(&d, input, limits, NULL, &refs, error);
    *info = status == CT_OK ? d.info : (ct_image_info){0};
    ct_heic_close(&d);
    return status;
}

ct_status ct_heic_decode(ct_input *input, const ct_decode_options *options, ct_thumbnail *thumbnail,
                         ct_error *error) {
    ct_status loaded = ct_heif_load(error);
    if (loaded != CT_OK) return loaded;
    ct_heic_decoder d;
    ct_heic_references refs;
    ct_status status = ct_heic_open(&d, input, &options->limits, options->cancel, &refs, error);
    if (status == CT_OK) status = ct_heic_decode_image(&d, &refs, options, error);
    uint8_t *pixels = NULL;
    if (status == CT_OK) {
        pixels = d.output.pixels;
        d.output.pixels = NULL; /* handed on below, still counted in the peak */
    }
    ct_heic_close(&d);

    uint32_t width = d.thumb_width, height = d.thumb_height;
    if (status == CT_OK) status = ct_finish_orientation(&d.alloc, &pixels, &width, &height, d.orientation, error);
    if (status != CT_OK) {
        free(pixels);
        memset(thumbnail, 0, sizeof *thumbnail);
        return status;
    }
    memset(thumbnail, 0, sizeof *thumbnail);
    thumbnail->pixels = pixels;
    thumbnail->width = width;
    thumbnail->height = height;
    thumbnail->source = d.info;
    thumbnail->scale_numerator = 8;
    thumbnail->jpeg_path = CT_JPEG_PATH_NONE;
    thumbnail->embedded_thumbnail = d.decoded != &d.primary;
    thumbnail->peak_bytes = d.alloc.peak;
    thumbnail->color = d.color;
    memcpy(thumbnail->damage, d.damage, sizeof thumbnail->damage);
    return CT_OK;
}
