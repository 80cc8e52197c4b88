/*
 * DC-only decoding of progressive Huffman JPEGs at 1/8 scale.
 *
 * At 1/8 each 8×8 block becomes one output sample, and for a component
 * decoded with libjpeg's 1×1 IDCT that sample depends on the block's DC
 * coefficient alone. libjpeg still keeps all 64 coefficients of every block
 * of a progressive file for the whole image (2 bytes × 64 per block); this
 * decoder keeps one int16 per block. It walks the stream itself: the DC
 * scans (first and refinement, interleaved or not) are Huffman-decoded into
 * the DC planes, AC scans are passed over by looking for the marker that
 * ends them, and DQT, DHT and DRI are read as they come.
 *
 * It is strict on purpose. Anything it does not handle, or anything libjpeg
 * would warn or fail about in the parts it reads (a bad Huffman code,
 * entropy data that runs into a marker, a wrong restart marker, a bogus
 * progression, an undefined table, a truncated file), ends the attempt with
 * CT_JPEG_DC_FALLBACK before any output exists, and the caller decodes the
 * file with libjpeg as before. So a file never gets an error from here that
 * it would not get from libjpeg: the statuses stay libjpeg's.
 *
 * Output: the rows of the 1/8 image (libjpeg's output_width × output_height)
 * are made from the planes one at a time (ct_jpeg_dc_output.c) and pushed to
 * the area filter.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "ct_jpeg.h"

#define CT_DC_TABLES 4 /* DQT and DHT slots, as libjpeg's NUM_QUANT_TBLS and NUM_HUFF_TBLS */

/* A DC Huffman table as DHT defines it, and the decoding tables made from it when a scan uses it. */
typedef struct ct_dc_huffman {
    int defined;
    uint8_t bits[17]; /* codes of each length 1…16 */
    uint8_t values[256];
    /* libjpeg's derived table: the largest code of each length (-1: none) and the offset into values */
    int32_t maxcode[18];
    int32_t valoffset[18];
    /* 8-bit lookahead: length << 8 | symbol for codes of at most 8 bits; 0 for longer ones */
    uint16_t lookahead[256];
} ct_dc_huffman;

/* Entropy-coded bits, most significant first, from the stream up to the marker that ends them. */
typedef struct ct_dc_bits {
    ct_jpeg_reader *reader;
    uint64_t buffer; /* left-aligned */
    int count;
    int marker;  /* the marker that ended the data (-1: the input ended), or 0 */
    int overran; /* bits were asked for past that point: libjpeg would have warned */
} ct_dc_bits;

typedef struct ct_dc_decoder {
    const ct_jpeg_dc_frame *frame;
    ct_jpeg_reader reader;
    const ct_cancel_token *cancel;
    ct_jpeg_dc_planes *planes;
    /* tables as the stream defines them */
    uint8_t quant_defined[CT_DC_TABLES];
    uint16_t quant_dc[CT_DC_TABLES]; /* each table's first (DC) value */
    ct_dc_huffman dc_tables[CT_DC_TABLES];
    uint8_t ac_defined[CT_DC_TABLES];
    uint32_t restart_interval;
    /* per component: progression state as libjpeg's coef_bits (-1: no scan yet), bit by coefficient */
    int8_t coef_bits[4][64];
    int frames;
} ct_dc_decoder;

/* ---- tables ---- */

static ct_jpeg_dc_result ct_dc_read_dqt(ct_dc_decoder *d) {
    ct_jpeg_reader *r = &d->reader;
    int length = ct_jpeg_read16(r);
    if (length < 2) return CT_JPEG_DC_FALLBACK;
    length -= 2;
    while (length > 0) {
        int index = ct_jpeg_reader_byte(r);
        if (index < 0) return CT_JPEG_DC_FALLBACK;
        length--;
        int precision = index >> 4, slot = index & 15;
        if (slot >= CT_DC_TABLES) return CT_JPEG_DC_FALLBACK;
        /* libjpeg fills a short table with ones, then reads what is there. */
        int count = length < 64 ? length : 64;
        uint16_t first = 1;
        for (int i = 0; i < count; i++) {
            int value = precision ? ct_jpeg_read16(r) : ct_jpeg_reader_byte(r);
            if (value < 0) return CT_JPEG_DC_FALLBACK;
            if (i == 0) first = (uint16_t)value;
        }
        d->quant_dc[slot] = first;
        d->quant_defined[slot] = 1;
        length -= precision ? 2 * count : count;
    }
    return length == 0 ? CT_JPEG_DC_DONE : CT_JPEG_DC_FALLBACK;
}

