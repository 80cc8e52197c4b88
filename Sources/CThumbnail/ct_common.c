/* Errors, allocation accounting, cancellation and input streaming. */
#include <stdarg.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "ct_internal.h"

ct_status ct_fail(ct_error *error, ct_status status, const char *format, ...) {
    if (error != NULL) {
        error->status = status;
        va_list arguments;
        va_start(arguments, format);
        vsnprintf(error->message, sizeof error->message, format, arguments);
        va_end(arguments);
    }
    return status;
}

/* CT_TOO_LARGE for `needed` bytes past `limit`, naming the option and property (`setting`) that raise it. */
static ct_status ct_fail_over_limit(ct_error *error, const char *what, uint64_t needed, uint64_t limit,
                                    const char *setting) {
    char amount[64] = "more";
    if (needed != 0)
        snprintf(amount, sizeof amount, "%llu bytes (%.1f MiB) of", (unsigned long long)needed,
                 (double)needed / (1u << 20));
    char bound[48];
    if (limit % (1u << 20) == 0)
        snprintf(bound, sizeof bound, "%llu MiB", (unsigned long long)(limit >> 20));
    else
        snprintf(bound, sizeof bound, "%llu bytes", (unsigned long long)limit);
    return ct_fail(error, CT_TOO_LARGE, "%s needs %s working memory, over the decoder memory limit of %s (%s)", what,
                   amount, bound, setting);
}

ct_status ct_fail_memory_limit(ct_error *error, const char *what, uint64_t needed, uint64_t limit) {
    return ct_fail_over_limit(error, what, needed, limit, "--max-decoder-memory, DecodingLimits.maxDecoderMemory");
}

ct_status ct_fail_jxl_memory_limit(ct_error *error, const char *what, uint64_t needed, uint64_t limit) {
    return ct_fail_over_limit(error, what, needed, limit,
                              "--max-jxl-decoder-memory, DecodingLimits.maxJPEGXLDecoderMemory");
}

const char *ct_status_name(ct_status status) {
    switch (status) {
    case CT_OK: return "ok";
    case CT_UNSUPPORTED_FORMAT: return "unsupported format";
    case CT_CORRUPT: return "corrupt";
    case CT_TRUNCATED: return "truncated";
    case CT_TOO_LARGE: return "too large";
    case CT_UNSUPPORTED_FEATURE: return "unsupported feature";
    case CT_OUT_OF_MEMORY: return "out of memory";
    case CT_IO_ERROR: return "I/O error";
    case CT_CANCELLED: return "cancelled";
    case CT_INVALID_ARGUMENT: return "invalid argument";
    }
    return "unknown";
}

/* ---- allocation accounting ---- */

/* Each tracked block starts with its size, padded to keep max_align_t alignment. */
#define CT_ALLOC_HEADER 16

void ct_alloc_note(ct_alloc *alloc, int64_t delta) {
    if (delta < 0 && (uint64_t)(-delta) > alloc->current) {
        alloc->current = 0;
        return;
    }
    alloc->current += (uint64_t)delta;
    if (alloc->current > alloc->peak) alloc->peak = alloc->current;
}

void *ct_alloc_bytes(ct_alloc *alloc, size_t size) {
    if (size > SIZE_MAX - CT_ALLOC_HEADER) return NULL;
    uint8_t *block = malloc(size + CT_ALLOC_HEADER);
    if (block == NULL) return NULL;
    memcpy(block, &size, sizeof size);
    ct_alloc_note(alloc, (int64_t)size);
    return block + CT_ALLOC_HEADER;
}

void *ct_alloc_zeroed(ct_alloc *alloc, size_t count, size_t size) {
    if (size != 0 && count > SIZE_MAX / size) return NULL;
    void *pointer = ct_alloc_bytes(alloc, count * size);
    if (pointer != NULL) memset(pointer, 0, count * size);
    return pointer;
}

