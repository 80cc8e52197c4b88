/*
 * Reading a JPEG stream's bytes and markers without libjpeg: the scan
 * planner (ct_jpeg_scans.c) and the DC-only decoder (ct_jpeg_dc.c) walk the
 * stream with these. Marker parsing follows libjpeg's own next_marker.
 */
#include <string.h>

#include "ct_jpeg.h"

void ct_jpeg_reader_init(ct_jpeg_reader *r, ct_input *input, uint8_t *buffer, size_t capacity) {
    r->input = input;
    r->buffer = buffer;
    r->capacity = capacity;
    if (input->file == NULL) { /* memory input: the whole stream is one window */
        r->next = input->data;
        r->end = input->data + input->size;
        r->end_offset = input->size;
    } else {
        r->next = r->end = buffer;
        r->end_offset = 0;
    }
}

int ct_jpeg_reader_fill(ct_jpeg_reader *r) {
    if (r->input->file == NULL) return 0;
    size_t got = ct_input_read(r->input, r->buffer, r->capacity);
    if (got == 0) return 0;
    r->next = r->buffer;
    r->end = r->buffer + got;
    r->end_offset += got;
    return 1;
}

uint64_t ct_jpeg_reader_offset(const ct_jpeg_reader *r) {
    return r->end_offset - (uint64_t)(r->end - r->next);
}

int ct_jpeg_reader_skip(ct_jpeg_reader *r, size_t count) {
    while (count > 0) {
        if (r->next == r->end && !ct_jpeg_reader_fill(r)) return 0;
        size_t available = (size_t)(r->end - r->next);
        size_t step = count < available ? count : available;
        r->next += step;
        count -= step;
    }
    return 1;
}

/* Like libjpeg's next_marker: skips garbage and FF00 up to a marker; sets the offset of its FF. */
int ct_jpeg_next_marker(ct_jpeg_reader *r, uint64_t *marker_offset) {
    for (;;) {
        int c = ct_jpeg_reader_byte(r);
        while (c != 0xFF) {
            if (c < 0) return -1;
            c = ct_jpeg_reader_byte(r);
        }
        do c = ct_jpeg_reader_byte(r);
        while (c == 0xFF);
        if (c < 0) return -1;
        if (c != 0) {
            *marker_offset = ct_jpeg_reader_offset(r) - 2;
            return c;
        }
    }
}

/*
 * Reads entropy-coded data up to the marker that ends it (not RSTn, FF00 or
 * fill bytes) and returns its code, with the offset of the first FF before it.
 */
int ct_jpeg_entropy_end(ct_jpeg_reader *r, uint64_t *marker_offset) {
    for (;;) {
        if (r->next == r->end && !ct_jpeg_reader_fill(r)) return -1;
        const uint8_t *ff = memchr(r->next, 0xFF, (size_t)(r->end - r->next));
        if (ff == NULL) {
            r->next = r->end;
            continue;
        }
        r->next = ff + 1;
        uint64_t start = ct_jpeg_reader_offset(r) - 1;
        int c;
        do c = ct_jpeg_reader_byte(r);
        while (c == 0xFF);
        if (c < 0) return -1;
        if (c == 0 || (c >= JPEG_RST0 && c <= JPEG_RST0 + 7)) continue;
        *marker_offset = start;
        return c;
    }
}

int ct_jpeg_read16(ct_jpeg_reader *r) {
    int high = ct_jpeg_reader_byte(r), low = ct_jpeg_reader_byte(r);
    return high < 0 || low < 0 ? -1 : high << 8 | low;
}
