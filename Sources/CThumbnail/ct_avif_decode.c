/*
 * AVIF header probe and AVIF-to-thumbnail decode with libavif (dav1d below it).
 *
 * libavif reads through an avifIO of ours over ct_input: a memory input is
 * handed over in place (persistent, so libavif keeps pointers instead of
 * copies); a file is read at the offsets libavif asks for into one buffer
 * that grows to the largest read (the meta box, an item's AV1 data), and
 * libavif copies what it keeps. The file is never held whole, only the
 * compressed data of the image being decoded.
 *
 * libavif 0.11 has no scaled decode: dav1d decodes the whole picture and
 * keeps it (the YUV planes, and an alpha item's plane, in its frame pool),
 * with its own per-frame state. A grid is worse: every tile is decoded by
 * a dav1d instance of its own, each keeping its picture until the end, and
 * libavif assembles them into a canvas as large as the image. All of that
 * is known from the header before anything is decoded, so it is computed
 * (ct_avif_library_bytes) and checked against limits.max_decoder_memory
 * before avifDecoderNextImage; the probe reports it as whole_image_bytes.
 * The picture's rows then go one at a time through ct_yuv_row_to_rgba into
 * the area filter, so no RGB frame exists: ours is one RGBA row.
 *
 * The tiles a grid has and their sizes are not in libavif's API, so a small
 * reader of our own walks the meta box (pitm, iinf, iref, ipco/ipma: item
 * types, dimg and auxl references, ispe and auxC) before libavif parses the
 * file. It also checks the primary item's ispe against the size limits, so
 * a hostile header is refused as too large rather than failing in libavif.
 * After libavif's parse, decoder->imageSizeLimit (dav1d's frame size
 * limit) is lowered to the largest frame the header declares, so no AV1
 * frame can be decoded at a larger size than was counted.
 *
 * Memory bound. libavif and dav1d allocate with malloc and have no
 * allocator hook, so peak_bytes counts what this file allocates (the read
 * buffer and meta box of a file input, the thumbnail, the resampler, one
 * RGBA row, LittleCMS) plus this estimate of the libraries' memory, for
 * each AV1 frame decoded (each grid tile, colour and alpha) of aligned size
 * W' × H' (dimensions rounded up to 128), b bytes a sample (1 at 8 bits, 2
 * above) and chroma fraction c (2 for 4:4:4, 1 for 4:2:2, 0.5 for 4:2:0, 0
 * for 4:0:0 and alpha):
 *   dav1d picture  (b·W' + 64) · H' · (1 + c) + 64
 *   dav1d state    W'·H' / 2 + 128·b·(3 + c)·W' + 512 KiB
 * plus, for a grid, libavif's canvas (b·W·H·(1 + c) for colour, b·W·H for
 * alpha), plus, for a file input, libavif's copy of the AV1 data (the frame's
 * extent in the file), plus 64 KiB for libavif's parsed boxes. The constants
 * come from measuring dav1d 1.0.0 under libavif 0.11.1 with a heap counter
 * (8- to 12-bit, 4:0:0 to 4:4:4, alpha, grids, 0.3 to 24 MP); the estimate
 * stays above the measured heap (see the harness in the work directory).
 * Not covered: a frame whose coded size differs from its ispe (libavif then
 * scales it to the ispe size: one more picture), or whose AV1 sequence
 * header contradicts av1C's depth or subsampling, which only a damaged or
 * hostile file has (the rows are then read as decoded, never past them).
 *
 * With E that estimate (the probe's whole_image_bytes), S the file's size
 * for a file input (0 in memory: it bounds our read buffer, libavif's copy
 * of the AV1 data and our look at the meta box), w × h the size shown,
 * t the thumbnail's pixels and C what LittleCMS takes (ct_color.c, a few
 * hundred KiB for a matrix-shaper profile):
 *   peak_bytes ≤ E + 64 KiB + 2·S + 4·w + ct_resampler_working_bytes(w, h, tw, th, RGBA) + 8·t + C
 * (8·t: the thumbnail twice while ct_finish_orientation turns it). libavif
 * and dav1d are released before the colour stage and the turn.
 *
 * dav1d reports damaged AV1 data on stderr ("Error parsing OBU data"):
 * libavif 0.11 installs no dav1d logger and offers no way to. The decode
 * still fails cleanly with CT_CORRUPT.
 *
 * What is shown: the primary item (or an AVIS sequence's first frame), its
 * alpha item (premultiplied alpha is made straight again), cropped by a
 * valid clap box, with irot/imir given back as an EXIF orientation for
 * ct_finish_orientation. Colour: an ICC profile as for JPEG; nclx primaries
 * other than BT.709's become chromaticities for ct_color_gamma_to_srgb;
 * HDR transfers (PQ, HLG) are reported as not tone-mapped.
 */
#include <stdlib.h>
#include <string.h>

#include "ct_codec_libraries.h"

/* Rows between looks at the cancel token, as for PNG. */
#define CT_AVIF_CANCEL_INTERVAL 32u
/*
 * dav1d's per-frame state beyond the picture (see the top of the file):
 * loop-filter levels and block data per 4×4 block, line buffers for the
 * loop filters per column and plane (twice as wide above 8 bits), its
 * context and tables.
 */
#define CT_AVIF_DAV1D_STATE_BYTES (512u * 1024u)
#define CT_AVIF_DAV1D_BYTES_PER_COLUMN 128u
/* libavif's decoder and parsed boxes. */
#define CT_AVIF_LIBAVIF_BYTES (64u * 1024u)
/* Top-level boxes looked at for ftyp, meta and moov: real files have a handful. */
#define CT_AVIF_TOP_BOXES_MAX 1024u
/* Items and properties the meta reader keeps: far beyond any real file (a 256 × 256 grid has 65537 items). */
#define CT_AVIF_ITEMS_MAX 70000u
#define CT_AVIF_PROPERTIES_MAX 32767u

/* ---- reading boxes ---------------------------------------------------- */

/* Bytes not yet read of a box's payload. */
typedef struct ct_avif_span {
    const uint8_t *data;
    size_t size;
} ct_avif_span;

static int ct_avif_take(ct_avif_span *span, size_t count, const uint8_t **out) {
    if (span->size < count) return 0;
    *out = span->data;
    span->data += count;
    span->size -= count;
    return 1;
}

static int ct_avif_u8(ct_avif_span *span, uint32_t *value) {
    const uint8_t *p;
    if (!ct_avif_take(span, 1, &p)) return 0;
    *value = p[0];
    return 1;
}

static int ct_avif_u16(ct_avif_span *span, uint32_t *value) {
    const uint8_t *p;
    if (!ct_avif_take(span, 2, &p)) return 0;
    *value = (uint32_t)p[0] << 8 | p[1];
    return 1;
}

static int ct_avif_u32(ct_avif_span *span, uint32_t *value) {
    const uint8_t *p;
    if (!ct_avif_take(span, 4, &p)) return 0;
    *value = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
    return 1;
}

