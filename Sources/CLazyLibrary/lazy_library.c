#include "lazy_library.h"

#include <dlfcn.h>
#include <stdio.h>

int lazy_library_load(lazy_library *library, const char **reason) {
    pthread_mutex_lock(&library->lock);
    if (!library->attempted) {
        library->attempted = 1;
        /* RTLD_NOW: a library that cannot bind its own dependencies fails here, with a message,
           not later in the middle of a call. */
        library->handle = dlopen(library->soname, RTLD_NOW | RTLD_LOCAL);
        if (library->handle == NULL) {
            snprintf(library->error, sizeof library->error, "%s (%s) could not be loaded: %s", library->name,
                     library->soname, dlerror());
        } else if (library->resolve(library)) {
            library->loaded = 1;
        } else {
            dlclose(library->handle);
            library->handle = NULL;
        }
    }
    int loaded = library->loaded;
    pthread_mutex_unlock(&library->lock);
    if (!loaded && reason != NULL) *reason = library->error;
    return loaded;
}

void *lazy_library_function(lazy_library *library, const char *name) {
    void *function = dlsym(library->handle, name);
    if (function == NULL) {
        /* An older release than the headers built against, most likely. */
        snprintf(library->error, sizeof library->error, "%s (%s) could not be loaded: it has no %s", library->name,
                 library->soname, name);
    }
    return function;
}
