/*
 * Progressive scan planning: which scans a reduced-size decode can skip.
 *
 * A progressive JPEG sends each component's coefficients in bands of the
 * zig-zag order (Ss…Se), each band in its own scan. At a reduced DCT scale
 * libjpeg runs a reduced IDCT that reads only some coefficients of each
 * block; a scan whose band holds none of them for its component changes
 * nothing in the output, yet costs Huffman decoding, which is most of the
 * time of a small-scale decode. We walk the stream's markers ourselves,
 * find each such scan's byte range (SOS marker to the next marker), and the
 * source manager leaves those ranges out.
 *
 * The walk follows libjpeg's own marker parsing (garbage before a marker is
 * skipped the way its next_marker does; FF00 stuffing, RSTn and FF fill bytes
 * inside entropy data), and gives up (plan not understood: decode everything)
 * on anything unusual: a second frame, DNL, unknown markers, invalid scan
 * parameters, an AC scan before the component's DC scan. Output stays
 * identical to the full decode at the same scale, as long as block smoothing
 * is off (it is the only other reader of the skipped coefficients).
 */
#include <string.h>

#include "ct_jpeg.h"

/* Natural (row-major) position of each zig-zag index. */
static const uint8_t ct_jpeg_zigzag_to_natural[64] = {
    0,  1,  8,  16, 9,  2,  3,  10, 17, 24, 32, 25, 18, 11, 4,  5,  12, 19, 26, 33, 40, 48,
    41, 34, 27, 20, 13, 6,  7,  14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23,
    30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63,
};

uint64_t ct_jpeg_coefficients_read(int scaled_size) {
    /*
     * Frequencies (bit i = row or column i) that libjpeg-turbo's IDCT for
     * each output size reads. Its 2x2 and 4x4 IDCTs (jidctred.c and their
     * SIMD versions) are not "top-left corner" transforms: the 2x2 one uses
     * frequencies 0, 1, 3, 5 and 7, the 4x4 one all but 4. So at 1/4 and
     * 1/2 scale every AC band is needed, and only 1x1 blocks (DC alone)
     * leave scans to skip.
     */
    uint8_t lines;
    switch (scaled_size) {
    case 1: lines = 0x01; break;
    case 2: lines = 0xAB; break;
    case 4: lines = 0xEF; break;
    default: lines = 0xFF; break;
    }
    uint64_t coefficients = 0;
    for (int k = 0; k < 64; k++) {
        int row = ct_jpeg_zigzag_to_natural[k] >> 3, column = ct_jpeg_zigzag_to_natural[k] & 7;
        if ((lines >> row & 1) && (lines >> column & 1)) coefficients |= 1ull << k;
    }
    return coefficients;
}

/* ---- the walk ---- */

typedef enum ct_jpeg_walk {
    CT_JPEG_WALK_DONE,    /* reached EOI */
    CT_JPEG_WALK_UNUSUAL, /* something we do not plan around */
    CT_JPEG_WALK_EOF,     /* the input ended before EOI */
    CT_JPEG_WALK_NO_MEMORY
} ct_jpeg_walk;

/* Skips a marker segment's parameters after its length field. */
static ct_jpeg_walk ct_jpeg_skip_segment(ct_jpeg_reader *r) {
    int length = ct_jpeg_read16(r);
    if (length < 0) return CT_JPEG_WALK_EOF;
    if (length < 2) return CT_JPEG_WALK_UNUSUAL;
    return ct_jpeg_reader_skip(r, (size_t)length - 2) ? CT_JPEG_WALK_DONE : CT_JPEG_WALK_EOF;
}

