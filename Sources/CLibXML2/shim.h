#ifndef CLIBXML2_SHIM_H
#define CLIBXML2_SHIM_H
/* libxml2's SAX2 push parser, for RSS and Atom: no tree, no DTDs, no entities (ThumbnailFeeds' XMLEventParser). */
#include <libxml/parser.h>
#include <libxml/SAX2.h>
#include <libxml/xmlerror.h>
#endif
