/*
 * lazy_curl: the libcurl functions this project calls, from a libcurl opened on first use
 * (see lazy_library.h). Types and constants come from curl.h as usual; calls go through the
 * table, e.g. libcurl->curl_easy_init(). Nothing may call libcurl directly: it is not linked,
 * so such a call fails to link.
 */
#ifndef LAZY_CURL_H
#define LAZY_CURL_H

#include <curl/curl.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Every function called: CFetch's transfers, then the URL API that ThumbnailFeeds resolves feed URLs with. */
#define LAZY_CURL_FUNCTIONS(X)                                                                           \
    X(curl_global_init) X(curl_easy_init) X(curl_easy_setopt) X(curl_easy_getinfo) X(curl_easy_pause)    \
    X(curl_easy_cleanup) X(curl_easy_strerror) X(curl_slist_append) X(curl_slist_free_all)              \
    X(curl_multi_init) X(curl_multi_add_handle) X(curl_multi_remove_handle) X(curl_multi_perform)       \
    X(curl_multi_info_read) X(curl_multi_poll) X(curl_multi_wakeup) X(curl_multi_cleanup)               \
    X(curl_url) X(curl_url_dup) X(curl_url_set) X(curl_url_get) X(curl_url_cleanup) X(curl_free)

/** Each function under its own name, with the type curl.h declares for it. */
typedef struct lazy_curl {
#define LAZY_CURL_FIELD(name) __typeof__(&name) _Nonnull name;
    LAZY_CURL_FUNCTIONS(LAZY_CURL_FIELD)
#undef LAZY_CURL_FIELD
} lazy_curl;

/**
 * The table, loading libcurl on the first call (libcurl.so.4; /usr/lib/libcurl.4.dylib on macOS);
 * the same table, valid for the life of the process, on every later call. NULL when libcurl cannot
 * be loaded, with *reason (when reason is not NULL) set to a message that says why, also valid for
 * the life of the process. Thread-safe.
 */
const lazy_curl *_Nullable lazy_curl_load(const char *_Nullable *_Nullable reason);

#ifdef __cplusplus
}
#endif

#endif /* LAZY_CURL_H */