/* An item ID: 16 bits in version 0 of pitm, iinf's infe (version 2), iref and ipma; 32 bits otherwise. */
static int ct_avif_id(ct_avif_span *span, int wide, uint32_t *value) {
    return wide ? ct_avif_u32(span, value) : ct_avif_u16(span, value);
}

/* The next box of span: its type and payload. 0 at the end or when the box does not fit. */
static int ct_avif_box(ct_avif_span *span, char type[4], ct_avif_span *payload) {
    ct_avif_span at = *span;
    uint32_t size32;
    const uint8_t *name;
    if (!ct_avif_u32(&at, &size32) || !ct_avif_take(&at, 4, &name)) return 0;
    uint64_t size = size32, header = 8;
    if (size32 == 1) {
        uint32_t high, low;
        if (!ct_avif_u32(&at, &high) || !ct_avif_u32(&at, &low)) return 0;
        size = (uint64_t)high << 32 | low;
        header = 16;
    } else if (size32 == 0) {
        size = span->size;
    }
    if (size < header || size > span->size) return 0;
    memcpy(type, name, 4);
    payload->data = span->data + header;
    payload->size = (size_t)(size - header);
    span->data += size;
    span->size -= (size_t)size;
    return 1;
}

/* A FullBox's version (its flags are not needed here). */
static int ct_avif_full_box(ct_avif_span *payload, uint32_t *version, uint32_t *flags) {
    uint32_t word;
    if (!ct_avif_u32(payload, &word)) return 0;
    *version = word >> 24;
    *flags = word & 0xFFFFFFu;
    return 1;
}

/* ---- the meta box: what libavif will decode ---------------------------- */

typedef struct ct_avif_item {
    uint32_t id;
    char type[4];
    uint32_t width, height; /* ispe; 0 when absent */
    uint32_t aux_for;       /* auxl: the item this one is auxiliary to */
    uint8_t alpha;          /* auxC names an alpha plane */
} ct_avif_item;

/* A property of ipco, as far as it matters here. */
typedef struct ct_avif_property {
    uint32_t width, height; /* ispe */
    uint8_t is_ispe, alpha;
} ct_avif_property;

/* The AV1 frames a decode makes, summed over tiles: enough for ct_avif_library_bytes. */
typedef struct ct_avif_frames {
    uint32_t count;
    uint64_t aligned_area;   /* Σ W'·H' */
    uint64_t aligned_width;  /* Σ W' */
    uint64_t aligned_height; /* Σ H' */
    uint64_t largest_area;   /* the largest W·H, for dav1d's frame size limit */
} ct_avif_frames;

/* What the meta box says about the primary item and its alpha. */
typedef struct ct_avif_layout {
    int found;           /* a primary item was found and described */
    uint32_t width, height; /* the primary item's ispe */
    int color_grid, alpha_grid, has_alpha;
    ct_avif_frames color, alpha;
} ct_avif_layout;

typedef struct ct_avif_meta {
    ct_alloc *alloc;
    ct_avif_item *items;
    uint32_t item_count;
    ct_avif_property *properties;
    uint32_t property_count;
    uint32_t primary_id;
    ct_avif_span iref; /* the iref payload after its FullBox header; size 0 when absent */
    int iref_wide;
} ct_avif_meta;

static ct_avif_item *ct_avif_find_item(const ct_avif_meta *meta, uint32_t id) {
    uint32_t low = 0, high = meta->item_count;
    while (low < high) {
        uint32_t middle = low + (high - low) / 2;
        if (meta->items[middle].id < id) low = middle + 1;
        else high = middle;
    }
    return low < meta->item_count && meta->items[low].id == id ? &meta->items[low] : NULL;
}

static int ct_avif_item_order(const void *a, const void *b) {
    uint32_t x = ((const ct_avif_item *)a)->id, y = ((const ct_avif_item *)b)->id;
    return x < y ? -1 : x > y;
}

static int ct_avif_read_iinf(ct_avif_meta *meta, ct_avif_span payload) {
    uint32_t version, flags, count;
    if (!ct_avif_full_box(&payload, &version, &flags)) return 0;
    if (!(version == 0 ? ct_avif_u16(&payload, &count) : ct_avif_u32(&payload, &count))) return 0;
    if (count > CT_AVIF_ITEMS_MAX || meta->items != NULL) return 0;
    meta->items = ct_alloc_zeroed(meta->alloc, count ? count : 1, sizeof *meta->items);
    if (meta->items == NULL) return 0;
    char type[4];
    ct_avif_span entry;
    while (meta->item_count < count && ct_avif_box(&payload, type, &entry)) {
        uint32_t infe_version, id, protection;
        const uint8_t *item_type;
        if (memcmp(type, "infe", 4) != 0 || !ct_avif_full_box(&entry, &infe_version, &flags)) continue;
        /* Versions 0 and 1 have no item type: nothing AVIF decodes. */
        if (infe_version < 2 || !ct_avif_id(&entry, infe_version > 2, &id) || !ct_avif_u16(&entry, &protection)
            || !ct_avif_take(&entry, 4, &item_type))
            continue;
        ct_avif_item *item = &meta->items[meta->item_count++];
        item->id = id;
        memcpy(item->type, item_type, 4);
    }
    qsort(meta->items, meta->item_count, sizeof *meta->items, ct_avif_item_order);
    return 1;
}

static int ct_avif_is_alpha_urn(ct_avif_span payload) {
    static const char *const urns[] = {"urn:mpeg:mpegB:cicp:systems:auxiliary:alpha", "urn:mpeg:hevc:2015:auxid:1"};
    for (size_t i = 0; i < sizeof urns / sizeof urns[0]; i++) {
        size_t length = strlen(urns[i]);
        if (payload.size > length && memcmp(payload.data, urns[i], length) == 0 && payload.data[length] == 0) return 1;
    }
    return 0;
}

static int ct_avif_read_ipco(ct_avif_meta *meta, ct_avif_span payload) {
    ct_avif_span scan = payload, body;
    char type[4];
    uint32_t count = 0;
    while (ct_avif_box(&scan, type, &body)) count++;
    if (count > CT_AVIF_PROPERTIES_MAX || meta->properties != NULL) return 0;
    meta->properties = ct_alloc_zeroed(meta->alloc, count ? count : 1, sizeof *meta->properties);
    if (meta->properties == NULL) return 0;
    meta->property_count = count;
    for (uint32_t i = 0; i < count && ct_avif_box(&payload, type, &body); i++) {
        ct_avif_property *property = &meta->properties[i];
        uint32_t version, flags;
        if (!ct_avif_full_box(&body, &version, &flags)) continue;
        if (memcmp(type, "ispe", 4) == 0) {
            property->is_ispe = ct_avif_u32(&body, &property->width) && ct_avif_u32(&body, &property->height);
        } else if (memcmp(type, "auxC", 4) == 0) {
            property->alpha = (uint8_t)ct_avif_is_alpha_urn(body);
        }
    }
    return 1;
}

