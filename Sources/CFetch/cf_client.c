/* The client: a multi handle, its I/O thread, and the command queue other threads use. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cf_internal.h"
#include "lazy_curl.h"

/*
 * libcurl's functions (lazy_curl.h): libcurl is opened when the first client is created, not when
 * the process starts. Set once, by cf_global_init under pthread_once, before the first client
 * exists; every other use is on a client or one of its transfers, so after it.
 */
static const lazy_curl *libcurl;

/* ---- transfers ---- */

typedef struct cf_transfer {
    uint64_t id;
    CURL *easy;
    struct curl_slist *headers;
    cf_callbacks callbacks;
    const cf_client_options *options;
    int64_t max_bytes;
    /* Body bytes taken by on_body (decoded), and bytes that arrived (encoded as sent). */
    int64_t received;
    int64_t arrived;
    int64_t header_bytes;
    /* The current response's Content-Length header, or -1 (libcurl forgets it when it refuses a size). */
    int64_t announced_length;
    /* Whether the current response's head has ended (its blank line came). */
    int head_complete;
    /* The current response's head, reset by each status line (a redirect's is replaced by the next). */
    long status;
    char *etag, *last_modified, *content_type, *retry_after, *location;
    /* Every Content-Encoding line of the current response, joined by ", ". */
    char *content_encoding;
    /* The body's coding, known at its first byte, and its decoder for gzip or deflate. */
    int coding_known;
    cf_decoder *decoder;
    /* Encoded bytes at the start of libcurl's next delivery that were inflated already: the
       delivery before was paused part way, and libcurl offers a paused delivery again whole. */
    size_t inflated_ahead;
    /* The Location of the last redirect response seen, kept across the next status line. */
    char *redirect_target;
    int responded;
    int paused;
    /* Whether the transfer was started again on a fresh connection after a reused one answered garbage. */
    int retried_fresh;
    /* A PUT's body: bytes copied from the request, or a file read as libcurl sends. */
    uint8_t *upload;
    int upload_file;
    curl_off_t upload_offset, upload_size, upload_sent;
    /* The headers the caller asked to keep, of the current response. */
    char *kept_prefix;
    char **kept;
    size_t kept_count;
    /* Why we stopped the transfer ourselves, when we did; CF_DONE otherwise. */
    cf_outcome stopped_because;
    /* Our reason for stopping, when libcurl's message would not say (libcurl writes its own into error). */
    char reason[160];
    char refused_address[64];
    char error[CURL_ERROR_SIZE];
    struct cf_transfer *next;
} cf_transfer;

static void cf_free_head(cf_transfer *t) {
    for (size_t i = 0; i < t->kept_count; i++) free(t->kept[i]);
    free(t->kept);
    t->kept = NULL;
    t->kept_count = 0;
    free(t->etag);
    free(t->last_modified);
    free(t->content_type);
    free(t->retry_after);
    free(t->location);
    free(t->content_encoding);
    t->etag = t->last_modified = t->content_type = t->retry_after = t->location = t->content_encoding = NULL;
    cf_decoder_free(t->decoder);
    t->decoder = NULL;
    t->coding_known = 0;
    t->inflated_ahead = 0;
}

static void cf_transfer_free(cf_transfer *t) {
    if (t == NULL) return;
    if (t->easy != NULL) libcurl->curl_easy_cleanup(t->easy);
    libcurl->curl_slist_free_all(t->headers);
    cf_free_head(t);
    free(t->redirect_target);
    free(t->upload);
    free(t->kept_prefix);
    if (t->upload_file >= 0) close(t->upload_file);
    free(t);
}

/* "Name: value\r\n" → value without surrounding blanks, when the name matches. */
static char *cf_header_value(const char *line, size_t length, const char *name) {
    size_t name_length = strlen(name);
    if (length <= name_length || line[name_length] != ':' || strncasecmp(line, name, name_length) != 0) return NULL;
    const char *start = line + name_length + 1;
    const char *end = line + length;
    while (start < end && (*start == ' ' || *start == '\t')) start++;
    while (end > start && isspace((unsigned char)end[-1])) end--;
    char *value = malloc((size_t)(end - start) + 1);
    if (value == NULL) return NULL;
    memcpy(value, start, (size_t)(end - start));
    value[end - start] = '\0';
    return value;
}

static void cf_keep(char **slot, char *value) {
    if (value == NULL) return;
    free(*slot);
    *slot = value;
}

