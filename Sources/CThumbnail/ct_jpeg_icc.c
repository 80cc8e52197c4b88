/*
 * A JPEG's ICC profile, gathered from its APP2 "ICC_PROFILE" markers as
 * libjpeg reads the header (ours is the APP2 marker processor). A profile
 * larger than one marker holds is split over several, each naming its
 * sequence number (1…count) and the count; the pieces are kept in our
 * allocator, checked as they come (numbering, agreement on the count, no
 * repeats, CT_COLOR_PROFILE_MAX in all) and joined in sequence order once
 * the header is read. Markers met later (between progressive scans) are
 * passed over, so the libjpeg and DC-only paths see the same profile.
 *
 * Anything wrong with the markers is a reason to leave the colours alone,
 * never a decode failure: it is recorded in `problem` for the report.
 */
#include <stdarg.h>
#include <string.h>

#include "ct_jpeg.h"

/* "ICC_PROFILE\0", then the sequence number and the count. */
static const uint8_t ct_jpeg_icc_signature[12] = {'I', 'C', 'C', '_', 'P', 'R', 'O', 'F', 'I', 'L', 'E', 0};
#define CT_JPEG_ICC_HEADER 14

void ct_jpeg_icc_init(ct_jpeg_icc *icc, ct_alloc *alloc) {
    memset(icc, 0, sizeof *icc);
    icc->alloc = alloc;
}

static void ct_jpeg_icc_free_chunks(ct_jpeg_icc *icc) {
    for (int i = 0; i < 256; i++) {
        ct_alloc_free(icc->alloc, icc->chunks[i]);
        icc->chunks[i] = NULL;
    }
    icc->total = 0;
}

void ct_jpeg_icc_free(ct_jpeg_icc *icc) {
    if (icc->alloc == NULL) return;
    ct_jpeg_icc_free_chunks(icc);
    ct_alloc_free(icc->alloc, icc->profile);
    icc->profile = NULL;
    icc->size = 0;
}

/* Gives up on the profile: the first reason is kept, the pieces are freed. */
static void ct_jpeg_icc_reject(ct_jpeg_icc *icc, const char *format, ...) __attribute__((format(printf, 2, 3)));
static void ct_jpeg_icc_reject(ct_jpeg_icc *icc, const char *format, ...) {
    if (icc->problem[0] == 0) {
        va_list arguments;
        va_start(arguments, format);
        vsnprintf(icc->problem, sizeof icc->problem, format, arguments);
        va_end(arguments);
    }
    ct_jpeg_icc_free_chunks(icc);
}

/* ---- reading the segment through libjpeg's source (ours never suspends) ---- */

static void ct_jpeg_icc_copy(j_decompress_ptr cinfo, uint8_t *out, size_t count) {
    struct jpeg_source_mgr *source = cinfo->src;
    while (count > 0) {
        if (source->bytes_in_buffer == 0) source->fill_input_buffer(cinfo);
        size_t step = count < source->bytes_in_buffer ? count : source->bytes_in_buffer;
        memcpy(out, source->next_input_byte, step);
        source->next_input_byte += step;
        source->bytes_in_buffer -= step;
        out += step;
        count -= step;
    }
}

static void ct_jpeg_icc_skip(j_decompress_ptr cinfo, size_t count) {
    if (count > 0) cinfo->src->skip_input_data(cinfo, (long)count);
}

/* Checks one piece's numbering against what came before; 0 when the profile is given up. */
static int ct_jpeg_icc_accepts(ct_jpeg_icc *icc, int sequence, int count, size_t size) {
    if (icc->problem[0] != 0) return 0;
    if (sequence == 0 || count == 0 || sequence > count) {
        ct_jpeg_icc_reject(icc, "an ICC_PROFILE marker is numbered %d of %d", sequence, count);
        return 0;
    }
    if (icc->count != 0 && count != icc->count) {
        ct_jpeg_icc_reject(icc, "the ICC_PROFILE markers disagree on their count (%d, then %d)", icc->count, count);
        return 0;
    }
    if (icc->chunks[sequence] != NULL) {
        ct_jpeg_icc_reject(icc, "ICC_PROFILE marker %d of %d appears twice", sequence, count);
        return 0;
    }
    if (icc->total + size > CT_COLOR_PROFILE_MAX) {
        ct_jpeg_icc_reject(icc, "the ICC_PROFILE markers hold more than %u bytes", CT_COLOR_PROFILE_MAX);
        return 0;
    }
    return 1;
}

void ct_jpeg_icc_read_marker(ct_jpeg_icc *icc, j_decompress_ptr cinfo) {
    uint8_t length_bytes[2];
    ct_jpeg_icc_copy(cinfo, length_bytes, sizeof length_bytes);
    int length = (length_bytes[0] << 8 | length_bytes[1]) - 2;
    if (length <= 0) return; /* as libjpeg: a bogus length holds nothing */
    uint8_t header[CT_JPEG_ICC_HEADER];
    if (icc->closed || length < CT_JPEG_ICC_HEADER) {
        ct_jpeg_icc_skip(cinfo, (size_t)length);
        return;
    }
    ct_jpeg_icc_copy(cinfo, header, sizeof header);
    size_t size = (size_t)length - CT_JPEG_ICC_HEADER;
    if (memcmp(header, ct_jpeg_icc_signature, sizeof ct_jpeg_icc_signature) != 0) { /* another APP2 use (MPF, FlashPix) */
        ct_jpeg_icc_skip(cinfo, size);
        return;
    }
    icc->seen = 1;
    int sequence = header[12], count = header[13];
    if (!ct_jpeg_icc_accepts(icc, sequence, count, size)) {
        ct_jpeg_icc_skip(cinfo, size);
        return;
    }
    uint8_t *chunk = ct_alloc_bytes(icc->alloc, size);
    if (chunk == NULL) {
        ct_jpeg_icc_reject(icc, "out of memory for the ICC profile");
        ct_jpeg_icc_skip(cinfo, size);
        return;
    }
    ct_jpeg_icc_copy(cinfo, chunk, size);
    icc->chunks[sequence] = chunk;
    icc->chunk_sizes[sequence] = (uint16_t)size;
    icc->count = count;
    icc->total += size;
}

void ct_jpeg_icc_close(ct_jpeg_icc *icc) {
    icc->closed = 1;
    if (!icc->seen || icc->problem[0] != 0) return;
    for (int i = 1; i <= icc->count; i++) {
        if (icc->chunks[i] == NULL) {
            ct_jpeg_icc_reject(icc, "ICC_PROFILE marker %d of %d is missing", i, icc->count);
            return;
        }
    }
    if (icc->total == 0) {
        ct_jpeg_icc_reject(icc, "the ICC_PROFILE markers hold no profile");
        return;
    }
    icc->profile = ct_alloc_bytes(icc->alloc, icc->total);
    if (icc->profile == NULL) {
        ct_jpeg_icc_reject(icc, "out of memory for the ICC profile");
        return;
    }
    size_t offset = 0;
    for (int i = 1; i <= icc->count; i++) {
        memcpy(icc->profile + offset, icc->chunks[i], icc->chunk_sizes[i]);
        offset += icc->chunk_sizes[i];
    }
    icc->size = icc->total;
    ct_jpeg_icc_free_chunks(icc);
}