/* Gives each item the ispe and auxC its associations name (after iinf and ipco). */
static int ct_avif_read_ipma(ct_avif_meta *meta, ct_avif_span payload) {
    uint32_t version, flags, count;
    if (!ct_avif_full_box(&payload, &version, &flags) || !ct_avif_u32(&payload, &count)) return 0;
    for (uint32_t i = 0; i < count; i++) {
        uint32_t id, associations;
        if (!ct_avif_id(&payload, version >= 1, &id) || !ct_avif_u8(&payload, &associations)) return 0;
        ct_avif_item *item = ct_avif_find_item(meta, id);
        for (uint32_t j = 0; j < associations; j++) {
            uint32_t index;
            if (flags & 1) {
                if (!ct_avif_u16(&payload, &index)) return 0;
                index &= 0x7FFFu;
            } else {
                if (!ct_avif_u8(&payload, &index)) return 0;
                index &= 0x7Fu;
            }
            if (item == NULL || index == 0 || index > meta->property_count) continue;
            const ct_avif_property *property = &meta->properties[index - 1];
            if (property->is_ispe) {
                item->width = property->width;
                item->height = property->height;
            }
            item->alpha |= property->alpha;
        }
    }
    return 1;
}

/* Reads iinf, the properties and pitm; keeps iref for the passes over references. */
static int ct_avif_read_meta_boxes(ct_avif_meta *meta, ct_avif_span payload) {
    uint32_t version, flags;
    if (!ct_avif_full_box(&payload, &version, &flags)) return 0;
    char type[4];
    ct_avif_span body, iprp = {NULL, 0};
    while (ct_avif_box(&payload, type, &body)) {
        if (memcmp(type, "pitm", 4) == 0) {
            if (!ct_avif_full_box(&body, &version, &flags) || !ct_avif_id(&body, version != 0, &meta->primary_id))
                return 0;
        } else if (memcmp(type, "iinf", 4) == 0) {
            if (!ct_avif_read_iinf(meta, body)) return 0;
        } else if (memcmp(type, "iref", 4) == 0) {
            if (!ct_avif_full_box(&body, &version, &flags)) return 0;
            meta->iref = body;
            meta->iref_wide = version != 0;
        } else if (memcmp(type, "iprp", 4) == 0) {
            iprp = body;
        }
    }
    if (meta->items == NULL) return 0;
    ct_avif_span ipma[4];
    unsigned ipma_count = 0;
    while (ct_avif_box(&iprp, type, &body)) {
        if (memcmp(type, "ipco", 4) == 0 && !ct_avif_read_ipco(meta, body)) return 0;
        if (memcmp(type, "ipma", 4) == 0 && ipma_count < 4) ipma[ipma_count++] = body;
    }
    for (unsigned i = 0; i < ipma_count; i++)
        if (meta->properties != NULL && !ct_avif_read_ipma(meta, ipma[i])) return 0;
    return 1;
}

static void ct_avif_add_frame(ct_avif_frames *frames, uint32_t width, uint32_t height) {
    uint64_t aligned_width = ((uint64_t)width + 127) & ~(uint64_t)127;
    uint64_t aligned_height = ((uint64_t)height + 127) & ~(uint64_t)127;
    frames->count++;
    frames->aligned_area += aligned_width * aligned_height;
    frames->aligned_width += aligned_width;
    frames->aligned_height += aligned_height;
    if ((uint64_t)width * height > frames->largest_area) frames->largest_area = (uint64_t)width * height;
}

/*
 * Walks iref: `reference` 'auxl' marks auxiliary items, 'dimg' from
 * `from` adds each referenced tile to frames (one per reference, which is
 * at least as many as libavif decodes). A tile without ispe counts at the
 * image's size.
 */
static void ct_avif_walk_references(const ct_avif_meta *meta, const char *reference, uint32_t from,
                                    ct_avif_frames *frames, uint32_t width, uint32_t height) {
    ct_avif_span payload = meta->iref, body;
    char type[4];
    while (ct_avif_box(&payload, type, &body)) {
        uint32_t source, count;
        if (memcmp(type, reference, 4) != 0 || !ct_avif_id(&body, meta->iref_wide, &source)
            || !ct_avif_u16(&body, &count))
            continue;
        for (uint32_t i = 0; i < count; i++) {
            uint32_t target;
            if (!ct_avif_id(&body, meta->iref_wide, &target)) break;
            if (frames == NULL) {
                ct_avif_item *item = ct_avif_find_item(meta, source);
                if (item != NULL && i == 0) item->aux_for = target;
            } else if (source == from) {
                const ct_avif_item *tile = ct_avif_find_item(meta, target);
                int sized = tile != NULL && tile->width != 0 && tile->height != 0;
                ct_avif_add_frame(frames, sized ? tile->width : width, sized ? tile->height : height);
            }
        }
    }
}

/* The frames of an item libavif decodes: its tiles when it is a grid, else itself. */
static void ct_avif_item_frames(const ct_avif_meta *meta, const ct_avif_item *item, uint32_t width, uint32_t height,
                                int *grid, ct_avif_frames *frames) {
    *grid = memcmp(item->type, "grid", 4) == 0;
    if (*grid) ct_avif_walk_references(meta, "dimg", item->id, frames, width, height);
    else ct_avif_add_frame(frames, width, height);
}

/* Describes the primary item and its alpha from the meta box payload; layout->found stays 0 when it cannot. */
static void ct_avif_read_layout(ct_alloc *alloc, ct_avif_span payload, ct_avif_layout *layout) {
    ct_avif_meta meta;
    memset(&meta, 0, sizeof meta);
    meta.alloc = alloc;
    memset(layout, 0, sizeof *layout);
    if (ct_avif_read_meta_boxes(&meta, payload)) {
        const ct_avif_item *primary = ct_avif_find_item(&meta, meta.primary_id);
        if (primary != NULL && primary->width != 0 && primary->height != 0) {
            layout->found = 1;
            layout->width = primary->width;
            layout->height = primary->height;
            ct_avif_item_frames(&meta, primary, primary->width, primary->height, &layout->color_grid, &layout->color);
            ct_avif_walk_references(&meta, "auxl", 0, NULL, 0, 0);
            /* libavif takes the first alpha item (in item order) auxiliary to the primary. */
            for (uint32_t i = 0; i < meta.item_count && !layout->has_alpha; i++) {
                const ct_avif_item *item = &meta.items[i];
                int decodable = memcmp(item->type, "av01", 4) == 0 || memcmp(item->type, "grid", 4) == 0;
                if (!decodable || !item->alpha || item->aux_for != primary->id) continue;
                layout->has_alpha = 1;
                uint32_t width = item->width ? item->width : primary->width;
                uint32_t height = item->height ? item->height : primary->height;
                ct_avif_item_frames(&meta, item, width, height, &layout->alpha_grid, &layout->alpha);
            }
        }
    }
    ct_alloc_free(alloc, meta.items);
    ct_alloc_free(alloc, meta.properties);
}