/* Adds a header's value to the ones kept before it, joined by ", " (a list header sent on several lines). Nonzero when out of memory. */
static int cf_append(char **slot, char *value) {
    if (value == NULL || *slot == NULL) {
        cf_keep(slot, value);
        return 0;
    }
    size_t length = strlen(*slot) + 2 + strlen(value) + 1;
    char *joined = malloc(length);
    if (joined != NULL) snprintf(joined, length, "%s, %s", *slot, value);
    free(value);
    if (joined == NULL) return 1;
    cf_keep(slot, joined);
    return 0;
}

/* Reads a Content-Length value as libcurl does (its leading digits) into *length; NULL, or what is wrong with it. */
static const char *cf_parse_length(const char *value, int64_t *length) {
    *length = -1;
    if (*value < '0' || *value > '9') return "not a number";
    errno = 0;
    long long parsed = strtoll(value, NULL, 10);
    if (errno == ERANGE) return "more than 64 bits";
    *length = (int64_t)parsed;
    return NULL;
}

/* Stops the transfer for an invalid Content-Length. */
static cf_outcome cf_invalid_length(cf_transfer *t, const char *problem) {
    snprintf(t->reason, sizeof t->reason, "invalid Content-Length: %s", problem);
    return t->stopped_because = CF_INVALID_RESPONSE;
}

/* Keeps a header line whose name begins with the kept prefix, trimmed. Nonzero when out of memory. */
static int cf_keep_line(cf_transfer *t, const char *line, size_t length) {
    size_t prefix_length = strlen(t->kept_prefix);
    if (length < prefix_length || strncasecmp(line, t->kept_prefix, prefix_length) != 0) return 0;
    while (length > 0 && isspace((unsigned char)line[length - 1])) length--;
    char **kept = realloc(t->kept, (t->kept_count + 1) * sizeof *kept);
    if (kept == NULL) return 1;
    t->kept = kept;
    char *copy = malloc(length + 1);
    if (copy == NULL) return 1;
    memcpy(copy, line, length);
    copy[length] = '\0';
    t->kept[t->kept_count++] = copy;
    return 0;
}

static size_t cf_on_header(char *line, size_t size, size_t count, void *userdata) {
    cf_transfer *t = userdata;
    size_t length = size * count;
    t->header_bytes += (int64_t)length;
    if (t->header_bytes > CF_MAX_HEADER_BYTES) {
        snprintf(t->reason, sizeof t->reason, "response headers over %d KiB", CF_MAX_HEADER_BYTES / 1024);
        t->stopped_because = CF_HEADERS_TOO_LARGE;
        return 0;
    }
    if (length > 5 && strncmp(line, "HTTP/", 5) == 0) {
        /* A new response: the previous one was a redirect (or 100 Continue). */
        t->head_complete = 0;
        if (t->location != NULL) {
            cf_keep(&t->redirect_target, t->location);
            t->location = NULL;
        }
        cf_free_head(t);
        t->announced_length = -1;
        const char *space = memchr(line, ' ', length);
        t->status = space != NULL ? strtol(space + 1, NULL, 10) : 0;
        return length;
    }
    cf_keep(&t->etag, cf_header_value(line, length, "ETag"));
    cf_keep(&t->last_modified, cf_header_value(line, length, "Last-Modified"));
    cf_keep(&t->content_type, cf_header_value(line, length, "Content-Type"));
    cf_keep(&t->retry_after, cf_header_value(line, length, "Retry-After"));
    cf_keep(&t->location, cf_header_value(line, length, "Location"));
    if (cf_append(&t->content_encoding, cf_header_value(line, length, "Content-Encoding")) != 0
        || (t->kept_prefix != NULL && cf_keep_line(t, line, length) != 0)) {
        t->stopped_because = CF_NETWORK;
        return 0;
    }
    if ((length == 2 && line[0] == '\r' && line[1] == '\n') || (length == 1 && line[0] == '\n')) t->head_complete = 1;
    /* libcurl refuses most invalid lengths before this sees them (cf_outcome_of), but not all:
       without a cap it reads a length past 64 bits as no length at all. */
    char *announced = cf_header_value(line, length, "Content-Length");
    if (announced != NULL) {
        const char *problem = cf_parse_length(announced, &t->announced_length);
        free(announced);
        if (problem != NULL) {
            cf_invalid_length(t, problem);
            return 0;
        }
    }
    return length;
}

static int64_t cf_content_length(cf_transfer *t) {
    curl_off_t length = -1;
    if (libcurl->curl_easy_getinfo(t->easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length) != CURLE_OK || length < 0)
        return t->announced_length;
    return length;
}

