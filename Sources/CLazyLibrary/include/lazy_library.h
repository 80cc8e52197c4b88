/*
 * lazy_library: a shared library opened the first time it is needed, not when the process starts.
 *
 * A library that is linked is mapped before main, with everything it depends on, by every
 * process, whether it calls the library or not. libcurl and libxml2 bring TLS, Kerberos, LDAP,
 * IDN and ICU along: about 7 MiB of resident pages that making a thumbnail never uses. So they
 * are not linked; CLazyCurl and CLazyLibXML2 open them with dlopen when first asked, once per
 * process, and resolve the functions the project calls into a table.
 */
#ifndef LAZY_LIBRARY_H
#define LAZY_LIBRARY_H

#include <pthread.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct lazy_library lazy_library;

/**
 * Resolves every function the caller uses with lazy_library_function, into a table of its own;
 * returns 0 as soon as one is missing.
 */
typedef int (*lazy_library_resolver)(lazy_library *library);

struct lazy_library {
    /** What messages call it: "libcurl". */
    const char *name;
    /** The file given to dlopen: the soname, which the runtime package provides (the unversioned
        name comes only with the development package). */
    const char *soname;
    lazy_library_resolver resolve;
    /* Kept by lazy_library_load: */
    pthread_mutex_t lock;
    int attempted;
    int loaded;
    void *handle;
    /** Why it could not be loaded, e.g. "libcurl (libcurl.so.4) could not be loaded: …"; empty when it was. */
    char error[512];
};

/** A library not loaded yet, for a static variable. */
#define LAZY_LIBRARY(name, soname, resolve) {(name), (soname), (resolve), PTHREAD_MUTEX_INITIALIZER, 0, 0, NULL, ""}

/**
 * The soname of version `major` of the library `name` ("libcurl"): libcurl.so.4 on Linux and the
 * BSDs, found where the dynamic loader finds linked libraries; /usr/lib/libcurl.4.dylib, the
 * system's, on macOS, whose dlopen also looks in the current directory for a bare name.
 */
#ifdef __APPLE__
#define LAZY_LIBRARY_SONAME(name, major) "/usr/lib/" name "." major ".dylib"
#else
#define LAZY_LIBRARY_SONAME(name, major) name ".so." major
#endif

/**
 * Opens the library and resolves its functions on the first call; later calls give the first
 * call's answer without trying again. Returns 1 when loaded; 0 when not, with *reason (when reason
 * is not NULL) set to library->error, which says why. Thread-safe.
 */
int lazy_library_load(lazy_library *library, const char **reason);

/**
 * For a resolver: the function `name` of the library being loaded, or NULL when it has none
 * (library->error then says so).
 */
void *lazy_library_function(lazy_library *library, const char *name);

#ifdef __cplusplus
}
#endif

#endif /* LAZY_LIBRARY_H */
