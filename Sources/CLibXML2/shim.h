#ifndef CLIBXML2_SHIM_H
#define CLIBXML2_SHIM_H
/* libxml2's SAX2 push parser's types and constants, for RSS and Atom: no tree, no DTDs, no entities
   (ThumbnailFeeds' XMLEventParser). No `link` in the module map: libxml2 is loaded on first use, and
   its functions are called through CLazyLibXML2's table. */
#include <libxml/parser.h>
#include <libxml/SAX2.h>
#include <libxml/xmlerror.h>
#endif
