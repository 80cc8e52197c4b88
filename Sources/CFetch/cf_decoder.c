/*
 * Content-Encoding, undone by cfetch rather than by libcurl: libcurl keeps inflating while a
 * transfer is paused and holds everything it inflated (a gzip bomb's 64 KiB read is 64 MiB
 * decoded), so the only bound that holds is to inflate no more than the caller takes. Here
 * at most one output buffer of decoded bytes exists per transfer; the transfer code
 * (cf_client.c) offers it to the caller and inflates more only once it is taken.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <zlib.h>

#include "cf_internal.h"

struct cf_decoder {
    z_stream stream;
    cf_coding coding;
    /* deflate waits for its first byte to choose zlib's wrapper or raw deflate. */
    int initialised;
    /* The last gzip member, or the deflate stream, reached its end. */
    int ended;
    /* inflate filled the output buffer last time, so it may hold more output without more input. */
    int may_hold_output;
    uint8_t *output;
    size_t output_size;
    /* Decoded bytes in output not yet taken. */
    size_t pending;
};

cf_coding cf_coding_of(const char *content_encoding) {
    if (content_encoding == NULL) return CF_CODING_IDENTITY;
    cf_coding found = CF_CODING_IDENTITY;
    int codings = 0;
    const char *token = content_encoding;
    while (*token != '\0') {
        while (*token == ',' || *token == ' ' || *token == '\t') token++;
        const char *end = token;
        while (*end != '\0' && *end != ',' && *end != ' ' && *end != '\t') end++;
        size_t length = (size_t)(end - token);
        const char *after = end;
        while (*after == ' ' || *after == '\t') after++;
        /* Anything but blanks before the next comma (a parameter, a second word) is no coding we know. */
        if (*after != '\0' && *after != ',') return CF_CODING_UNSUPPORTED;
        if (length == 0) break;
        if (!(length == 8 && strncasecmp(token, "identity", 8) == 0)) {
            if (++codings > 1) return CF_CODING_UNSUPPORTED; /* stacked: gzip, gzip */
            if ((length == 4 && strncasecmp(token, "gzip", 4) == 0) || (length == 6 && strncasecmp(token, "x-gzip", 6) == 0))
                found = CF_CODING_GZIP;
            else if (length == 7 && strncasecmp(token, "deflate", 7) == 0)
                found = CF_CODING_DEFLATE;
            else
                return CF_CODING_UNSUPPORTED;
        }
        token = after;
    }
    return found;
}

cf_decoder *cf_decoder_create(cf_coding coding, size_t output_size) {
    if (coding != CF_CODING_GZIP && coding != CF_CODING_DEFLATE) return NULL;
    cf_decoder *decoder = calloc(1, sizeof *decoder);
    if (decoder == NULL) return NULL;
    decoder->output = malloc(output_size);
    if (decoder->output == NULL) {
        free(decoder);
        return NULL;
    }
    decoder->coding = coding;
    decoder->output_size = output_size;
    return decoder;
}

void cf_decoder_free(cf_decoder *decoder) {
    if (decoder == NULL) return;
    if (decoder->initialised) inflateEnd(&decoder->stream);
    free(decoder->output);
    free(decoder);
}

size_t cf_decoder_pending(const cf_decoder *decoder, const uint8_t **bytes) {
    *bytes = decoder->output;
    return decoder->pending;
}

void cf_decoder_took(cf_decoder *decoder) { decoder->pending = 0; }

int cf_decoder_has_more(const cf_decoder *decoder) { return decoder->pending > 0 || decoder->may_hold_output; }

int cf_decoder_ended(const cf_decoder *decoder) { return decoder->ended; }

static const char *cf_coding_name(cf_coding coding) { return coding == CF_CODING_GZIP ? "gzip" : "deflate"; }

static int cf_decoder_fail(cf_decoder *decoder, const char *what, char *reason, size_t reason_size) {
    snprintf(reason, reason_size, "corrupt %s body: %s", cf_coding_name(decoder->coding), what);
    return -1;
}

/*
 * zlib's wrapper (RFC 1950, what "deflate" means) or raw deflate (what some servers send as
 * "deflate"), by the first byte: a zlib header's is 0x?8 with a window of at most 32 KiB, which
 * as raw deflate would be a stored block with nonzero padding bits, something no encoder writes.
 */
static int cf_deflate_window_bits(uint8_t first) { return (first & 0x0F) == 8 && (first >> 4) <= 7 ? 15 : -15; }

int cf_decoder_inflate(cf_decoder *decoder, const uint8_t **input, size_t *input_size, char *reason, size_t reason_size) {
    z_stream *stream = &decoder->stream;
    if (!decoder->initialised) {
        if (*input_size == 0) return 0;
        int window_bits = decoder->coding == CF_CODING_GZIP ? 15 + 16 : cf_deflate_window_bits(**input);
        if (inflateInit2(stream, window_bits) != Z_OK) return cf_decoder_fail(decoder, "zlib could not start", reason, reason_size);
        decoder->initialised = 1;
    }
    if (decoder->ended && *input_size > 0) {
        /* gzip allows members one after another (RFC 1952); a deflate stream has one end. */
        if (decoder->coding != CF_CODING_GZIP)
            return cf_decoder_fail(decoder, "data after the end of the stream", reason, reason_size);
        inflateReset(stream);
        decoder->ended = 0;
    }
    stream->next_in = (Bytef *)*input;
    stream->avail_in = (uInt)(*input_size > UINT32_MAX ? UINT32_MAX : *input_size);
    stream->next_out = decoder->output;
    stream->avail_out = (uInt)decoder->output_size;
    int status = decoder->ended ? Z_STREAM_END : inflate(stream, Z_NO_FLUSH);
    size_t consumed = (size_t)(stream->next_in - (const Bytef *)*input);
    *input += consumed;
    *input_size -= consumed;
    decoder->pending = decoder->output_size - stream->avail_out;
    decoder->may_hold_output = stream->avail_out == 0;
    switch (status) {
    case Z_OK:
    case Z_BUF_ERROR: /* no progress possible without more input: not an error for a stream */
        return 0;
    case Z_STREAM_END:
        decoder->ended = 1;
        decoder->may_hold_output = 0;
        return 0;
    case Z_MEM_ERROR:
        return cf_decoder_fail(decoder, "zlib is out of memory", reason, reason_size);
    default: /* Z_DATA_ERROR, Z_NEED_DICT, Z_STREAM_ERROR */
        return cf_decoder_fail(decoder, stream->msg != NULL ? stream->msg : "not a compressed stream", reason, reason_size);
    }
}