/* ---- input ------------------------------------------------------------ */

typedef struct ct_avif_decoder {
    ct_alloc alloc;
    ct_input *input;
    uint64_t length;
    const ct_limits *limits;
    const ct_cancel_token *cancel;
    /* file input: the bytes of libavif's last read */
    uint8_t *buffer;
    size_t buffer_size;
    /* why a read failed, when it did */
    int cancelled, read_error, buffer_refused;
    uint64_t buffer_wanted;
    avifIO io;
    avifDecoder *decoder;
    /* the top-level boxes */
    char major_brand[4];
    int has_moov, has_meta, box_beyond_end;
    /* libavif decodes an AVIS track's first frame rather than the primary item (its AVIF_DECODER_SOURCE_AUTO rule) */
    int tracks;
    uint64_t meta_offset, meta_size;
    ct_avif_layout layout;
    /* the libraries' memory as estimated (noted in alloc while they hold it) and our read buffer's growth */
    uint64_t library_bytes, input_bytes;
    int library_noted;
    ct_image_info info;
    avifCropRect crop; /* the rectangle shown: the clap box's, else the whole image */
    /* the colour facts, kept for the colour stage once libavif is gone (the profile copied) */
    avifColorPrimaries primaries;
    avifTransferCharacteristics transfer;
    avifMatrixCoefficients matrix;
    uint8_t *icc;
    size_t icc_size;
    ct_error error;
} ct_avif_decoder;

/* libavif's read: the bytes at offset, cut at the end of the input, valid until the next read. */
static avifResult ct_avif_read(struct avifIO *io, uint32_t read_flags, uint64_t offset, size_t size, avifROData *out) {
    ct_avif_decoder *d = io->data;
    if (read_flags != 0) return AVIF_RESULT_IO_ERROR;
    if (ct_is_cancelled(d->cancel)) {
        d->cancelled = 1;
        return AVIF_RESULT_IO_ERROR;
    }
    if (offset > d->length) return AVIF_RESULT_IO_ERROR;
    if (size > d->length - offset) size = (size_t)(d->length - offset);
    if (d->input->file == NULL) {
        out->data = size != 0 ? d->input->data + offset : d->input->data;
        out->size = size;
        return AVIF_RESULT_OK;
    }
    if (size > d->buffer_size) {
        uint64_t limit = d->limits->max_decoder_memory;
        if (limit != 0 && d->alloc.current - d->buffer_size + size > limit) {
            d->buffer_refused = 1;
            d->buffer_wanted = d->alloc.current - d->buffer_size + size;
            return AVIF_RESULT_IO_ERROR;
        }
        ct_alloc_free(&d->alloc, d->buffer);
        d->buffer_size = 0;
        d->buffer = ct_alloc_bytes(&d->alloc, size);
        if (d->buffer == NULL) return AVIF_RESULT_OUT_OF_MEMORY;
        d->buffer_size = size;
    }
    if (ct_input_seek(d->input, offset) != 0 || ct_input_read(d->input, d->buffer, size) != size) {
        d->read_error = 1;
        return AVIF_RESULT_IO_ERROR;
    }
    out->data = d->buffer;
    out->size = size;
    return AVIF_RESULT_OK;
}

/* Reads count bytes at offset into buffer; 0 when they are not all there. */
static int ct_avif_read_at(ct_avif_decoder *d, uint64_t offset, uint8_t *buffer, size_t count) {
    return ct_input_seek(d->input, offset) == 0 && ct_input_read(d->input, buffer, count) == count;
}

/*
 * Walks the top-level boxes: ftyp's major brand, where meta is, whether
 * there is a moov, and whether a box runs past the end of the data (a file
 * cut short, whatever libavif later calls it).
 */
static ct_status ct_avif_scan(ct_avif_decoder *d, ct_error *error) {
    uint64_t offset = 0;
    for (unsigned boxes = 0; boxes < CT_AVIF_TOP_BOXES_MAX && offset < d->length; boxes++) {
        uint8_t head[16];
        size_t want = d->length - offset < sizeof head ? (size_t)(d->length - offset) : sizeof head;
        if (!ct_avif_read_at(d, offset, head, want)) break;
        if (want < 8) {
            d->box_beyond_end = 1;
            break;
        }
        uint64_t size = (uint64_t)head[0] << 24 | (uint64_t)head[1] << 16 | (uint64_t)head[2] << 8 | head[3];
        uint64_t header = 8;
        if (size == 1) {
            if (want < 16) {
                d->box_beyond_end = 1;
                break;
            }
            size = 0;
            for (int i = 8; i < 16; i++) size = size << 8 | head[i];
            header = 16;
        } else if (size == 0) {
            size = d->length - offset;
        }
        if (size < header) break;
        if (size > d->length - offset) d->box_beyond_end = 1;
        if (memcmp(head + 4, "ftyp", 4) == 0 && offset == 0 && want >= 12) memcpy(d->major_brand, head + 8, 4);
        if (memcmp(head + 4, "moov", 4) == 0) d->has_moov = 1;
        if (memcmp(head + 4, "meta", 4) == 0 && !d->has_meta && size <= d->length - offset) {
            d->has_meta = 1;
            d->meta_offset = offset + header;
            d->meta_size = size - header;
        }
        if (size > d->length - offset) break;
        offset += size;
    }
    if (d->input->read_error) return ct_fail(error, CT_IO_ERROR, "could not read the AVIF input");
    if (d->length < 8) d->box_beyond_end = 1; /* not even one box header */
    return CT_OK;
}

/* Reads the meta box's layout (in place for a memory input) and checks the primary item's size. */
static ct_status ct_avif_read_meta(ct_avif_decoder *d, ct_error *error) {
    if (!d->has_meta) return CT_OK;
    ct_avif_span payload;
    uint8_t *held = NULL;
    if (d->input->file == NULL) {
        payload.data = d->input->data + d->meta_offset;
        payload.size = (size_t)d->meta_size;
    } else {
        uint64_t limit = d->limits->max_decoder_memory;
        if (limit != 0 && d->alloc.current + d->meta_size > limit)
            return ct_fail_memory_limit(error, "AVIF meta box", d->alloc.current + d->meta_size, limit);
        if (d->meta_size > SIZE_MAX || (held = ct_alloc_bytes(&d->alloc, (size_t)d->meta_size)) == NULL)
            return ct_fail(error, CT_OUT_OF_MEMORY, "out of memory for a %llu-byte AVIF meta box",
                           (unsigned long long)d->meta_size);
        if (!ct_avif_read_at(d, d->meta_offset, held, (size_t)d->meta_size)) {
            ct_alloc_free(&d->alloc, held);
            return ct_fail(error, d->input->read_error ? CT_IO_ERROR : CT_TRUNCATED,
                           "could not read the AVIF meta box");
        }
        payload.data = held;
        payload.size = (size_t)d->meta_size;
    }
    ct_avif_read_layout(&d->alloc, payload, &d->layout);
    ct_alloc_free(&d->alloc, held);
    if (!d->layout.found) return CT_OK;
    return ct_check_limits(d->layout.width, d->layout.height, d->limits, error);
}

