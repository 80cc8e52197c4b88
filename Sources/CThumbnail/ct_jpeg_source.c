/*
 * libjpeg source manager over a ct_input. Memory input is given to libjpeg in
 * place, file input is streamed through a 64 KiB buffer, and the byte ranges
 * of dropped progressive scans are stepped over (a seek for files), so
 * skipping scans costs no copy of the stream.
 *
 * At the end of the input we do what libjpeg's own sources do: hand over a
 * fake EOI marker so the decoder can wind down. Unlike them we remember it
 * (`eof`): the decoder turns it into CT_TRUNCATED rather than accept a
 * grey-filled picture.
 */
#include <string.h>

#include "ct_jpeg.h"

#define CT_JPEG_SOURCE_BUFFER (64 * 1024)

static const JOCTET ct_jpeg_fake_eoi[2] = {0xFF, JPEG_EOI};

static ct_jpeg_source *ct_jpeg_source_of(j_decompress_ptr cinfo) { return (ct_jpeg_source *)cinfo->src; }

/* State is set by ct_jpeg_source_init / _rewind, so a re-read after jpeg_abort starts where we put it. */
static void ct_jpeg_init_source(j_decompress_ptr cinfo) { (void)cinfo; }

static void ct_jpeg_term_source(j_decompress_ptr cinfo) { (void)cinfo; }

/* Steps over every dropped range that starts at the current offset (ranges are sorted and disjoint). */
static void ct_jpeg_source_skip_dropped(j_decompress_ptr cinfo, ct_jpeg_source *source) {
    while (source->skip_next < source->skip_count && source->offset == source->skip[source->skip_next].start) {
        source->offset = source->skip[source->skip_next++].end;
        if (source->input->file != NULL && ct_input_seek(source->input, source->offset) != 0)
            ct_jpeg_raise((j_common_ptr)cinfo, CT_IO_ERROR, "cannot seek in the input file");
    }
}

static boolean ct_jpeg_fill_input_buffer(j_decompress_ptr cinfo) {
    ct_jpeg_source *source = ct_jpeg_source_of(cinfo);
    ct_input *input = source->input;
    ct_jpeg_source_skip_dropped(cinfo, source);
    /* Deliver bytes up to the next dropped range at most. */
    uint64_t limit = source->skip_next < source->skip_count ? source->skip[source->skip_next].start : UINT64_MAX;
    size_t got;
    if (input->file == NULL) {
        uint64_t end = input->size < limit ? input->size : limit;
        got = source->offset < end ? (size_t)(end - source->offset) : 0;
        source->pub.next_input_byte = input->data + source->offset;
    } else {
        uint64_t wanted = limit - source->offset < source->capacity ? limit - source->offset : source->capacity;
        got = ct_input_read(input, source->buffer, (size_t)wanted);
        if (got == 0 && input->read_error)
            ct_jpeg_raise((j_common_ptr)cinfo, CT_IO_ERROR, "could not read the input file");
        source->pub.next_input_byte = source->buffer;
    }
    if (got == 0) {
        source->eof = 1;
        source->pub.next_input_byte = ct_jpeg_fake_eoi;
        source->pub.bytes_in_buffer = sizeof ct_jpeg_fake_eoi;
        return TRUE;
    }
    source->offset += got;
    source->pub.bytes_in_buffer = got;
    return TRUE;
}

static void ct_jpeg_skip_input_data(j_decompress_ptr cinfo, long count) {
    ct_jpeg_source *source = ct_jpeg_source_of(cinfo);
    if (count <= 0) return;
    while ((size_t)count > source->pub.bytes_in_buffer) {
        count -= (long)source->pub.bytes_in_buffer;
        ct_jpeg_fill_input_buffer(cinfo);
    }
    source->pub.next_input_byte += count;
    source->pub.bytes_in_buffer -= (size_t)count;
}

ct_status ct_jpeg_source_init(ct_jpeg_source *source, j_decompress_ptr cinfo, ct_input *input, ct_alloc *alloc,
                              ct_error *error) {
    memset(source, 0, sizeof *source);
    source->input = input;
    if (input->file != NULL) {
        source->buffer = ct_alloc_bytes(alloc, CT_JPEG_SOURCE_BUFFER);
        if (source->buffer == NULL) return ct_fail(error, CT_OUT_OF_MEMORY, "out of memory for the JPEG input buffer");
        source->capacity = CT_JPEG_SOURCE_BUFFER;
    }
    source->pub.init_source = ct_jpeg_init_source;
    source->pub.fill_input_buffer = ct_jpeg_fill_input_buffer;
    source->pub.skip_input_data = ct_jpeg_skip_input_data;
    source->pub.resync_to_restart = jpeg_resync_to_restart;
    source->pub.term_source = ct_jpeg_term_source;
    cinfo->src = &source->pub;
    return CT_OK;
}

int ct_jpeg_source_rewind(ct_jpeg_source *source, const ct_jpeg_range *skip, size_t skip_count) {
    if (ct_input_seek(source->input, 0) != 0) return -1;
    source->offset = 0;
    source->skip = skip;
    source->skip_count = skip_count;
    source->skip_next = 0;
    source->eof = 0;
    source->pub.next_input_byte = NULL;
    source->pub.bytes_in_buffer = 0;
    return 0;
}

void ct_jpeg_source_free(ct_jpeg_source *source, ct_alloc *alloc) {
    ct_alloc_free(alloc, source->buffer);
    source->buffer = NULL;
}