void ct_alloc_free(ct_alloc *alloc, void *pointer) {
    if (pointer == NULL) return;
    uint8_t *block = (uint8_t *)pointer - CT_ALLOC_HEADER;
    size_t size;
    memcpy(&size, block, sizeof size);
    ct_alloc_note(alloc, -(int64_t)size);
    free(block);
}

/* ---- cancellation ---- */

struct ct_cancel_token {
    atomic_int cancelled;
    /* fixed at creation, so any thread may read them */
    ct_checkpoint_observer observer;
    void *observer_context;
};

ct_cancel_token *ct_cancel_token_create(void) { return ct_cancel_token_create_observed(NULL, NULL); }

ct_cancel_token *ct_cancel_token_create_observed(ct_checkpoint_observer observer, void *context) {
    ct_cancel_token *token = malloc(sizeof *token);
    if (token == NULL) return NULL;
    atomic_init(&token->cancelled, 0);
    token->observer = observer;
    token->observer_context = context;
    return token;
}

void ct_cancel_token_cancel(ct_cancel_token *token) {
    if (token != NULL) atomic_store_explicit(&token->cancelled, 1, memory_order_relaxed);
}

int ct_cancel_token_is_cancelled(const ct_cancel_token *token) {
    return token != NULL
        && atomic_load_explicit(&((ct_cancel_token *)token)->cancelled, memory_order_relaxed) != 0;
}

void ct_cancel_token_destroy(ct_cancel_token *token) { free(token); }

int ct_is_cancelled(const ct_cancel_token *token) {
    if (token != NULL && token->observer != NULL) token->observer(token->observer_context);
    return ct_cancel_token_is_cancelled(token);
}

/* ---- input ---- */

void ct_input_from_memory(ct_input *input, const uint8_t *data, size_t size) {
    memset(input, 0, sizeof *input);
    input->data = data;
    input->size = size;
}

void ct_input_from_file(ct_input *input, FILE *file, uint64_t offset, uint64_t length) {
    memset(input, 0, sizeof *input);
    input->file = file;
    input->file_base = offset;
    input->file_length = length;
}

size_t ct_input_read(ct_input *input, uint8_t *buffer, size_t count) {
    /* A read of nothing may come with no buffer (libheif 1.15 asks so while parsing the boxes
       of some damaged files), and memcpy's and fread's pointers must be valid even then. */
    if (count == 0) return 0;
    if (input->file != NULL) {
        uint64_t remaining = input->file_length - input->file_position;
        if (count > remaining) count = (size_t)remaining;
        size_t got = fread(buffer, 1, count, input->file);
        if (got < count && ferror(input->file)) input->read_error = 1;
        input->file_position += got;
        return got;
    }
    size_t available = input->size - input->position;
    size_t got = count < available ? count : available;
    memcpy(buffer, input->data + input->position, got);
    input->position += got;
    return got;
}

int ct_input_seek(ct_input *input, uint64_t offset) {
    if (input->file != NULL) {
        if (offset > input->file_length) return -1;
        clearerr(input->file);
        if (fseeko(input->file, (off_t)(input->file_base + offset), SEEK_SET) != 0) return -1;
        input->file_position = offset;
        return 0;
    }
    if (offset > input->size) return -1;
    input->position = (size_t)offset;
    return 0;
}

int ct_input_length(ct_input *input, uint64_t *length) {
    if (input->file == NULL) {
        *length = input->size;
        return 0;
    }
    off_t here = ftello(input->file);
    if (here < 0 || fseeko(input->file, 0, SEEK_END) != 0) return -1;
    off_t end = ftello(input->file);
    if (end < 0 || fseeko(input->file, here, SEEK_SET) != 0) return -1;
    uint64_t available = (uint64_t)end > input->file_base ? (uint64_t)end - input->file_base : 0;
    *length = available < input->file_length ? available : input->file_length;
    return 0;
}

void ct_buffer_free(ct_buffer *buffer) {
    if (buffer == NULL) return;
    free(buffer->data);
    buffer->data = NULL;
    buffer->size = 0;
}