/* ---- describing the image --------------------------------------------- */

static ct_status ct_avif_status(ct_avif_decoder *d, avifResult result, const char *stage, ct_error *error) {
    const char *detail = d->decoder != NULL && d->decoder->diag.error[0] != 0 ? d->decoder->diag.error
                                                                           : ct_avif.avifResultToString(result);
    if (d->cancelled) return ct_fail(error, CT_CANCELLED, "AVIF decode cancelled");
    if (d->read_error || d->input->read_error) return ct_fail(error, CT_IO_ERROR, "could not read the AVIF input");
    if (d->buffer_refused)
        return ct_fail_memory_limit(error, "AVIF (reading its data)", d->buffer_wanted, d->limits->max_decoder_memory);
    switch (result) {
    case AVIF_RESULT_OK: return CT_OK;
    case AVIF_RESULT_OUT_OF_MEMORY: return ct_fail(error, CT_OUT_OF_MEMORY, "out of memory in libavif (%s)", stage);
    case AVIF_RESULT_NO_CODEC_AVAILABLE:
    case AVIF_RESULT_NOT_IMPLEMENTED:
    case AVIF_RESULT_UNSUPPORTED_DEPTH:
        return ct_fail(error, CT_UNSUPPORTED_FEATURE, "AVIF %s: %s", stage, detail);
    case AVIF_RESULT_TRUNCATED_DATA: return ct_fail(error, CT_TRUNCATED, "AVIF data ends early (%s)", stage);
    default: break;
    }
    if (d->box_beyond_end)
        return ct_fail(error, CT_TRUNCATED, "AVIF data ends inside a box (%s: %s)", stage, detail);
    return ct_fail(error, CT_CORRUPT, "AVIF %s failed: %s", stage, detail);
}

/*
 * The EXIF orientation of irot (anticlockwise quarter turns) followed by
 * imir (0: top and bottom exchanged, 1: left and right).
 */
static uint8_t ct_avif_orientation(const avifImage *image) {
    static const uint8_t rotated[4] = {1, 8, 3, 6};
    static const uint8_t mirrored[2][4] = {{4, 5, 2, 7}, {2, 7, 4, 5}};
    unsigned angle = image->transformFlags & AVIF_TRANSFORM_IROT ? image->irot.angle & 3u : 0;
    if (!(image->transformFlags & AVIF_TRANSFORM_IMIR)) return rotated[angle];
#if AVIF_VERSION_MAJOR >= 1
    unsigned axis = image->imir.axis;
#else
    unsigned axis = image->imir.mode;
#endif
    return mirrored[axis & 1u][angle];
}

/* Bytes a sample in dav1d's and libavif's planes. */
static uint64_t ct_avif_sample_bytes(const avifImage *image) { return image->depth > 8 ? 2 : 1; }

/* Chroma samples per luma sample, in halves: 4 for 4:4:4, 2 for 4:2:2, 1 for 4:2:0, 0 for 4:0:0. */
static uint64_t ct_avif_chroma_halves(avifPixelFormat format) {
    switch (format) {
    case AVIF_PIXEL_FORMAT_YUV444: return 4;
    case AVIF_PIXEL_FORMAT_YUV422: return 2;
    case AVIF_PIXEL_FORMAT_YUV420: return 1;
    default: return 0;
    }
}

/* dav1d's pictures and per-frame state for these frames (see the top of the file). */
static uint64_t ct_avif_dav1d_bytes(const ct_avif_frames *frames, uint64_t sample_bytes, uint64_t chroma_halves) {
    uint64_t luma = sample_bytes * frames->aligned_area + 64 * frames->aligned_height;
    uint64_t pictures = luma + luma * chroma_halves / 2 + 64 * (uint64_t)frames->count;
    uint64_t state = frames->aligned_area / 2
        + CT_AVIF_DAV1D_BYTES_PER_COLUMN * sample_bytes * (6 + chroma_halves) / 2 * frames->aligned_width
        + (uint64_t)CT_AVIF_DAV1D_STATE_BYTES * frames->count;
    return pictures + state;
}

/*
 * The libraries' memory for decoding the image beyond their parsed boxes:
 * dav1d's frames (every tile, colour and alpha), a grid's canvas, and for a
 * file libavif's copy of the AV1 data; *whole_image without the copy. An
 * AVIS track's frame is the size libavif gives.
 */
static uint64_t ct_avif_library_bytes(const ct_avif_decoder *d, uint64_t *whole_image) {
    const avifImage *image = d->decoder->image;
    uint64_t sample_bytes = ct_avif_sample_bytes(image), chroma = ct_avif_chroma_halves(image->yuvFormat);
    uint64_t pixels = (uint64_t)image->width * image->height;
    ct_avif_frames color = d->layout.color, alpha = d->layout.alpha;
    int tracks = d->tracks;
    if (tracks) {
        memset(&color, 0, sizeof color);
        memset(&alpha, 0, sizeof alpha);
        ct_avif_add_frame(&color, image->width, image->height);
        if (d->decoder->alphaPresent) ct_avif_add_frame(&alpha, image->width, image->height);
    }
    uint64_t bytes = ct_avif_dav1d_bytes(&color, sample_bytes, chroma);
    if (d->decoder->alphaPresent) bytes += ct_avif_dav1d_bytes(&alpha, sample_bytes, 0);
    if (!tracks && d->layout.color_grid) bytes += sample_bytes * pixels + sample_bytes * pixels * chroma / 2;
    if (!tracks && d->layout.alpha_grid && d->decoder->alphaPresent) bytes += sample_bytes * pixels;
    *whole_image = bytes;
    return bytes + d->input_bytes;
}

/* The largest AV1 frame the header declares: dav1d's frame size limit, so nothing larger is decoded. */
static uint64_t ct_avif_largest_frame(const ct_avif_decoder *d) {
    const avifImage *image = d->decoder->image;
    uint64_t largest = (uint64_t)image->width * image->height;
    if (!d->tracks) {
        if (d->layout.color.largest_area > largest) largest = d->layout.color.largest_area;
        if (d->layout.alpha.largest_area > largest) largest = d->layout.alpha.largest_area;
    }
    return largest;
}