/* Tells the caller the final response's head, once. Returns 0 when it accepts the body. */
static int cf_respond(cf_transfer *t) {
    if (t->responded) return 0;
    t->responded = 1;
    long status = 0;
    libcurl->curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status);
    cf_response response = {
        .status = status,
        .content_length = cf_coding_of(t->content_encoding) == CF_CODING_IDENTITY ? cf_content_length(t) : -1,
        .etag = t->etag,
        .last_modified = t->last_modified,
        .content_type = t->content_type,
        .retry_after = t->retry_after,
        .kept_headers = (const char *const *)t->kept,
        .kept_header_count = t->kept_count,
    };
    if (t->callbacks.on_response(t->callbacks.context, &response) != 0) {
        t->stopped_because = CF_ABORTED;
        return -1;
    }
    return 0;
}

/* libcurl's receive buffer, and a decoder's output buffer: the most one on_body call carries. */
static long cf_receive_buffer_bytes(const cf_client_options *options) {
    return options->receive_buffer_bytes > 0 ? options->receive_buffer_bytes : 64L * 1024;
}

/* Offers decoded body bytes to the caller, under the cap: a CF_BODY_ value. */
static int cf_deliver(cf_transfer *t, const uint8_t *bytes, size_t length) {
    if (t->received + (int64_t)length > t->max_bytes) {
        t->received += (int64_t)length;
        t->stopped_because = CF_TOO_LARGE;
        return CF_BODY_ABORT;
    }
    int taken = t->callbacks.on_body(t->callbacks.context, bytes, length);
    if (taken == CF_BODY_CONTINUE) t->received += (int64_t)length;
    else if (taken == CF_BODY_PAUSE) t->paused = 1;
    else t->stopped_because = CF_ABORTED;
    return taken;
}

/*
 * A gzip or deflate body: inflates one output buffer at a time and offers it; when the caller
 * pauses, no more is inflated, and libcurl is told none of this delivery was taken (it offers
 * it again on resume) while inflated_ahead remembers how much of it zlib already has.
 */
static size_t cf_on_encoded_body(cf_transfer *t, const uint8_t *bytes, size_t length) {
    size_t ahead = t->inflated_ahead < length ? t->inflated_ahead : length;
    const uint8_t *input = bytes + ahead;
    size_t left = length - ahead;
    while (1) {
        const uint8_t *decoded;
        size_t count = cf_decoder_pending(t->decoder, &decoded);
        if (count > 0) {
            int taken = cf_deliver(t, decoded, count);
            if (taken == CF_BODY_PAUSE) {
                t->inflated_ahead += (length - ahead) - left;
                return CURL_WRITEFUNC_PAUSE;
            }
            if (taken != CF_BODY_CONTINUE) return 0;
            cf_decoder_took(t->decoder);
            continue;
        }
        if (left == 0 && !cf_decoder_has_more(t->decoder)) break;
        size_t before = left;
        if (cf_decoder_inflate(t->decoder, &input, &left, t->reason, sizeof t->reason) != 0) {
            t->stopped_because = CF_INVALID_RESPONSE;
            return 0;
        }
        t->arrived += (int64_t)(before - left);
        if (t->arrived > t->max_bytes) {
            t->stopped_because = CF_TOO_LARGE;
            return 0;
        }
    }
    t->inflated_ahead -= ahead;
    return length;
}

static size_t cf_on_body(char *bytes, size_t size, size_t count, void *userdata) {
    cf_transfer *t = userdata;
    size_t length = size * count;
    if (cf_respond(t) != 0) return 0;
    if (!t->coding_known) {
        t->coding_known = 1;
        cf_coding coding = cf_coding_of(t->content_encoding);
        if (coding == CF_CODING_UNSUPPORTED) {
            t->stopped_because = CF_UNSUPPORTED_ENCODING;
            return 0;
        }
        if (coding != CF_CODING_IDENTITY
            && (t->decoder = cf_decoder_create(coding, (size_t)cf_receive_buffer_bytes(t->options))) == NULL) {
            snprintf(t->reason, sizeof t->reason, "out of memory for a body's decoder");
            t->stopped_because = CF_NETWORK;
            return 0;
        }
    }
    if (t->decoder != NULL) return cf_on_encoded_body(t, (const uint8_t *)bytes, length);
    switch (cf_deliver(t, (const uint8_t *)bytes, length)) {
    case CF_BODY_CONTINUE:
        t->arrived += (int64_t)length;
        return length;
    case CF_BODY_PAUSE:
        return CURL_WRITEFUNC_PAUSE;
    default:
        return 0;
    }
}

