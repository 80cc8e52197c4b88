#include "lazy_curl.h"

#include "lazy_library.h"

static lazy_curl functions;

/* Resolves each function into the table, stopping at the first one libcurl lacks. */
#define LAZY_CURL_RESOLVE(name) &&(functions.name = (__typeof__(&name))lazy_library_function(library, #name))
static int resolve(lazy_library *library) { return 1 LAZY_CURL_FUNCTIONS(LAZY_CURL_RESOLVE); }

static lazy_library libcurl = LAZY_LIBRARY("libcurl", LAZY_LIBRARY_SONAME("libcurl", "4"), resolve);

const lazy_curl *lazy_curl_load(const char **reason) {
    return lazy_library_load(&libcurl, reason) ? &functions : NULL;
}