static ct_jpeg_dc_result ct_dc_read_dht(ct_dc_decoder *d) {
    ct_jpeg_reader *r = &d->reader;
    int length = ct_jpeg_read16(r);
    if (length < 2) return CT_JPEG_DC_FALLBACK;
    length -= 2;
    while (length > 16) {
        int index = ct_jpeg_reader_byte(r);
        if (index < 0) return CT_JPEG_DC_FALLBACK;
        uint8_t bits[17] = {0};
        int count = 0;
        for (int i = 1; i <= 16; i++) {
            int value = ct_jpeg_reader_byte(r);
            if (value < 0) return CT_JPEG_DC_FALLBACK;
            bits[i] = (uint8_t)value;
            count += value;
        }
        length -= 17;
        if (count > 256 || count > length) return CT_JPEG_DC_FALLBACK;
        uint8_t values[256] = {0};
        for (int i = 0; i < count; i++) {
            int value = ct_jpeg_reader_byte(r);
            if (value < 0) return CT_JPEG_DC_FALLBACK;
            values[i] = (uint8_t)value;
        }
        length -= count;
        int is_ac = index & 0x10, slot = index & ~0x10;
        if (slot >= CT_DC_TABLES) return CT_JPEG_DC_FALLBACK;
        if (is_ac) {
            d->ac_defined[slot] = 1;
        } else {
            ct_dc_huffman *table = &d->dc_tables[slot];
            table->defined = 1;
            memcpy(table->bits, bits, sizeof bits);
            memcpy(table->values, values, sizeof values);
        }
    }
    return length == 0 ? CT_JPEG_DC_DONE : CT_JPEG_DC_FALLBACK;
}

static ct_jpeg_dc_result ct_dc_read_dri(ct_dc_decoder *d) {
    int length = ct_jpeg_read16(&d->reader), interval = ct_jpeg_read16(&d->reader);
    if (length != 4 || interval < 0) return CT_JPEG_DC_FALLBACK;
    d->restart_interval = (uint32_t)interval;
    return CT_JPEG_DC_DONE;
}

/* libjpeg's jpeg_make_d_derived_tbl for a DC table, with the same refusals, plus an 8-bit lookahead. */
static ct_jpeg_dc_result ct_dc_derive(ct_dc_huffman *table) {
    if (!table->defined) return CT_JPEG_DC_FALLBACK; /* libjpeg would use the standard table: let it */
    uint8_t sizes[257];
    uint32_t codes[256];
    int symbols = 0;
    for (int length = 1; length <= 16; length++) {
        if (symbols + table->bits[length] > 256) return CT_JPEG_DC_FALLBACK;
        for (int i = 0; i < table->bits[length]; i++) sizes[symbols++] = (uint8_t)length;
    }
    sizes[symbols] = 0;
    uint32_t code = 0;
    int size = sizes[0];
    for (int p = 0; sizes[p] != 0;) {
        while (sizes[p] == size) codes[p++] = code++;
        if (code >= 1u << size) return CT_JPEG_DC_FALLBACK;
        code <<= 1;
        size++;
    }
    int p = 0;
    for (int length = 1; length <= 16; length++) {
        if (table->bits[length] != 0) {
            table->valoffset[length] = p - (int32_t)codes[p];
            p += table->bits[length];
            table->maxcode[length] = (int32_t)codes[p - 1];
        } else {
            table->maxcode[length] = -1;
        }
    }
    table->valoffset[17] = 0;
    table->maxcode[17] = 0xFFFFF;
    for (int i = 0; i < symbols; i++)
        if (table->values[i] > 15) return CT_JPEG_DC_FALLBACK; /* a DC difference has at most 15 bits */
    memset(table->lookahead, 0, sizeof table->lookahead);
    p = 0;
    for (int length = 1; length <= 8; length++) {
        for (int i = 0; i < table->bits[length]; i++, p++) {
            uint32_t first = codes[p] << (8 - length), span = 1u << (8 - length);
            for (uint32_t k = 0; k < span; k++)
                table->lookahead[first + k] = (uint16_t)(length << 8 | table->values[p]);
        }
    }
    return CT_JPEG_DC_DONE;
}

/* ---- bits ---- */

