#include "ct_codec_libraries.h"

#include "lazy_library.h"

ct_avif_functions ct_avif;
ct_heif_functions ct_heif;
ct_jxl_functions ct_jxl;

#define CT_STRING(token) #token
#define CT_VERSION_STRING(token) CT_STRING(token)

/*
 * The files to open: the sonames of the releases the headers describe (the
 * runtime packages provide them; the unversioned names come only with the
 * development packages). libavif's ABI changed at 1.0 (soname 16); libjxl's
 * soname carries its minor version until 1.0.
 */
#if AVIF_VERSION_MAJOR == 0
#define CT_AVIF_SONAME_VERSION "15"
#else
#define CT_AVIF_SONAME_VERSION "16"
#endif
#define CT_JXL_SONAME_VERSION CT_VERSION_STRING(JPEGXL_MAJOR_VERSION) "." CT_VERSION_STRING(JPEGXL_MINOR_VERSION)

#ifdef __APPLE__
/* Homebrew's, found by dlopen's fallback path (/usr/local/lib) or DYLD_LIBRARY_PATH. */
#define CT_CODEC_SONAME(name, version) name "." version ".dylib"
#else
#define CT_CODEC_SONAME(name, version) name ".so." version
#endif

/* Resolves each function into its table, stopping at the first one the library lacks. */
#define CT_RESOLVE_AVIF(name) &&(ct_avif.name = (__typeof__(&name))lazy_library_function(library, #name))
#define CT_RESOLVE_HEIF(name) &&(ct_heif.name = (__typeof__(&name))lazy_library_function(library, #name))
#define CT_RESOLVE_JXL(name) &&(ct_jxl.name = (__typeof__(&name))lazy_library_function(library, #name))

static int ct_resolve_avif(lazy_library *library) {
    return 1 CT_AVIF_FUNCTIONS(CT_RESOLVE_AVIF);
}

static int ct_resolve_heif(lazy_library *library) {
    return 1 CT_HEIF_FUNCTIONS(CT_RESOLVE_HEIF);
}

static int ct_resolve_jxl(lazy_library *library) {
    return 1 CT_JXL_FUNCTIONS(CT_RESOLVE_JXL);
}

static lazy_library libavif =
    LAZY_LIBRARY("libavif", CT_CODEC_SONAME("libavif", CT_AVIF_SONAME_VERSION), ct_resolve_avif);
static lazy_library libheif = LAZY_LIBRARY("libheif", CT_CODEC_SONAME("libheif", "1"), ct_resolve_heif);
static lazy_library libjxl = LAZY_LIBRARY("libjxl", CT_CODEC_SONAME("libjxl", CT_JXL_SONAME_VERSION), ct_resolve_jxl);

/* CT_OK once `library` is loaded; otherwise CT_UNSUPPORTED_FORMAT, naming `format` and why. */
static ct_status ct_load(lazy_library *library, const char *format, ct_error *error) {
    const char *reason;
    if (lazy_library_load(library, &reason)) return CT_OK;
    return ct_fail(error, CT_UNSUPPORTED_FORMAT, "%s images cannot be decoded here: %s", format, reason);
}

ct_status ct_avif_load(ct_error *error) {
    return ct_load(&libavif, "AVIF", error);
}

ct_status ct_heif_load(ct_error *error) {
    return ct_load(&libheif, "HEIC", error);
}

ct_status ct_jxl_load(ct_error *error) {
    return ct_load(&libjxl, "JPEG XL", error);
}