/* A PUT's body, from the copied bytes or the file, as libcurl asks for it. */
static size_t cf_on_upload(char *buffer, size_t size, size_t count, void *userdata) {
    cf_transfer *t = userdata;
    curl_off_t wanted = (curl_off_t)(size * count);
    curl_off_t left = t->upload_size - t->upload_sent;
    if (wanted > left) wanted = left;
    if (wanted <= 0) return 0;
    if (t->upload != NULL) {
        memcpy(buffer, t->upload + t->upload_sent, (size_t)wanted);
    } else {
        ssize_t read_count;
        do {
            read_count = pread(t->upload_file, buffer, (size_t)wanted, (off_t)(t->upload_offset + t->upload_sent));
        } while (read_count < 0 && errno == EINTR);
        /* A file that shrank or cannot be read: the body would be short, so end the transfer. */
        if (read_count <= 0) return CURL_READFUNC_ABORT;
        wanted = read_count;
    }
    t->upload_sent += wanted;
    return (size_t)wanted;
}

/* libcurl sends a body again (a reused connection that died first): start it over. */
static int cf_on_seek(void *userdata, curl_off_t offset, int origin) {
    cf_transfer *t = userdata;
    if (origin != SEEK_SET || offset < 0 || offset > t->upload_size) return CURL_SEEKFUNC_CANTSEEK;
    t->upload_sent = offset;
    return CURL_SEEKFUNC_OK;
}

/* A socket that a process started by exec does not inherit. Linux sets the flag atomically with
 * SOCK_CLOEXEC; Darwin has no such flag, so there it is set just after the socket is made. */
static curl_socket_t cf_socket_closed_on_exec(int family, int type, int protocol) {
#ifdef SOCK_CLOEXEC
    int descriptor = socket(family, type | SOCK_CLOEXEC, protocol);
#else
    int descriptor = socket(family, type, protocol);
    if (descriptor >= 0 && fcntl(descriptor, F_SETFD, FD_CLOEXEC) != 0) {
        close(descriptor);
        descriptor = -1;
    }
#endif
    return descriptor < 0 ? CURL_SOCKET_BAD : descriptor;
}

/* Every connection libcurl opens, redirects included, comes through here: the address check. */
static curl_socket_t cf_open_socket(void *userdata, curlsocktype purpose, struct curl_sockaddr *address) {
    cf_transfer *t = userdata;
    (void)purpose;
    if (t->options->refuse_private_addresses
        && cf_sockaddr_is_private(&address->addr, t->refused_address, sizeof t->refused_address)) {
        return CURL_SOCKET_BAD;
    }
    t->refused_address[0] = '\0';
    return cf_socket_closed_on_exec(address->family, address->socktype, address->protocol);
}