/* The part of the image a valid clap box keeps; the whole image otherwise. */
static void ct_avif_crop(const avifImage *image, avifCropRect *crop) {
    crop->x = 0;
    crop->y = 0;
    crop->width = image->width;
    crop->height = image->height;
    if (!(image->transformFlags & AVIF_TRANSFORM_CLAP)) return;
    avifCropRect rect;
    avifDiagnostics diagnostics;
    memset(&diagnostics, 0, sizeof diagnostics);
    if (ct_avif.avifCropRectConvertCleanApertureBox(&rect, &image->clap, image->width, image->height, image->yuvFormat,
                                            &diagnostics)
        && rect.width > 0 && rect.height > 0)
        *crop = rect;
}

static void ct_avif_describe(ct_avif_decoder *d, uint64_t whole_image_bytes) {
    const avifImage *image = d->decoder->image;
    ct_avif_crop(image, &d->crop);
    int gray = image->yuvFormat == AVIF_PIXEL_FORMAT_YUV400;
    memset(&d->info, 0, sizeof d->info);
    d->info.format = CT_FORMAT_AVIF;
    d->info.width = d->crop.width;
    d->info.height = d->crop.height;
    d->info.orientation = ct_avif_orientation(image);
    d->info.has_alpha = d->decoder->alphaPresent ? 1 : 0;
    d->info.components = (uint8_t)((gray ? 1 : 3) + d->info.has_alpha);
    d->info.bit_depth = (uint8_t)image->depth;
    d->info.whole_image_bytes = whole_image_bytes;
}

/* The image as limit messages name it: "AVIF 6000x4000 8-bit YUV420 (libavif and dav1d keep the whole image)". */
static void ct_avif_name(const avifImage *image, int grid, char *name, size_t size) {
    snprintf(name, size, "AVIF %s%ux%u %u-bit %s (libavif and dav1d keep the whole image)", grid ? "grid " : "",
             image->width, image->height, image->depth, ct_avif.avifPixelFormatToString(image->yuvFormat));
}

/*
 * Everything but the pixels: the boxes, libavif's parse, the size limits
 * and the libraries' memory against limits.max_decoder_memory.
 */
static ct_status ct_avif_open(ct_avif_decoder *d, ct_input *input, const ct_limits *limits,
                              const ct_cancel_token *cancel, ct_error *error) {
    memset(d, 0, sizeof *d);
    d->input = input;
    d->limits = limits;
    d->cancel = cancel;
    if (ct_input_length(input, &d->length) != 0)
        return ct_fail(error, CT_IO_ERROR, "cannot find the AVIF input's size");
    ct_status status = ct_avif_scan(d, error);
    if (status == CT_OK) status = ct_avif_read_meta(d, error);
    if (status != CT_OK) return status;

    d->decoder = ct_avif.avifDecoderCreate();
    if (d->decoder == NULL) return ct_fail(error, CT_OUT_OF_MEMORY, "cannot create the AVIF decoder");
    ct_alloc_note(&d->alloc, CT_AVIF_LIBAVIF_BYTES);
    avifDecoder *decoder = d->decoder;
    /* One thread a decode: the app decodes many images at once. */
    decoder->maxThreads = 1;
    /* Files libavif would refuse only for a missing pixi or ispe, or an invalid clap (then ignored), still decode. */
    decoder->strictFlags = AVIF_STRICT_DISABLED;
    decoder->ignoreExif = AVIF_TRUE; /* irot and imir are the orientation; HEIF says an Exif one is informative */
    decoder->ignoreXMP = AVIF_TRUE;
    if (limits->max_pixels != 0 && limits->max_pixels < decoder->imageSizeLimit)
        decoder->imageSizeLimit = (uint32_t)limits->max_pixels;
    uint32_t dimension = limits->max_width > limits->max_height ? limits->max_width : limits->max_height;
    if (limits->max_width != 0 && limits->max_height != 0 && dimension < decoder->imageDimensionLimit)
        decoder->imageDimensionLimit = dimension;
    /* libavif's AVIF_DECODER_SOURCE_AUTO rule, made explicit so that the estimate describes what libavif decodes. */
    d->tracks = memcmp(d->major_brand, "avis", 4) == 0 || (memcmp(d->major_brand, "avif", 4) != 0 && d->has_moov);
    decoder->requestedSource = d->tracks ? AVIF_DECODER_SOURCE_TRACKS : AVIF_DECODER_SOURCE_PRIMARY_ITEM;
    d->io.read = ct_avif_read;
    d->io.sizeHint = d->length;
    d->io.persistent = input->file == NULL;
    d->io.data = d;
    ct_avif.avifDecoderSetIO(decoder, &d->io);

    avifResult parsed = ct_avif.avifDecoderParse(decoder);
    /* libavif refuses an image over its own size limits as a parse failure: it is too large, not damaged. */
    uint32_t side = d->layout.width > d->layout.height ? d->layout.width : d->layout.height;
    if (parsed != AVIF_RESULT_OK && d->layout.found
        && ((uint64_t)d->layout.width * d->layout.height > decoder->imageSizeLimit
            || (decoder->imageDimensionLimit != 0 && side > decoder->imageDimensionLimit)))
        return ct_fail(error, CT_TOO_LARGE, "AVIF image of %ux%u is larger than libavif decodes (%u pixels, %u a side)",
                       d->layout.width, d->layout.height, decoder->imageSizeLimit, decoder->imageDimensionLimit);
    status = ct_avif_status(d, parsed, "header", error);
    if (status != CT_OK) return status;
    const avifImage *image = decoder->image;
    status = ct_check_limits(image->width, image->height, limits, error);
    if (status != CT_OK) return status;
    if (image->width == 0 || image->height == 0 || image->depth < 8 || image->depth > 16)
        return ct_fail(error, CT_CORRUPT, "AVIF header gives a %ux%u image of depth %u", image->width, image->height,
                       image->depth);

    /* The tiles, as libavif will make them, must be the ones counted. */
    if (!d->tracks && (!d->layout.found || d->layout.width != image->width || d->layout.height != image->height))
        return ct_fail(error, CT_CORRUPT, "AVIF meta box does not describe the %ux%u primary image libavif reads",
                       image->width, image->height);

    /* A file's AV1 data passes through our read buffer, as large as the largest read. */
    avifExtent extent;
    if (input->file != NULL && ct_avif.avifDecoderNthImageMaxExtent(decoder, 0, &extent) == AVIF_RESULT_OK)
        d->input_bytes = extent.size;
    uint64_t whole_image;
    d->library_bytes = ct_avif_library_bytes(d, &whole_image);
    uint64_t largest = ct_avif_largest_frame(d);
    if (largest < decoder->imageSizeLimit) decoder->imageSizeLimit = (uint32_t)largest;
    ct_avif_describe(d, whole_image);
    uint64_t needed = d->alloc.current + d->library_bytes + d->input_bytes;
    if (limits->max_decoder_memory != 0 && needed > limits->max_decoder_memory) {
        char name[128];
        ct_avif_name(image, !d->tracks && d->layout.color_grid, name, sizeof name);
        return ct_fail_memory_limit(error, name, needed, limits->max_decoder_memory);
    }
    return CT_OK;
}

