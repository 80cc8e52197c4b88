#ifndef CCURL_SHIM_H
#define CCURL_SHIM_H
/* libcurl's types and constants. No `link` in the module map: libcurl is loaded on first use, and
   its functions are called through CLazyCurl's table. */
#include <curl/curl.h>
#endif