/* Tops the buffer up to more than 56 bits, or to the marker that ends the data. */
static void ct_dc_fill(ct_dc_bits *b) {
    while (b->count <= 56 && b->marker == 0) {
        int c = ct_jpeg_reader_byte(b->reader);
        if (c == 0xFF) {
            do c = ct_jpeg_reader_byte(b->reader);
            while (c == 0xFF);
            if (c > 0) {
                b->marker = c;
                break;
            }
            if (c == 0) c = 0xFF; /* FF00: a stuffed FF */
        }
        if (c < 0) {
            b->marker = -1;
            break;
        }
        b->buffer |= (uint64_t)c << (56 - b->count);
        b->count += 8;
    }
}

/* Makes sure `count` bits are there; past the end of the data they read as zeros and the decode is spoiled. */
static inline void ct_dc_need(ct_dc_bits *b, int count) {
    if (b->count >= count) return;
    ct_dc_fill(b);
    if (b->count < count) {
        b->overran = 1;
        b->count = 64;
    }
}

static inline uint32_t ct_dc_take(ct_dc_bits *b, int count) {
    ct_dc_need(b, count);
    uint32_t value = (uint32_t)(b->buffer >> (64 - count));
    b->buffer <<= count;
    b->count -= count;
    return value;
}

/*
 * One Huffman symbol, as libjpeg's HUFF_DECODE: 8 bits at a time through the
 * lookahead, bit by bit for longer codes and near the end of the data (where
 * fewer than 8 bits may be left, and only the bits really used must be
 * there). -1 for a code longer than 16 bits (libjpeg warns).
 */
static int ct_dc_symbol(ct_dc_bits *b, const ct_dc_huffman *table) {
    if (b->count < 8) ct_dc_fill(b);
    int length = 1;
    if (b->count >= 8) {
        uint16_t entry = table->lookahead[b->buffer >> 56];
        if (entry != 0) {
            length = entry >> 8;
            b->buffer <<= length;
            b->count -= length;
            return entry & 0xFF;
        }
        length = 9;
    }
    int32_t code = (int32_t)ct_dc_take(b, length);
    while (code > table->maxcode[length]) {
        code = code << 1 | (int32_t)ct_dc_take(b, 1);
        if (++length > 16) return -1;
    }
    return table->values[(code + table->valoffset[length]) & 0xFF];
}

/* ---- scans ---- */

typedef struct ct_dc_scan {
    int count;
    int components[4]; /* frame indexes */
    int dc_table[4];
    int ss, se, ah, al;
} ct_dc_scan;

static ct_jpeg_dc_result ct_dc_read_sos(ct_dc_decoder *d, ct_dc_scan *scan) {
    ct_jpeg_reader *r = &d->reader;
    const ct_jpeg_dc_frame *frame = d->frame;
    int length = ct_jpeg_read16(r), count = ct_jpeg_reader_byte(r);
    if (length < 0 || count < 1 || count > 4 || length != 6 + 2 * count) return CT_JPEG_DC_FALLBACK;
    scan->count = count;
    for (int i = 0; i < count; i++) {
        int id = ct_jpeg_reader_byte(r), tables = ct_jpeg_reader_byte(r);
        if (id < 0 || tables < 0) return CT_JPEG_DC_FALLBACK;
        int index = -1;
        for (int c = 0; c < frame->component_count; c++)
            if (frame->components[c].id == id) index = c;
        for (int j = 0; j < i; j++)
            if (scan->components[j] == index) index = -1; /* a component twice: libjpeg refuses it */
        if (index < 0) return CT_JPEG_DC_FALLBACK;
        scan->components[i] = index;
        scan->dc_table[i] = tables >> 4;
    }
    int ss = ct_jpeg_reader_byte(r), se = ct_jpeg_reader_byte(r), approximation = ct_jpeg_reader_byte(r);
    if (ss < 0 || se < 0 || approximation < 0) return CT_JPEG_DC_FALLBACK;
    scan->ss = ss;
    scan->se = se;
    scan->ah = approximation >> 4;
    scan->al = approximation & 15;
    /* The progression rules libjpeg enforces (jdphuff.c). */
    int invalid = ss == 0 ? se != 0 : (se < ss || se > 63 || count != 1);
    if (invalid || scan->al > 13 || (scan->ah != 0 && scan->al != scan->ah - 1)) return CT_JPEG_DC_FALLBACK;
    if (count > 1) {
        int blocks = 0;
        for (int i = 0; i < count; i++)
            blocks += frame->components[scan->components[i]].h * frame->components[scan->components[i]].v;
        if (blocks > 10) return CT_JPEG_DC_FALLBACK; /* libjpeg's D_MAX_BLOCKS_IN_MCU */
    }
    /*
     * libjpeg warns (a bogus progression) when a band does not continue where
     * the last scan of it stopped. Checked for the scans the scan-skipping
     * path shows libjpeg: every DC scan, and the AC scans of components whose
     * IDCT at 1/8 reads AC terms (4:2:0 chroma); an AC scan before any DC
     * scan makes that path decode every scan, so it is left to libjpeg.
     */
    uint64_t through_se = se == 63 ? ~0ull : (1ull << (se + 1)) - 1, band = through_se & ~((1ull << ss) - 1);
    for (int i = 0; i < count; i++) {
        int8_t *bits = d->coef_bits[scan->components[i]];
        if (ss > 0 && bits[0] < 0) return CT_JPEG_DC_FALLBACK;
        int scaled_size = frame->components[scan->components[i]].scaled_size;
        if (ss > 0 && (band & ct_jpeg_coefficients_read(scaled_size)) == 0) continue;
        for (int k = ss; k <= se; k++) {
            int expected = bits[k] < 0 ? 0 : bits[k];
            if (scan->ah != expected) return CT_JPEG_DC_FALLBACK;
            bits[k] = (int8_t)scan->al;
        }
    }
    return CT_JPEG_DC_DONE;
}