/* Nonzero when a libcurl option could not be set (out of memory, or a libcurl too old for it). */
static int cf_configure(cf_transfer *t, const cf_request *request, const cf_client_options *options) {
    CURL *e = t->easy;
    int failed = 0;
#define CF_SET(option, value) failed |= libcurl->curl_easy_setopt(e, option, value) != CURLE_OK
    CF_SET(CURLOPT_URL, request->url);
    CF_SET(CURLOPT_PROTOCOLS_STR, "http,https");
    CF_SET(CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    CF_SET(CURLOPT_FOLLOWLOCATION, request->max_redirects > 0 ? 1L : 0L);
    CF_SET(CURLOPT_MAXREDIRS, request->max_redirects);
    CF_SET(CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)request->max_bytes);
    CF_SET(CURLOPT_CONNECTTIMEOUT_MS, request->connect_timeout_ms);
    CF_SET(CURLOPT_TIMEOUT_MS, request->total_timeout_ms);
    CF_SET(CURLOPT_LOW_SPEED_LIMIT, request->low_speed_limit);
    CF_SET(CURLOPT_LOW_SPEED_TIME, request->low_speed_time_s);
    /* The body as sent: cf_on_body undoes gzip and deflate itself, no faster than the caller takes it. */
    CF_SET(CURLOPT_HTTP_CONTENT_DECODING, 0L);
    /* Over TLS, wait for a connection being set up to say whether it multiplexes (HTTP/2 via ALPN);
       plain http learns that only from a response, so waiting there would queue every transfer behind a slow one. */
    CF_SET(CURLOPT_PIPEWAIT, strncasecmp(request->url, "https:", 6) == 0 ? 1L : 0L);
    CF_SET(CURLOPT_NOSIGNAL, 1L);
    CF_SET(CURLOPT_BUFFERSIZE, cf_receive_buffer_bytes(options));
    CF_SET(CURLOPT_ERRORBUFFER, t->error);
    CF_SET(CURLOPT_HEADERFUNCTION, cf_on_header);
    CF_SET(CURLOPT_HEADERDATA, t);
    CF_SET(CURLOPT_WRITEFUNCTION, cf_on_body);
    CF_SET(CURLOPT_WRITEDATA, t);
    CF_SET(CURLOPT_OPENSOCKETFUNCTION, cf_open_socket);
    CF_SET(CURLOPT_OPENSOCKETDATA, t);
    if (request->user_agent != NULL) CF_SET(CURLOPT_USERAGENT, request->user_agent);
    const char *method = request->method != NULL ? request->method : "GET";
    if (strcmp(method, "HEAD") == 0) {
        CF_SET(CURLOPT_NOBODY, 1L);
    } else if (strcmp(method, "PUT") == 0) {
        CF_SET(CURLOPT_UPLOAD, 1L);
        CF_SET(CURLOPT_INFILESIZE_LARGE, (curl_off_t)request->upload_size);
        CF_SET(CURLOPT_READFUNCTION, cf_on_upload);
        CF_SET(CURLOPT_READDATA, t);
        CF_SET(CURLOPT_SEEKFUNCTION, cf_on_seek);
        CF_SET(CURLOPT_SEEKDATA, t);
    } else if (strcmp(method, "GET") != 0) {
        CF_SET(CURLOPT_CUSTOMREQUEST, method);
    }
    if (request->aws_sigv4 != NULL) {
        CF_SET(CURLOPT_AWS_SIGV4, request->aws_sigv4);
        CF_SET(CURLOPT_USERNAME, request->username != NULL ? request->username : "");
        CF_SET(CURLOPT_PASSWORD, request->password != NULL ? request->password : "");
    }
#undef CF_SET
    const char *headers[4][2] = {{"If-None-Match: ", request->if_none_match},
                                 {"If-Modified-Since: ", request->if_modified_since},
                                 {"Accept: ", request->accept},
                                 {"Accept-Encoding: ", request->accept_encoding != NULL ? request->accept_encoding : "gzip, deflate"}};
    for (int i = 0; i < 4; i++) {
        if (headers[i][1] == NULL) continue;
        size_t length = strlen(headers[i][0]) + strlen(headers[i][1]) + 1;
        char *header = malloc(length);
        if (header == NULL) return 1;
        snprintf(header, length, "%s%s", headers[i][0], headers[i][1]);
        struct curl_slist *list = libcurl->curl_slist_append(t->headers, header);
        free(header);
        if (list == NULL) return 1;
        t->headers = list;
    }
    for (size_t i = 0; i < request->header_count; i++) {
        struct curl_slist *list = libcurl->curl_slist_append(t->headers, request->headers[i]);
        if (list == NULL) return 1;
        t->headers = list;
    }
    if (t->headers != NULL) failed |= libcurl->curl_easy_setopt(e, CURLOPT_HTTPHEADER, t->headers) != CURLE_OK;
    return failed;
}

/* ---- the client ---- */

typedef enum cf_command_kind { CF_COMMAND_START, CF_COMMAND_CANCEL, CF_COMMAND_RESUME } cf_command_kind;

typedef struct cf_command {
    cf_command_kind kind;
    uint64_t id;
    cf_transfer *transfer; /* START only */
    struct cf_command *next;
} cf_command;

struct cf_client {
    CURLM *multi;
    cf_client_options options;
    pthread_t thread;
    pthread_mutex_t lock;
    /* Guarded by lock: */
    cf_command *commands_head, *commands_tail;
    uint64_t next_id;
    int stopping;
    /* The I/O thread's own: */
    cf_transfer *running;
};

static pthread_once_t cf_global_once = PTHREAD_ONCE_INIT;
/* Why no client can be created, when libcurl could not be loaded or set up. */
static char cf_global_error[512];

/* Loads libcurl and sets it up, once per process: curl_global_init is not thread-safe. */
static void cf_global_init(void) {
    const char *reason = "";
    const lazy_curl *functions = lazy_curl_load(&reason);
    if (functions == NULL) {
        snprintf(cf_global_error, sizeof cf_global_error, "%s", reason);
        return;
    }
    CURLcode status = functions->curl_global_init(CURL_GLOBAL_DEFAULT);
    if (status != CURLE_OK) {
        snprintf(cf_global_error, sizeof cf_global_error, "libcurl failed to initialise: %s",
                 functions->curl_easy_strerror(status));
        return;
    }
    libcurl = functions;
}

