#include "lazy_libxml2.h"

#include "lazy_library.h"

static lazy_libxml2 functions;

/* Resolves each function into the table, stopping at the first one libxml2 lacks. */
#define LAZY_LIBXML2_RESOLVE(name) &&(functions.name = (__typeof__(&name))lazy_library_function(library, #name))

static int resolve(lazy_library *library) {
    if (!(1 LAZY_LIBXML2_FUNCTIONS(LAZY_LIBXML2_RESOLVE))) return 0;
    /* libxml2's global set-up, which its documentation asks for once per process before several
       threads may parse: loading happens once per process, so here. */
    functions.xmlInitParser();
    return 1;
}

static lazy_library libxml2 = LAZY_LIBRARY("libxml2", LAZY_LIBRARY_SONAME("libxml2", "2"), resolve);

const lazy_libxml2 *lazy_libxml2_load(const char **reason) {
    return lazy_library_load(&libxml2, reason) ? &functions : NULL;
}