/* Latches each component's quantisation value at its first scan, as libjpeg does. */
static ct_jpeg_dc_result ct_dc_latch_quantisation(ct_dc_decoder *d, const ct_dc_scan *scan) {
    for (int i = 0; i < scan->count; i++) {
        int c = scan->components[i];
        if (d->planes->quant_latched[c]) continue;
        int slot = d->frame->components[c].quant_table;
        if (slot >= CT_DC_TABLES || !d->quant_defined[slot]) return CT_JPEG_DC_FALLBACK;
        d->planes->quant[c] = d->quant_dc[slot];
        d->planes->quant_latched[c] = 1;
    }
    return CT_JPEG_DC_DONE;
}

/* Moves past a restart marker, which must be the expected RSTn (libjpeg resynchronises otherwise: we refuse). */
static ct_jpeg_dc_result ct_dc_restart(ct_dc_bits *b, int *next_restart) {
    b->buffer = 0;
    b->count = 0;
    if (b->marker == 0) {
        uint64_t offset;
        b->marker = ct_jpeg_next_marker(b->reader, &offset);
    }
    if (b->marker != JPEG_RST0 + *next_restart) return CT_JPEG_DC_FALLBACK;
    b->marker = 0;
    *next_restart = (*next_restart + 1) & 7;
    return CT_JPEG_DC_DONE;
}