static void cf_complete(cf_transfer *t, cf_outcome outcome, const char *message) {
    long status = 0;
    if (t->easy != NULL) libcurl->curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status);
    int carries_target = outcome == CF_REDIRECT_REFUSED || outcome == CF_TOO_MANY_REDIRECTS;
    cf_result result = {
        .outcome = outcome,
        .status = status,
        .received = outcome == CF_TRUNCATED ? t->arrived : t->received,
        .expected = t->easy != NULL ? cf_content_length(t) : -1,
        .message = message != NULL ? message : "",
        .redirect_target = carries_target ? (t->location != NULL ? t->location : t->redirect_target) : NULL,
        .refused_address = outcome == CF_ADDRESS_REFUSED ? t->refused_address : NULL,
        .content_encoding = outcome == CF_UNSUPPORTED_ENCODING ? t->content_encoding : NULL,
    };
    t->callbacks.on_complete(t->callbacks.context, &result);
}

/* libcurl's result, and what we know beyond it, as one outcome. */
static cf_outcome cf_outcome_of(cf_transfer *t, CURLcode code) {
    if (t->stopped_because != CF_DONE) return t->stopped_because;
    switch (code) {
    case CURLE_OK: return CF_DONE;
    case CURLE_FILESIZE_EXCEEDED:
        /* libcurl takes a length past 64 bits for one over the cap, and stops in its header line,
           before cf_on_header sees it; a length that fits arrives, and the head ends, first. */
        return t->announced_length < 0 && !t->head_complete ? cf_invalid_length(t, "more than 64 bits") : CF_TOO_LARGE;
    case CURLE_WEIRD_SERVER_REPLY:
        return strncmp(t->error, "Invalid Content-Length", 22) == 0 ? cf_invalid_length(t, "not a number") : CF_NETWORK;
    case CURLE_TOO_MANY_REDIRECTS: return CF_TOO_MANY_REDIRECTS;
    case CURLE_PARTIAL_FILE: return CF_TRUNCATED;
    case CURLE_URL_MALFORMAT: return CF_UNSUPPORTED_URL;
    case CURLE_UNSUPPORTED_PROTOCOL:
        /* The first URL's scheme is checked before starting; otherwise this is a redirect elsewhere, or
           a reply that is not HTTP at all (libcurl calls that HTTP/0.9 and refuses it the same way). */
        return t->location != NULL || t->redirect_target != NULL ? CF_REDIRECT_REFUSED : CF_NETWORK;
    case CURLE_OPERATION_TIMEDOUT:
        /* libcurl reports the speed floor and its timeouts with one code; only its message tells them apart. */
        return strstr(t->error, "too slow") != NULL ? CF_STALLED : CF_TIMED_OUT;
    case CURLE_COULDNT_CONNECT:
        return t->refused_address[0] != '\0' ? CF_ADDRESS_REFUSED : CF_NETWORK;
    case CURLE_OUT_OF_MEMORY:
        /* libcurl keeps a header line whole until it ends, and says "out of memory" when one passes
           its limit (CURL_MAX_HTTP_HEADER, 100 KiB), not when memory ran out, which it never
           does in a head of at most CF_MAX_HEADER_BYTES. */
        if (t->head_complete) return CF_NETWORK;
        snprintf(t->reason, sizeof t->reason, "a response header line over libcurl's limit of %d KiB", CURL_MAX_HTTP_HEADER / 1024);
        return CF_HEADERS_TOO_LARGE;
    default: return CF_NETWORK;
    }
}

/*
 * A reused connection can hold bytes a lying server sent past its Content-Length, which the next
 * response on it then starts with: garbage to libcurl. One retry on a fresh connection keeps a
 * lying server from failing a request that did nothing wrong.
 */
static int cf_should_retry_fresh(cf_transfer *t, CURLcode code) {
    if (t->retried_fresh || t->responded || t->received > 0 || t->stopped_because != CF_DONE) return 0;
    if (code != CURLE_UNSUPPORTED_PROTOCOL && code != CURLE_WEIRD_SERVER_REPLY && code != CURLE_GOT_NOTHING
        && code != CURLE_RECV_ERROR)
        return 0;
    if (code == CURLE_UNSUPPORTED_PROTOCOL && (t->location != NULL || t->redirect_target != NULL)) return 0;
    long new_connections = -1;
    libcurl->curl_easy_getinfo(t->easy, CURLINFO_NUM_CONNECTS, &new_connections);
    return new_connections == 0;
}