/* Frees libavif and the read buffer; notes the libraries' memory as released. */
static void ct_avif_close(ct_avif_decoder *d) {
    if (d->decoder != NULL) {
        ct_avif.avifDecoderDestroy(d->decoder);
        d->decoder = NULL;
        ct_alloc_note(&d->alloc, -(int64_t)CT_AVIF_LIBAVIF_BYTES);
    }
    if (d->library_noted) {
        ct_alloc_note(&d->alloc, -(int64_t)d->library_bytes);
        d->library_noted = 0;
    }
    ct_alloc_free(&d->alloc, d->buffer);
    d->buffer = NULL;
    d->buffer_size = 0;
    ct_alloc_free(&d->alloc, d->icc);
    d->icc = NULL;
}

/* ---- decoding --------------------------------------------------------- */

/* The decoded picture, cut to the crop rectangle, for ct_yuv_row_to_rgba. */
static void ct_avif_frame(const avifImage *image, const avifCropRect *crop, ct_yuv_frame *frame) {
    memset(frame, 0, sizeof *frame);
    size_t sample = image->depth > 8 ? 2 : 1;
    frame->width = crop->width;
    frame->height = crop->height;
    frame->depth = (uint8_t)image->depth;
    frame->monochrome = image->yuvFormat == AVIF_PIXEL_FORMAT_YUV400;
    frame->chroma_shift_x =
        image->yuvFormat == AVIF_PIXEL_FORMAT_YUV420 || image->yuvFormat == AVIF_PIXEL_FORMAT_YUV422;
    frame->chroma_shift_y = image->yuvFormat == AVIF_PIXEL_FORMAT_YUV420;
    frame->full_range = image->yuvRange == AVIF_RANGE_FULL;
    frame->matrix = (uint16_t)image->matrixCoefficients;
    for (int plane = 0; plane < (frame->monochrome ? 1 : 3); plane++) {
        unsigned shift_x = plane ? frame->chroma_shift_x : 0, shift_y = plane ? frame->chroma_shift_y : 0;
        frame->row_bytes[plane] = image->yuvRowBytes[plane];
        frame->planes[plane] = image->yuvPlanes[plane] + (size_t)(crop->y >> shift_y) * image->yuvRowBytes[plane]
            + (size_t)(crop->x >> shift_x) * sample;
    }
    if (image->alphaPlane != NULL) {
        frame->alpha_row_bytes = image->alphaRowBytes;
        frame->alpha = image->alphaPlane + (size_t)crop->y * image->alphaRowBytes + (size_t)crop->x * sample;
        /* libavif 0.11 and later hand out alpha in full range only. */
        frame->alpha_full_range = 1;
    }
}

/* Straight alpha again from premultiplied: colour × 255 / alpha, rounded, at most 255. */
static void ct_avif_unpremultiply(uint8_t *rgba, uint32_t width) {
    for (uint32_t x = 0; x < width; x++, rgba += 4) {
        unsigned alpha = rgba[3];
        if (alpha == 255) continue;
        for (int c = 0; c < 3; c++) {
            unsigned value = alpha == 0 ? 0 : (rgba[c] * 255u + alpha / 2) / alpha;
            rgba[c] = (uint8_t)(value > 255 ? 255 : value);
        }
    }
}

/* Converts and filters the picture's rows, looking at the cancel token every CT_AVIF_CANCEL_INTERVAL rows. */
static ct_status ct_avif_push_rows(ct_avif_decoder *d, ct_row_output *output, uint8_t *row, ct_error *error) {
    const avifImage *image = d->decoder->image;
    if (image->yuvPlanes[0] == NULL || (image->yuvFormat != AVIF_PIXEL_FORMAT_YUV400 && image->yuvPlanes[1] == NULL)
        || image->width < d->crop.x + d->crop.width || image->height < d->crop.y + d->crop.height
        || (d->info.has_alpha && image->alphaPlane == NULL))
        return ct_fail(error, CT_CORRUPT, "AVIF decoder returned no picture of the size its header gives");
    ct_yuv_frame frame;
    ct_avif_frame(image, &d->crop, &frame);
    int premultiplied = frame.alpha != NULL && image->alphaPremultiplied;
    for (uint32_t y = 0; y < frame.height; y++) {
        if (y % CT_AVIF_CANCEL_INTERVAL == 0 && ct_is_cancelled(d->cancel))
            return ct_fail(error, CT_CANCELLED, "AVIF decode cancelled");
        ct_yuv_row_to_rgba(&frame, y, row);
        if (premultiplied) ct_avif_unpremultiply(row, frame.width);
        ct_resampler_push_row(&output->resampler, row);
    }
    return CT_OK;
}

/* Chromaticities of an nclx colour_primaries code (ITU-T H.273 table 2); 0 for BT.709's, unspecified or unknown. */
static int ct_avif_primaries(avifColorPrimaries code, ct_color_chromaticities *c) {
    static const struct {
        uint16_t code;
        ct_color_chromaticities c;
    } table[] = {
        {4, {0.310, 0.316, 0.67, 0.33, 0.21, 0.71, 0.14, 0.08}},              /* BT.470 M */
        {5, {0.3127, 0.3290, 0.64, 0.33, 0.29, 0.60, 0.15, 0.06}},            /* BT.601 625 lines */
        {6, {0.3127, 0.3290, 0.630, 0.340, 0.310, 0.595, 0.155, 0.070}},      /* BT.601 525 lines */
        {7, {0.3127, 0.3290, 0.630, 0.340, 0.310, 0.595, 0.155, 0.070}},      /* SMPTE 240M */
        {8, {0.310, 0.316, 0.681, 0.319, 0.243, 0.692, 0.145, 0.049}},        /* generic film */
        {9, {0.3127, 0.3290, 0.708, 0.292, 0.170, 0.797, 0.131, 0.046}},      /* BT.2020 */
        {11, {0.314, 0.351, 0.680, 0.320, 0.265, 0.690, 0.150, 0.060}},       /* DCI-P3 */
        {12, {0.3127, 0.3290, 0.680, 0.320, 0.265, 0.690, 0.150, 0.060}},     /* Display P3 */
        {22, {0.3127, 0.3290, 0.630, 0.340, 0.295, 0.605, 0.155, 0.077}},     /* EBU 3213 */
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
        if (table[i].code == code) {
            *c = table[i].c;
            return 1;
        }
    }
    return 0;
}

/* Encoding gamma of an nclx transfer_characteristics code for ct_color_gamma_to_srgb; 0 means sRGB's curve. */
static double ct_avif_transfer_gamma(avifTransferCharacteristics code) {
    switch (code) {
    case 4: return 1.0 / 2.2;  /* BT.470 M */
    case 5: return 1.0 / 2.8;  /* BT.470 BG */
    case 8: return 1.0;        /* linear */
    case 17: return 1.0 / 2.6; /* SMPTE 428 */
    default: return 0;         /* sRGB, BT.709/601/2020 and the rest: close enough to sRGB's curve */
    }
}