/* Decodes one DC scan's entropy data into the planes; returns the marker after it in *marker. */
static ct_jpeg_dc_result ct_dc_decode_scan(ct_dc_decoder *d, const ct_dc_scan *scan, int *marker, ct_status *status,
                                           ct_error *error) {
    const ct_jpeg_dc_frame *frame = d->frame;
    ct_jpeg_dc_planes *planes = d->planes;
    if (scan->ah == 0) {
        for (int i = 0; i < scan->count; i++) {
            if (scan->dc_table[i] >= CT_DC_TABLES) return CT_JPEG_DC_FALLBACK;
            if (ct_dc_derive(&d->dc_tables[scan->dc_table[i]]) != CT_JPEG_DC_DONE) return CT_JPEG_DC_FALLBACK;
        }
    }
    uint32_t mcus_per_row, mcu_rows;
    if (scan->count == 1) {
        const ct_jpeg_dc_component *only = &frame->components[scan->components[0]];
        mcus_per_row = only->width_in_blocks;
        mcu_rows = only->height_in_blocks;
    } else {
        mcus_per_row = frame->mcus_per_row;
        mcu_rows = frame->mcu_rows;
    }
    ct_dc_bits bits = {.reader = &d->reader};
    int last_dc[4] = {0};
    int next_restart = 0;
    uint32_t until_restart = d->restart_interval;
    for (uint32_t my = 0; my < mcu_rows; my++) {
        if (ct_is_cancelled(d->cancel)) {
            *status = ct_fail(error, CT_CANCELLED, "decode cancelled");
            return CT_JPEG_DC_FAILED;
        }
        for (uint32_t mx = 0; mx < mcus_per_row; mx++) {
            if (d->restart_interval != 0) {
                if (until_restart == 0) {
                    if (ct_dc_restart(&bits, &next_restart) != CT_JPEG_DC_DONE) return CT_JPEG_DC_FALLBACK;
                    memset(last_dc, 0, sizeof last_dc);
                    until_restart = d->restart_interval;
                }
                until_restart--;
            }
            for (int i = 0; i < scan->count; i++) {
                int c = scan->components[i];
                const ct_jpeg_dc_component *component = &frame->components[c];
                int h = scan->count == 1 ? 1 : component->h, v = scan->count == 1 ? 1 : component->v;
                /* A refinement scan reads no table, and its selectors are not checked: no pointer from them. */
                const ct_dc_huffman *table = scan->ah == 0 ? &d->dc_tables[scan->dc_table[i]] : NULL;
                for (int by = 0; by < v; by++) {
                    int16_t *row = planes->plane[c] + (size_t)(my * (uint32_t)v + (uint32_t)by) * planes->stride[c];
                    for (int bx = 0; bx < h; bx++) {
                        int16_t *coefficient = row + mx * (uint32_t)h + (uint32_t)bx;
                        if (scan->ah != 0) {
                            if (ct_dc_take(&bits, 1)) *coefficient = (int16_t)(*coefficient | 1 << scan->al);
                            continue;
                        }
                        int size = ct_dc_symbol(&bits, table);
                        if (size < 0) return CT_JPEG_DC_FALLBACK;
                        int difference = 0;
                        if (size != 0) {
                            int raw = (int)ct_dc_take(&bits, size);
                            difference = raw < 1 << (size - 1) ? raw - (1 << size) + 1 : raw;
                        }
                        int previous = last_dc[i];
                        if ((previous >= 0 && difference > INT_MAX - previous)
                            || (previous < 0 && difference < INT_MIN - previous))
                            return CT_JPEG_DC_FALLBACK; /* libjpeg: JERR_BAD_DCT_COEF */
                        last_dc[i] = previous + difference;
                        *coefficient = (int16_t)(uint16_t)((uint32_t)last_dc[i] << scan->al);
                    }
                }
            }
            if (bits.overran) return CT_JPEG_DC_FALLBACK; /* libjpeg: "premature end of data segment" */
        }
    }
    if (bits.marker == -1) return CT_JPEG_DC_FALLBACK;
    *marker = bits.marker;
    if (*marker == 0 || (*marker >= JPEG_RST0 && *marker <= JPEG_RST0 + 7)) {
        uint64_t offset;
        *marker = ct_jpeg_entropy_end(&d->reader, &offset);
    }
    return *marker < 0 ? CT_JPEG_DC_FALLBACK : CT_JPEG_DC_DONE;
}

/* ---- the walk ---- */

static ct_jpeg_dc_result ct_dc_skip_segment(ct_jpeg_reader *r) {
    int length = ct_jpeg_read16(r);
    if (length < 2) return CT_JPEG_DC_FALLBACK;
    return ct_jpeg_reader_skip(r, (size_t)length - 2) ? CT_JPEG_DC_DONE : CT_JPEG_DC_FALLBACK;
}

