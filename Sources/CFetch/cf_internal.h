/* Shared between cfetch's files; not part of its API. */
#ifndef CF_INTERNAL_H
#define CF_INTERNAL_H

#include <stddef.h>
#include <stdio.h>
#include <sys/socket.h>

#include "cfetch.h"

/**
 * Whether a client refusing private addresses refuses this one; writes its
 * numeric form into text (may be NULL).
 */
int cf_sockaddr_is_private(const struct sockaddr *address, char *text, size_t text_size);

/* ---- Content-Encoding (cf_decoder.c) ---- */

/** What a response's Content-Encoding asks of its body. */
typedef enum cf_coding {
    /** No Content-Encoding, or only "identity". */
    CF_CODING_IDENTITY,
    /** gzip (or x-gzip), members one after another allowed. */
    CF_CODING_GZIP,
    /** deflate: zlib's wrapper, or raw deflate as some servers send it. */
    CF_CODING_DEFLATE,
    /** Any other coding, or more than one (stacked): not undone. */
    CF_CODING_UNSUPPORTED
} cf_coding;

/** The coding a Content-Encoding value (NULL: none) names, its header lines joined by commas. */
cf_coding cf_coding_of(const char *content_encoding);

/** One body being inflated, with one output buffer of decoded bytes. */
typedef struct cf_decoder cf_decoder;

/** A decoder for CF_CODING_GZIP or CF_CODING_DEFLATE with an output buffer of output_size bytes; NULL when out of memory. */
cf_decoder *cf_decoder_create(cf_coding coding, size_t output_size);

void cf_decoder_free(cf_decoder *decoder);

/**
 * Inflates from *input (advancing it and reducing *input_size by what zlib took) into the output
 * buffer, which must have been taken (cf_decoder_took), until the buffer is full or the input is used up.
 * Returns 0, or -1 for data that is not the coding's, with a message in reason.
 */
int cf_decoder_inflate(cf_decoder *decoder, const uint8_t **input, size_t *input_size, char *reason, size_t reason_size);

/** The decoded bytes not yet taken (their count; *bytes points at them), valid until the next inflate. */
size_t cf_decoder_pending(const cf_decoder *decoder, const uint8_t **bytes);

/** The pending bytes were taken. */
void cf_decoder_took(cf_decoder *decoder);

/** Whether decoded bytes are pending, or zlib may hold more without more input. */
int cf_decoder_has_more(const cf_decoder *decoder);

/** Whether the stream reached its end: a body that stops before is cut short. */
int cf_decoder_ended(const cf_decoder *decoder);

#endif /* CF_INTERNAL_H */
