#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H
/* libcurl's URL API (curl_url_*) for Swift; the transport itself lives in CFetch. */
#include <curl/curl.h>
#endif