/* The colour stage on the finished (pre-orientation) thumbnail: ICC profile first, else nclx. */
static void ct_avif_manage_color(ct_avif_decoder *d, uint8_t *pixels, uint32_t width, uint32_t height,
                                 ct_color_report *report) {
    ct_color_model model = d->info.components - d->info.has_alpha == 1 ? CT_COLOR_MODEL_GRAY : CT_COLOR_MODEL_RGB;
    if (d->icc != NULL) {
        ct_color_to_srgb(&d->alloc, pixels, width, height, model, d->icc, d->icc_size, report);
        return;
    }
    avifColorPrimaries primaries = d->primaries;
    avifTransferCharacteristics transfer = d->transfer;
    char description[64];
    snprintf(description, sizeof description, "AVIF nclx %u/%u/%u", (unsigned)primaries, (unsigned)transfer,
             (unsigned)d->matrix);
    if (transfer == AVIF_TRANSFER_CHARACTERISTICS_SMPTE2084 || transfer == AVIF_TRANSFER_CHARACTERISTICS_HLG) {
        ct_color_ignore(report, "%s: HDR transfer (%s) is not tone-mapped",
                        description, transfer == AVIF_TRANSFER_CHARACTERISTICS_HLG ? "HLG" : "PQ");
        snprintf(report->profile, sizeof report->profile, "%s", description);
        return;
    }
    ct_color_chromaticities chromaticities;
    int other_primaries = ct_avif_primaries(primaries, &chromaticities);
    ct_color_gamma_to_srgb(&d->alloc, pixels, width, height, model, ct_avif_transfer_gamma(transfer),
                           other_primaries ? &chromaticities : NULL, description, report);
    if (report->status == CT_COLOR_NONE && primaries == AVIF_COLOR_PRIMARIES_BT709
        && transfer == AVIF_TRANSFER_CHARACTERISTICS_SRGB) {
        report->status = CT_COLOR_SRGB;
        snprintf(report->profile, sizeof report->profile, "%s", description);
    }
}

/*
 * Keeps what the colour stage needs from libavif's image, so that libavif
 * and dav1d are gone before LittleCMS runs. Only when converting.
 */
static ct_status ct_avif_keep_color(ct_avif_decoder *d, ct_error *error) {
    const avifImage *image = d->decoder->image;
    d->primaries = image->colorPrimaries;
    d->transfer = image->transferCharacteristics;
    d->matrix = image->matrixCoefficients;
    if (image->icc.size == 0) return CT_OK;
    d->icc = ct_alloc_bytes(&d->alloc, image->icc.size);
    if (d->icc == NULL) return ct_fail(error, CT_OUT_OF_MEMORY, "out of memory for an AVIF ICC profile");
    memcpy(d->icc, image->icc.data, image->icc.size);
    d->icc_size = image->icc.size;
    return CT_OK;
}

/*
 * Decodes the picture (after a last look at the cancel token) and streams
 * it through the area filter into output.
 */
static ct_status ct_avif_decode_image(ct_avif_decoder *d, const ct_decode_options *options, ct_row_output *output,
                                      ct_thumbnail *result, ct_error *error) {
    ct_thumbnail_size(d->info.width, d->info.height, options->apply_orientation ? d->info.orientation : 1, options,
                      &result->width, &result->height);
    size_t row_bytes = (size_t)d->info.width * 4;
    /* ct_yuv_row_to_rgba's rows as they come: packing opaque ones down to RGB measured no faster. */
    ct_layout layout = CT_LAYOUT_RGBA;
    uint64_t used = d->alloc.current + d->library_bytes + d->input_bytes + row_bytes;
    ct_status status = ct_resampler_check_limit("AVIF", used, options->limits.max_decoder_memory, d->info.width,
                                                d->info.height, result->width, result->height, layout, 0, error);
    if (status != CT_OK) return status;
    if (ct_is_cancelled(options->cancel)) return ct_fail(error, CT_CANCELLED, "AVIF decode cancelled");

    ct_alloc_note(&d->alloc, (int64_t)d->library_bytes);
    d->library_noted = 1;
    status = ct_avif_status(d, ct_avif.avifDecoderNextImage(d->decoder), "image", error);
    if (status != CT_OK) return status;
    uint8_t *row = ct_alloc_bytes(&d->alloc, row_bytes);
    if (row == NULL) return ct_fail(error, CT_OUT_OF_MEMORY, "out of memory for an AVIF row");
    status = ct_row_output_init(output, &d->alloc, d->info.width, d->info.height, 0, layout, result->width,
                                result->height, error);
    if (status == CT_OK) status = ct_avif_push_rows(d, output, row, error);
    ct_alloc_free(&d->alloc, row);
    if (status != CT_OK) return status;
    ct_resampler_free(&output->resampler);
    return options->convert_to_srgb ? ct_avif_keep_color(d, error) : CT_OK;
}

/* ---- entry points ----------------------------------------------------- */

ct_status ct_avif_probe(ct_input *input, const ct_limits *limits, ct_image_info *info, ct_error *error) {
    ct_status loaded = ct_avif_load(error);
    if (loaded != CT_OK) return loaded;
    ct_avif_decoder d;
    ct_status status = ct_avif_open(&d, input, limits, NULL, error);
    *info = status == CT_OK ? d.info : (ct_image_info){0};
    ct_avif_close(&d);
    return status;
}

ct_status ct_avif_decode(ct_input *input, const ct_decode_options *options, ct_thumbnail *thumbnail,
                         ct_error *error) {
    ct_status loaded = ct_avif_load(error);
    if (loaded != CT_OK) return loaded;
    ct_avif_decoder d;
    ct_row_output output;
    ct_thumbnail result;
    memset(&output, 0, sizeof output);
    memset(&result, 0, sizeof result);
    ct_status status = ct_avif_open(&d, input, &options->limits, options->cancel, &d.error);
    if (status == CT_OK) status = ct_avif_decode_image(&d, options, &output, &result, &d.error);
    if (d.decoder != NULL) {
        ct_avif.avifDecoderDestroy(d.decoder);
        d.decoder = NULL;
        ct_alloc_note(&d.alloc, -(int64_t)CT_AVIF_LIBAVIF_BYTES);
    }
    if (status == CT_OK && options->convert_to_srgb)
        ct_avif_manage_color(&d, output.pixels, result.width, result.height, &result.color);
    ct_avif_close(&d);
    result.source = d.info;
    uint8_t orientation = options->apply_orientation ? d.info.orientation : 1;
    if (status == CT_OK)
        status = ct_finish_orientation(&d.alloc, &output.pixels, &result.width, &result.height, orientation, &d.error);
    return ct_row_output_deliver(&output, &d.alloc, status, &d.error, &result, thumbnail, error);
}
