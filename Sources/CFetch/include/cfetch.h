/*
 * cfetch: bounded HTTP transfers on libcurl's multi interface.
 *
 * One client owns one libcurl multi handle and one I/O thread that drives it
 * with curl_multi_poll; other threads talk to it through a command queue and
 * curl_multi_wakeup. Every body is handed to the caller as it arrives, and the
 * caller can refuse bytes for now (CF_BODY_PAUSE): libcurl then stops reading
 * that socket until cf_client_resume, which is the backpressure that keeps
 * memory bounded however fast a server sends.
 *
 * A gzip or deflate Content-Encoding is undone here, not by libcurl (which
 * would go on inflating into its own memory while a transfer is paused): one
 * output buffer per transfer, refilled only once the caller has taken it, so
 * a compressed body holds no more memory than a plain one. Any other coding,
 * or more than one, ends the transfer with CF_UNSUPPORTED_ENCODING.
 *
 * Limits never trust the server: the size cap is checked against an announced
 * Content-Length (refused before the body) and against the bytes counted as
 * they arrive, decoded ones and, for a compressed body, the encoded ones too.
 * Only http and https are
 * fetched or followed, redirects are bounded, transfers below a speed floor
 * end, and a client can refuse to connect to loopback, private and link-local
 * addresses, checked after DNS resolution for every connection, redirects
 * included.
 *
 * This header uses stdint types only, so Swift needs no libcurl headers.
 */
#ifndef CFETCH_H
#define CFETCH_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cf_client cf_client;

/** How a transfer ended. */
typedef enum cf_outcome {
    /** The response arrived whole (whatever its status). */
    CF_DONE = 0,
    /** cf_client_cancel, or the client was destroyed. */
    CF_CANCELLED = 1,
    /** The announced length or the bytes received passed max_bytes. */
    CF_TOO_LARGE = 2,
    /** A redirect named a scheme other than http or https (redirect_target says which). */
    CF_REDIRECT_REFUSED = 3,
    /** More than max_redirects redirects (a loop ends here too). */
    CF_TOO_MANY_REDIRECTS = 4,
    /** Every address of the host is loopback, private or link-local, and the client refuses those. */
    CF_ADDRESS_REFUSED = 5,
    /** Fewer than low_speed_limit bytes/s arrived for low_speed_time_s seconds. */
    CF_STALLED = 6,
    /** The connect timeout or the whole-transfer timeout ran out. */
    CF_TIMED_OUT = 7,
    /** The connection closed before the announced Content-Length arrived. */
    CF_TRUNCATED = 8,
    /** on_response or on_body asked to stop. */
    CF_ABORTED = 9,
    /** The URL is malformed or its scheme is not http or https. */
    CF_UNSUPPORTED_URL = 10,
    /** The response headers passed CF_MAX_HEADER_BYTES, or one line libcurl's limit (message says which). */
    CF_HEADERS_TOO_LARGE = 11,
    /** Anything else: DNS, refused or reset connections, TLS, protocol errors (message says which). */
    CF_NETWORK = 12,
    /** The body has a Content-Encoding other than gzip or deflate, or more than one (content_encoding says which). */
    CF_UNSUPPORTED_ENCODING = 13,
    /** The response cannot be read as sent: an invalid Content-Length, a corrupt or cut compressed body (message says which). */
    CF_INVALID_RESPONSE = 14
} cf_outcome;

/** The most bytes of response headers accepted per transfer, redirects included. */
#define CF_MAX_HEADER_BYTES (256 * 1024)

/** The final response's head. Strings are NULL when absent and valid only during the callback. */
typedef struct cf_response {
    long status;
    /** The announced Content-Length, or -1; also -1 for a compressed body, whose decoded length is not announced. */
    int64_t content_length;
    const char *etag;
    const char *last_modified;
    const char *content_type;
    const char *retry_after;
    /** The response's headers whose names begin with the request's kept_header_prefix, as
        "name: value" lines (name as sent, value trimmed), in the order they came. */
    const char *const *kept_headers;
    size_t kept_header_count;
} cf_response;

/** How a transfer ended, passed to on_complete. Strings are valid only during the callback. */
typedef struct cf_result {
    cf_outcome outcome;
    /** The last response's status, 0 when none arrived. */
    long status;
    /** Body bytes accepted by on_body; for CF_TRUNCATED, the bytes that arrived, encoded as they were sent. */
    int64_t received;
    /** The announced Content-Length (of the encoded bytes), or -1. */
    int64_t expected;
    /** libcurl's message, or ours; never NULL. */
    const char *message;
    /** For CF_REDIRECT_REFUSED and CF_TOO_MANY_REDIRECTS: the Location of the last redirect, else NULL. */
    const char *redirect_target;
    /** For CF_ADDRESS_REFUSED: the numeric address refused, else NULL. */
    const char *refused_address;
    /** For CF_UNSUPPORTED_ENCODING: the response's Content-Encoding (its header lines joined by ", "), else NULL. */
    const char *content_encoding;
} cf_result;