static void cf_finish(cf_client *client, cf_transfer *t, CURLcode code) {
    if (cf_should_retry_fresh(t, code)) {
        libcurl->curl_multi_remove_handle(client->multi, t->easy);
        t->retried_fresh = 1;
        t->header_bytes = 0;
        t->upload_sent = 0;
        t->error[0] = '\0';
        cf_free_head(t);
        libcurl->curl_easy_setopt(t->easy, CURLOPT_FRESH_CONNECT, 1L);
        if (libcurl->curl_multi_add_handle(client->multi, t->easy) == CURLM_OK) return;
    }
    for (cf_transfer **link = &client->running; *link != NULL; link = &(*link)->next) {
        if (*link == t) {
            *link = t->next;
            break;
        }
    }
    libcurl->curl_multi_remove_handle(client->multi, t->easy);
    if (code == CURLE_OK && t->stopped_because == CF_DONE) {
        cf_respond(t); /* a response without a body */
        if (t->decoder != NULL && !cf_decoder_ended(t->decoder)) {
            snprintf(t->reason, sizeof t->reason, "the %s body ends before its compressed stream does",
                     cf_coding_of(t->content_encoding) == CF_CODING_GZIP ? "gzip" : "deflate");
            t->stopped_because = CF_INVALID_RESPONSE;
        }
    }
    cf_outcome outcome = cf_outcome_of(t, code);
    const char *message = t->reason[0] != '\0' ? t->reason
        : t->error[0] != '\0'                   ? t->error
                                                 : libcurl->curl_easy_strerror(code);
    cf_complete(t, outcome, message);
    cf_transfer_free(t);
}

static cf_transfer *cf_find(cf_client *client, uint64_t id) {
    for (cf_transfer *t = client->running; t != NULL; t = t->next)
        if (t->id == id) return t;
    return NULL;
}

static void cf_run_command(cf_client *client, cf_command *command) {
    cf_transfer *t;
    switch (command->kind) {
    case CF_COMMAND_START:
        t = command->transfer;
        if (libcurl->curl_multi_add_handle(client->multi, t->easy) != CURLM_OK) {
            cf_complete(t, CF_NETWORK, "could not add the transfer to libcurl's multi handle");
            cf_transfer_free(t);
            return;
        }
        t->next = client->running;
        client->running = t;
        return;
    case CF_COMMAND_CANCEL:
        t = cf_find(client, command->id);
        if (t == NULL) return;
        t->stopped_because = CF_CANCELLED;
        cf_finish(client, t, CURLE_ABORTED_BY_CALLBACK);
        return;
    case CF_COMMAND_RESUME:
        t = cf_find(client, command->id);
        if (t == NULL || !t->paused) return;
        t->paused = 0;
        /* May call cf_on_body at once, which may pause again, or stop the transfer: libcurl then
           returns the error from here and would carry on with the transfer, so it ends here. */
        if (libcurl->curl_easy_pause(t->easy, CURLPAUSE_CONT) != CURLE_OK && t->stopped_because != CF_DONE)
            cf_finish(client, t, CURLE_WRITE_ERROR);
        return;
    }
}

static cf_command *cf_take_commands(cf_client *client, int *stopping) {
    pthread_mutex_lock(&client->lock);
    cf_command *commands = client->commands_head;
    client->commands_head = client->commands_tail = NULL;
    *stopping = client->stopping;
    pthread_mutex_unlock(&client->lock);
    return commands;
}

static void *cf_io_thread(void *argument) {
    cf_client *client = argument;
    int stopping = 0;
    while (1) {
        cf_command *command = cf_take_commands(client, &stopping);
        while (command != NULL) {
            cf_command *next = command->next;
            if (stopping && command->kind == CF_COMMAND_START) {
                cf_complete(command->transfer, CF_CANCELLED, "the client was closed");
                cf_transfer_free(command->transfer);
            } else {
                cf_run_command(client, command);
            }
            free(command);
            command = next;
        }
        if (stopping) break;
        int active = 0;
        libcurl->curl_multi_perform(client->multi, &active);
        CURLMsg *message;
        int queued;
        while ((message = libcurl->curl_multi_info_read(client->multi, &queued)) != NULL) {
            if (message->msg != CURLMSG_DONE) continue;
            cf_transfer *t = NULL;
            libcurl->curl_easy_getinfo(message->easy_handle, CURLINFO_PRIVATE, (char **)&t);
            if (t != NULL) cf_finish(client, t, message->data.result);
        }
        libcurl->curl_multi_poll(client->multi, NULL, 0, 1000, NULL);
    }
    while (client->running != NULL) {
        cf_transfer *t = client->running;
        t->stopped_because = CF_CANCELLED;
        cf_finish(client, t, CURLE_ABORTED_BY_CALLBACK);
    }
    return NULL;
}

static void cf_post(cf_client *client, cf_command *command) {
    pthread_mutex_lock(&client->lock);
    if (client->commands_tail != NULL) client->commands_tail->next = command;
    else client->commands_head = command;
    client->commands_tail = command;
    pthread_mutex_unlock(&client->lock);
    libcurl->curl_multi_wakeup(client->multi);
}

