#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H
/* zlib's inflate, for the gzip and deflate Content-Encodings cfetch undoes itself (cf_decoder.c).
   Linked, not loaded on first use: libpng links it already, so every process has it loaded anyway. */
#include <zlib.h>
#endif