static int ct_jpeg_plan_add(ct_jpeg_scan_plan *plan, ct_alloc *alloc, uint64_t start, uint64_t end) {
    if (plan->count == plan->capacity) {
        size_t capacity = plan->capacity == 0 ? 16 : plan->capacity * 2;
        ct_jpeg_range *drop = ct_alloc_bytes(alloc, capacity * sizeof *drop);
        if (drop == NULL) return 0;
        if (plan->count > 0) memcpy(drop, plan->drop, plan->count * sizeof *drop);
        ct_alloc_free(alloc, plan->drop);
        plan->drop = drop;
        plan->capacity = capacity;
    }
    plan->drop[plan->count].start = start;
    plan->drop[plan->count].end = end;
    plan->count++;
    return 1;
}

/* What the walk knows about the frame while it goes. */
typedef struct ct_jpeg_walk_state {
    const ct_jpeg_component_need *components;
    int component_count;
    uint8_t dc_seen[MAX_COMPONENTS];
    ct_jpeg_scan_plan *plan;
    ct_alloc *alloc;
} ct_jpeg_walk_state;

static int ct_jpeg_component_index(const ct_jpeg_walk_state *state, int id) {
    for (int i = 0; i < state->component_count; i++)
        if (state->components[i].id == id) return i;
    return -1;
}

/*
 * Reads one scan (after its SOS marker at sos_offset) through its entropy
 * data, plans to drop it when no component needs its band, and returns the
 * marker that follows in *marker.
 */
static ct_jpeg_walk ct_jpeg_walk_scan(ct_jpeg_reader *r, ct_jpeg_walk_state *state, uint64_t sos_offset,
                                      int *marker, uint64_t *marker_offset) {
    int length = ct_jpeg_read16(r);
    int count = ct_jpeg_reader_byte(r);
    if (length < 0 || count < 0) return CT_JPEG_WALK_EOF;
    if (count < 1 || count > 4 || length != 6 + 2 * count) return CT_JPEG_WALK_UNUSUAL;
    int indexes[4];
    for (int i = 0; i < count; i++) {
        int id = ct_jpeg_reader_byte(r);
        if (id < 0 || ct_jpeg_reader_byte(r) < 0) return CT_JPEG_WALK_EOF;
        indexes[i] = ct_jpeg_component_index(state, id);
        if (indexes[i] < 0) return CT_JPEG_WALK_UNUSUAL;
    }
    int ss = ct_jpeg_reader_byte(r), se = ct_jpeg_reader_byte(r), approximation = ct_jpeg_reader_byte(r);
    if (ss < 0 || se < 0 || approximation < 0) return CT_JPEG_WALK_EOF;
    int ah = approximation >> 4, al = approximation & 15;
    /* The progression rules libjpeg enforces (jdphuff.c); it rejects these, so let it. */
    int invalid = ss == 0 ? se != 0 : (se < ss || se > 63 || count != 1);
    if ((ah != 0 && al != ah - 1) || al > 13 || invalid) return CT_JPEG_WALK_UNUSUAL;

    uint64_t through_se = se == 63 ? ~0ull : (1ull << (se + 1)) - 1;
    uint64_t band = through_se & ~((1ull << ss) - 1); /* zig-zag indexes ss…se */
    int drop = ss > 0;
    for (int i = 0; i < count; i++) {
        int c = indexes[i];
        if (ss == 0) state->dc_seen[c] = 1;
        else if (!state->dc_seen[c]) return CT_JPEG_WALK_UNUSUAL; /* libjpeg warns; it must see the scan */
        if (band & state->components[c].coefficients) drop = 0;
    }
    *marker = ct_jpeg_entropy_end(r, marker_offset);
    if (*marker < 0) return CT_JPEG_WALK_EOF;
    if (drop && !ct_jpeg_plan_add(state->plan, state->alloc, sos_offset, *marker_offset))
        return CT_JPEG_WALK_NO_MEMORY;
    return CT_JPEG_WALK_DONE;
}