/* Reads the whole stream, DC scans into the planes; CT_JPEG_DC_DONE at EOI. */
static ct_jpeg_dc_result ct_dc_walk(ct_dc_decoder *d, ct_status *status, ct_error *error) {
    ct_jpeg_reader *r = &d->reader;
    if (ct_jpeg_reader_byte(r) != 0xFF || ct_jpeg_reader_byte(r) != 0xD8) return CT_JPEG_DC_FALLBACK;
    uint64_t offset;
    int marker = ct_jpeg_next_marker(r, &offset);
    for (;;) {
        ct_jpeg_dc_result result = CT_JPEG_DC_DONE;
        switch (marker) {
        case -1:
            return CT_JPEG_DC_FALLBACK; /* no EOI: libjpeg calls it truncated */
        case 0xD9: /* EOI */
            for (int c = 0; c < d->frame->component_count; c++)
                if (d->coef_bits[c][0] < 0) return CT_JPEG_DC_FALLBACK; /* a component without a DC scan */
            return CT_JPEG_DC_DONE;
        case 0xDA: { /* SOS */
            ct_dc_scan scan;
            result = ct_dc_read_sos(d, &scan);
            if (result == CT_JPEG_DC_DONE && scan.ss == 0) result = ct_dc_latch_quantisation(d, &scan);
            if (result != CT_JPEG_DC_DONE) return result;
            if (scan.ss == 0) {
                result = ct_dc_decode_scan(d, &scan, &marker, status, error);
                if (result != CT_JPEG_DC_DONE) return result;
            } else {
                marker = ct_jpeg_entropy_end(r, &offset); /* an AC scan: never decoded */
            }
            continue;
        }
        case 0xC2: /* the progressive Huffman frame libjpeg already read */
            result = ++d->frames > 1 ? CT_JPEG_DC_FALLBACK : ct_dc_skip_segment(r);
            break;
        case 0xDB:
            result = ct_dc_read_dqt(d);
            break;
        case 0xC4:
            result = ct_dc_read_dht(d);
            break;
        case 0xDD:
            result = ct_dc_read_dri(d);
            break;
        case 0xFE: /* COM */
            result = ct_dc_skip_segment(r);
            break;
        case 0x01: /* TEM, and RSTn outside a scan: libjpeg ignores them */
        case 0xD0: case 0xD1: case 0xD2: case 0xD3: case 0xD4: case 0xD5: case 0xD6: case 0xD7:
            break;
        default:
            if (marker >= JPEG_APP0 && marker <= JPEG_APP0 + 15) result = ct_dc_skip_segment(r);
            else return CT_JPEG_DC_FALLBACK; /* another frame, DAC, DNL, a second SOI, reserved markers */
            break;
        }
        if (result != CT_JPEG_DC_DONE) return result;
        marker = ct_jpeg_next_marker(r, &offset);
    }
}

/* ---- entry points ---- */

ct_jpeg_dc_result ct_jpeg_dc_decode(const ct_jpeg_dc_frame *frame, ct_input *input, uint8_t *buffer,
                                    size_t capacity, ct_alloc *alloc, uint64_t memory_limit,
                                    const ct_cancel_token *cancel, ct_jpeg_dc_planes *planes, ct_status *status,
                                    ct_error *error) {
    memset(planes, 0, sizeof *planes);
    uint64_t bytes = 0;
    for (int c = 0; c < frame->component_count; c++) {
        const ct_jpeg_dc_component *component = &frame->components[c];
        planes->stride[c] = frame->component_count == 1 ? component->width_in_blocks
                                                         : frame->mcus_per_row * (uint32_t)component->h;
        planes->rows[c] = frame->component_count == 1 ? component->height_in_blocks
                                                       : frame->mcu_rows * (uint32_t)component->v;
        bytes += (uint64_t)planes->stride[c] * planes->rows[c] * sizeof(int16_t);
    }
    if (memory_limit != 0 && bytes > memory_limit) return CT_JPEG_DC_FALLBACK; /* libjpeg needs more: it refuses */
    for (int c = 0; c < frame->component_count; c++) {
        planes->plane[c] = ct_alloc_zeroed(alloc, (size_t)planes->stride[c] * planes->rows[c], sizeof(int16_t));
        if (planes->plane[c] == NULL) {
            *status = ct_fail(error, CT_OUT_OF_MEMORY, "out of memory for the DC coefficients of a %ux%u JPEG",
                              frame->width, frame->height);
            return CT_JPEG_DC_FAILED;
        }
    }
    if (ct_input_seek(input, 0) != 0) {
        *status = ct_fail(error, CT_IO_ERROR, "cannot seek in the input file");
        return CT_JPEG_DC_FAILED;
    }
    ct_dc_decoder *d = ct_alloc_zeroed(alloc, 1, sizeof *d);
    if (d == NULL) {
        *status = ct_fail(error, CT_OUT_OF_MEMORY, "out of memory for the DC decoder");
        return CT_JPEG_DC_FAILED;
    }
    d->frame = frame;
    d->cancel = cancel;
    d->planes = planes;
    memset(d->coef_bits, -1, sizeof d->coef_bits);
    ct_jpeg_reader_init(&d->reader, input, buffer, capacity);
    ct_jpeg_dc_result result = ct_dc_walk(d, status, error);
    if (result == CT_JPEG_DC_FALLBACK && input->read_error) {
        *status = ct_fail(error, CT_IO_ERROR, "could not read the input file");
        result = CT_JPEG_DC_FAILED;
    }
    ct_alloc_free(alloc, d);
    return result;
}

void ct_jpeg_dc_planes_free(ct_jpeg_dc_planes *planes, ct_alloc *alloc) {
    for (int c = 0; c < 4; c++) ct_alloc_free(alloc, planes->plane[c]);
    memset(planes, 0, sizeof *planes);
}