/** What on_body returns. */
enum {
    /** The bytes were taken. */
    CF_BODY_CONTINUE = 0,
    /** The bytes were NOT taken: stop reading until cf_client_resume, then offer them again. */
    CF_BODY_PAUSE = 1,
    /** End the transfer with CF_ABORTED. */
    CF_BODY_ABORT = 2
};

/**
 * The caller's side of one transfer. Every callback runs on the client's I/O
 * thread and must return quickly: it holds up every other transfer.
 */
typedef struct cf_callbacks {
    void *context;
    /** Once, before the first body byte (or at the end when there is none). Nonzero: end with CF_ABORTED. */
    int (*on_response)(void *context, const cf_response *response);
    /** Body bytes in order, decoded from gzip or deflate. Returns a CF_BODY_ value. */
    int (*on_body)(void *context, const uint8_t *bytes, size_t count);
    /** Exactly once per started transfer, last. The context is not used by cfetch afterwards. */
    void (*on_complete)(void *context, const cf_result *result);
} cf_callbacks;

/** One request: a GET unless method says otherwise. Zero in a limit means libcurl's default (none, for the timeouts). */
typedef struct cf_request {
    const char *url;
    /** NULL or "GET"; "HEAD" (no body is read); "PUT" (sends upload or upload_file); "DELETE". */
    const char *method;
    /** For a PUT: the body, upload_size bytes, copied when the transfer starts. */
    const uint8_t *upload;
    size_t upload_size;
    /** For a PUT, instead of upload (when uploads_file is nonzero): upload_size bytes of an open
        file from upload_offset, read as libcurl sends them, so they are never all in memory. The
        descriptor is duplicated when the transfer starts; the caller may close its own after. */
    uint8_t uploads_file;
    int upload_file;
    int64_t upload_offset;
    /** More request headers, as "Name: value" lines (header_count of them). */
    const char *const *headers;
    size_t header_count;
    /** Sign the request with AWS Signature Version 4: libcurl's provider string ("aws:amz:REGION:s3"),
        with username as the access key and password as the secret. NULL: unsigned. */
    const char *aws_sigv4;
    const char *username;
    const char *password;
    /** Response headers whose names begin with this (case-insensitive) are handed to on_response. NULL: none. */
    const char *kept_header_prefix;
    /** Sent as If-None-Match / If-Modified-Since when not NULL. */
    const char *if_none_match;
    const char *if_modified_since;
    const char *user_agent;
    /** Sent as Accept when not NULL (otherwise libcurl's own, which accepts any type). */
    const char *accept;
    /** Sent as Accept-Encoding: "identity" asks for the body as it is. NULL: "gzip, deflate", every
        coding cfetch undoes. Whatever is asked, a response in gzip or deflate is decoded. */
    const char *accept_encoding;
    /** The most body bytes accepted (announced or counted, decoded or encoded); 0 accepts an empty body only, never "no limit". */
    int64_t max_bytes;
    long connect_timeout_ms;
    long total_timeout_ms;
    /** Bytes per second below which, for low_speed_time_s, the transfer ends as CF_STALLED. */
    long low_speed_limit;
    long low_speed_time_s;
    /** Redirects followed at most (0: none). */
    long max_redirects;
} cf_request;

/** What a client applies to every transfer. */
typedef struct cf_client_options {
    /** Nonzero: refuse to connect to loopback, private, link-local, multicast and unspecified addresses. */
    uint8_t refuse_private_addresses;
    /** libcurl's receive buffer per transfer, in bytes (the most one on_body call carries). */
    long receive_buffer_bytes;
} cf_client_options;

/**
 * Starts a client and its I/O thread; the first client of a process loads
 * libcurl (lazy_curl.h). Returns NULL (with a message in error, of error_size
 * bytes) when libcurl cannot be loaded or started, or the thread cannot start.
 */
cf_client *cf_client_create(const cf_client_options *options, char *error, size_t error_size);

/**
 * Ends every transfer (on_complete with CF_CANCELLED), stops the I/O thread
 * and frees the client. No call may use the client afterwards.
 */
void cf_client_destroy(cf_client *client);

/**
 * Starts a transfer; thread-safe. Returns its id (never 0). On failure
 * returns 0 and calls nothing: the caller still owns callbacks->context.
 */
uint64_t cf_client_start(cf_client *client, const cf_request *request, const cf_callbacks *callbacks);

/** Ends a transfer with CF_CANCELLED at once; thread-safe; a no-op once it has completed. */
void cf_client_cancel(cf_client *client, uint64_t id);

/** Offers a paused transfer's bytes again; thread-safe; a no-op when it is not paused. */
void cf_client_resume(cf_client *client, uint64_t id);

/**
 * Whether a numeric IPv4 or IPv6 address is one a client with
 * refuse_private_addresses refuses: 1 yes, 0 no, -1 not an address.
 */
int cf_address_is_private(const char *address);

#ifdef __cplusplus
}
#endif

#endif /* CFETCH_H */