static ct_jpeg_walk ct_jpeg_walk_stream(ct_jpeg_reader *r, ct_jpeg_walk_state *state) {
    int soi_high = ct_jpeg_reader_byte(r), soi_low = ct_jpeg_reader_byte(r);
    if (soi_high != 0xFF || soi_low != 0xD8) return soi_low < 0 ? CT_JPEG_WALK_EOF : CT_JPEG_WALK_UNUSUAL;
    int frames = 0;
    uint64_t marker_offset;
    int marker = ct_jpeg_next_marker(r, &marker_offset);
    for (;;) {
        ct_jpeg_walk walk = CT_JPEG_WALK_DONE;
        if (marker < 0) return CT_JPEG_WALK_EOF;
        if (marker == JPEG_EOI) return CT_JPEG_WALK_DONE;
        if (marker == 0xDA) { /* SOS: its walk also reads the marker after the scan */
            walk = ct_jpeg_walk_scan(r, state, marker_offset, &marker, &marker_offset);
            if (walk != CT_JPEG_WALK_DONE) return walk;
            continue;
        }
        switch (marker) {
        case 0xC0: case 0xC1: case 0xC2: case 0xC9: case 0xCA: /* the frame libjpeg accepted */
            if (++frames > 1) return CT_JPEG_WALK_UNUSUAL;
            walk = ct_jpeg_skip_segment(r);
            break;
        case 0xC4: case 0xCC: case 0xDB: case 0xDD: case 0xFE: /* DHT, DAC, DQT, DRI, COM */
            walk = ct_jpeg_skip_segment(r);
            break;
        case 0x01: /* TEM, and RSTn outside a scan: no parameters, libjpeg ignores them */
        case 0xD0: case 0xD1: case 0xD2: case 0xD3: case 0xD4: case 0xD5: case 0xD6: case 0xD7:
            break;
        default:
            if (marker >= JPEG_APP0 && marker <= JPEG_APP0 + 15) walk = ct_jpeg_skip_segment(r);
            else return CT_JPEG_WALK_UNUSUAL; /* a second SOI, DNL, unsupported or reserved markers */
            break;
        }
        if (walk != CT_JPEG_WALK_DONE) return walk;
        marker = ct_jpeg_next_marker(r, &marker_offset);
    }
}

ct_status ct_jpeg_plan_scans(ct_input *input, uint8_t *buffer, size_t capacity,
                             const ct_jpeg_component_need *components, int component_count, ct_alloc *alloc,
                             ct_jpeg_scan_plan *plan, ct_error *error) {
    memset(plan, 0, sizeof *plan);
    if (component_count > MAX_COMPONENTS) return CT_OK;
    if (ct_input_seek(input, 0) != 0) return ct_fail(error, CT_IO_ERROR, "cannot seek in the input file");
    ct_jpeg_reader reader;
    ct_jpeg_reader_init(&reader, input, buffer, capacity);
    ct_jpeg_walk_state state = {
        .components = components, .component_count = component_count, .plan = plan, .alloc = alloc};
    switch (ct_jpeg_walk_stream(&reader, &state)) {
    case CT_JPEG_WALK_DONE:
        plan->understood = 1;
        return CT_OK;
    case CT_JPEG_WALK_UNUSUAL:
        ct_jpeg_scan_plan_free(plan, alloc);
        return CT_OK;
    case CT_JPEG_WALK_EOF:
        ct_jpeg_scan_plan_free(plan, alloc);
        if (input->read_error) return ct_fail(error, CT_IO_ERROR, "could not read the input file");
        return ct_fail(error, CT_TRUNCATED, "JPEG: the file is truncated (it ends before the EOI marker)");
    case CT_JPEG_WALK_NO_MEMORY:
        break;
    }
    ct_jpeg_scan_plan_free(plan, alloc);
    return ct_fail(error, CT_OUT_OF_MEMORY, "out of memory planning progressive scans");
}

void ct_jpeg_scan_plan_free(ct_jpeg_scan_plan *plan, ct_alloc *alloc) {
    ct_alloc_free(alloc, plan->drop);
    memset(plan, 0, sizeof *plan);
}