cf_client *cf_client_create(const cf_client_options *options, char *error, size_t error_size) {
    pthread_once(&cf_global_once, cf_global_init);
    if (libcurl == NULL) {
        snprintf(error, error_size, "%s", cf_global_error);
        return NULL;
    }
    cf_client *client = calloc(1, sizeof *client);
    if (client == NULL) {
        snprintf(error, error_size, "out of memory");
        return NULL;
    }
    client->options = *options;
    client->next_id = 1;
    client->multi = libcurl->curl_multi_init();
    if (client->multi == NULL) {
        free(client);
        snprintf(error, error_size, "libcurl could not create a multi handle");
        return NULL;
    }
    pthread_mutex_init(&client->lock, NULL);
    int started = pthread_create(&client->thread, NULL, cf_io_thread, client);
    if (started != 0) {
        libcurl->curl_multi_cleanup(client->multi);
        pthread_mutex_destroy(&client->lock);
        free(client);
        snprintf(error, error_size, "cannot start the I/O thread: %s", strerror(started));
        return NULL;
    }
    return client;
}

void cf_client_destroy(cf_client *client) {
    if (client == NULL) return;
    pthread_mutex_lock(&client->lock);
    client->stopping = 1;
    pthread_mutex_unlock(&client->lock);
    libcurl->curl_multi_wakeup(client->multi);
    pthread_join(client->thread, NULL);
    libcurl->curl_multi_cleanup(client->multi);
    pthread_mutex_destroy(&client->lock);
    free(client);
}

/* Copies a PUT's body, or opens its file, and the kept-header prefix. Nonzero on failure. */
static int cf_take_upload(cf_transfer *t, const cf_request *request) {
    if (request->kept_header_prefix != NULL && (t->kept_prefix = strdup(request->kept_header_prefix)) == NULL) return 1;
    if (request->method == NULL || strcmp(request->method, "PUT") != 0) return 0;
    t->upload_size = (curl_off_t)request->upload_size;
    if (request->uploads_file) {
        t->upload_offset = (curl_off_t)request->upload_offset;
        t->upload_file = fcntl(request->upload_file, F_DUPFD_CLOEXEC, 0);
        return t->upload_file < 0;
    }
    if (request->upload_size == 0) return 0;
    if (request->upload == NULL || (t->upload = malloc(request->upload_size)) == NULL) return 1;
    memcpy(t->upload, request->upload, request->upload_size);
    return 0;
}

uint64_t cf_client_start(cf_client *client, const cf_request *request, const cf_callbacks *callbacks) {
    if (client == NULL || request == NULL || request->url == NULL || callbacks == NULL
        || callbacks->on_response == NULL || callbacks->on_body == NULL || callbacks->on_complete == NULL)
        return 0;
    cf_transfer *t = calloc(1, sizeof *t);
    cf_command *command = calloc(1, sizeof *command);
    if (t == NULL || command == NULL || (t->easy = libcurl->curl_easy_init()) == NULL) {
        free(command);
        free(t);
        return 0;
    }
    t->callbacks = *callbacks;
    t->options = &client->options;
    t->announced_length = -1;
    t->max_bytes = request->max_bytes > 0 ? request->max_bytes : 0;
    t->upload_file = -1;
    if (cf_take_upload(t, request) != 0) {
        cf_transfer_free(t);
        free(command);
        return 0;
    }
    if (cf_configure(t, request, &client->options) != 0
        || libcurl->curl_easy_setopt(t->easy, CURLOPT_PRIVATE, (char *)t) != CURLE_OK) {
        cf_transfer_free(t);
        free(command);
        return 0;
    }
    pthread_mutex_lock(&client->lock);
    t->id = client->next_id++;
    pthread_mutex_unlock(&client->lock);
    command->kind = CF_COMMAND_START;
    command->id = t->id;
    command->transfer = t;
    uint64_t id = t->id;
    cf_post(client, command);
    return id;
}

static void cf_post_for(cf_client *client, cf_command_kind kind, uint64_t id) {
    if (client == NULL || id == 0) return;
    cf_command *command = calloc(1, sizeof *command);
    if (command == NULL) return;
    command->kind = kind;
    command->id = id;
    cf_post(client, command);
}

void cf_client_cancel(cf_client *client, uint64_t id) { cf_post_for(client, CF_COMMAND_CANCEL, id); }

void cf_client_resume(cf_client *client, uint64_t id) { cf_post_for(client, CF_COMMAND_RESUME, id); }
