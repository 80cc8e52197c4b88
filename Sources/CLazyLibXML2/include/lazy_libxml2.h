/*
 * lazy_libxml2: the libxml2 functions this project calls, from a libxml2 opened on first use
 * (see lazy_library.h). Types and constants come from libxml2's headers as usual; calls go
 * through the table, e.g. libxml2.xmlParseChunk(…). Nothing may call libxml2 directly: it is not
 * linked, so such a call fails to link.
 */
#ifndef LAZY_LIBXML2_H
#define LAZY_LIBXML2_H

#include <libxml/parser.h>
#include <libxml/SAX2.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Every function ThumbnailFeeds' XMLEventParser calls. */
#define LAZY_LIBXML2_FUNCTIONS(X)                                                                         \
    X(xmlInitParser) X(xmlCreatePushParserCtxt) X(xmlCtxtUseOptions) X(xmlParseChunk) X(xmlStopParser)   \
    X(xmlFreeParserCtxt) X(xmlFreeDoc) X(xmlSAX2GetLineNumber) X(xmlSAX2GetColumnNumber)             \
    X(xmlSetStructuredErrorFunc)

/** Each function under its own name, with the type libxml2's headers declare for it. */
typedef struct lazy_libxml2 {
#define LAZY_LIBXML2_FIELD(name) __typeof__(&name) _Nonnull name;
    LAZY_LIBXML2_FUNCTIONS(LAZY_LIBXML2_FIELD)
#undef LAZY_LIBXML2_FIELD
} lazy_libxml2;

/**
 * The table, loading libxml2 and calling xmlInitParser on the first call (libxml2.so.2;
 * /usr/lib/libxml2.2.dylib on macOS); the same table, valid for the life of the process, on every
 * later call. NULL when libxml2 cannot be loaded, with *reason (when reason is not NULL) set to a
 * message that says why, also valid for the life of the process. Thread-safe.
 */
const lazy_libxml2 *_Nullable lazy_libxml2_load(const char *_Nullable *_Nullable reason);

#ifdef __cplusplus
}
#endif

#endif /* LAZY_LIBXML2_H */
