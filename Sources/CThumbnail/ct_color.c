/*
 * The colour stage: a finished thumbnail converted in place from the colour
 * space its file describes (an ICC profile, or a PNG's gAMA and cHRM) to
 * sRGB with LittleCMS 2, relative colorimetric.
 *
 * It runs on the thumbnail rather than on source rows, so it costs the same
 * for a 24 MP photo as for a small one. The area filter has then averaged
 * encoded values in the file's own space, as it averages sRGB values for
 * everything else.
 *
 * Each call makes a LittleCMS context of its own: its memory handler counts
 * what LittleCMS allocates in the decode's ct_alloc (within a cap) and its
 * error handler keeps the first message for the report. Decodes on many
 * threads share nothing but LittleCMS's locked list of contexts, and nothing
 * is printed.
 *
 * Black-point compensation is left off: the corpus references were made
 * without it, and on their matrix-shaper profiles (black at zero) it
 * changes nothing anyway.
 */
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <lcms2.h>
#include <lcms2_plugin.h>

#include "ct_internal.h"

/* What LittleCMS may hold at once for one thumbnail: CMYK tables take a few hundred KiB. */
#define CT_COLOR_WORKING_MEMORY_MAX (32u * 1024u * 1024u)
/* The oldest LittleCMS whose contexts take a memory plug-in. */
#define CT_COLOR_PLUGIN_VERSION 2060

/* How close counts as "the same as sRGB": half an 8-bit step on a curve, colorants as in real sRGB profiles. */
#define CT_COLOR_CURVE_TOLERANCE 0.002f
#define CT_COLOR_COLORANT_TOLERANCE 0.002
/* A gamma within 5% of 1/2.2 is sRGB's, as libpng judges gamma significance; chromaticities within libpng's 0.001. */
#define CT_COLOR_GAMMA_TOLERANCE 0.05
#define CT_COLOR_CHROMATICITY_TOLERANCE 0.001

/* One call's state, reached from the LittleCMS context as its user data. */
typedef struct ct_color_session {
    ct_alloc *alloc;
    uint64_t held; /* bytes LittleCMS holds now */
    char error[96]; /* LittleCMS's first error message */
} ct_color_session;

/* ---- LittleCMS's memory and errors ---- */

/*
 * Each block starts with its size and the session that counted it (NULL for
 * the context's own block, which LittleCMS allocates and frees before and
 * after the context can name its session), padded to keep 16-byte alignment.
 */
typedef struct ct_color_block {
    size_t size;
    ct_color_session *session;
} ct_color_block;
#define CT_COLOR_BLOCK_HEADER 16
_Static_assert(sizeof(ct_color_block) <= CT_COLOR_BLOCK_HEADER, "block header fits its padding");

static void *ct_color_malloc(cmsContext context, cmsUInt32Number size) {
    ct_color_session *session = cmsGetContextUserData(context);
    if (session != NULL && session->held + size > CT_COLOR_WORKING_MEMORY_MAX) return NULL;
    uint8_t *block = malloc((size_t)size + CT_COLOR_BLOCK_HEADER);
    if (block == NULL) return NULL;
    ct_color_block header = {size, session};
    memcpy(block, &header, sizeof header);
    if (session != NULL) {
        session->held += size;
        ct_alloc_note(session->alloc, (int64_t)size);
    }
    return block + CT_COLOR_BLOCK_HEADER;
}

static ct_color_block ct_color_block_of(const void *pointer) {
    ct_color_block header;
    memcpy(&header, (const uint8_t *)pointer - CT_COLOR_BLOCK_HEADER, sizeof header);
    return header;
}

static void ct_color_free(cmsContext context, void *pointer) {
    (void)context;
    if (pointer == NULL) return;
    ct_color_block header = ct_color_block_of(pointer);
    if (header.session != NULL) {
        header.session->held -= header.size;
        ct_alloc_note(header.session->alloc, -(int64_t)header.size);
    }
    free((uint8_t *)pointer - CT_COLOR_BLOCK_HEADER);
}

static void *ct_color_realloc(cmsContext context, void *pointer, cmsUInt32Number size) {
    void *moved = ct_color_malloc(context, size);
    if (moved == NULL || pointer == NULL) return moved;
    size_t old_size = ct_color_block_of(pointer).size;
    memcpy(moved, pointer, old_size < size ? old_size : size);
    ct_color_free(context, pointer);
    return moved;
}

static const cmsPluginMemHandler ct_color_memory = {
    .base = {cmsPluginMagicNumber, CT_COLOR_PLUGIN_VERSION, cmsPluginMemHandlerSig, NULL},
    .MallocPtr = ct_color_malloc,
    .FreePtr = ct_color_free,
    .ReallocPtr = ct_color_realloc,
};

static void ct_color_log(cmsContext context, cmsUInt32Number code, const char *text) {
    (void)code;
    ct_color_session *session = cmsGetContextUserData(context);
    if (session != NULL && session->error[0] == 0) snprintf(session->error, sizeof session->error, "%s", text);
}

/* A context of this call's own; NULL when out of memory. */
static cmsContext ct_color_open(ct_color_session *session, ct_alloc *alloc) {
    memset(session, 0, sizeof *session);
    session->alloc = alloc;
    /* LittleCMS copies the handler's functions and never writes to the plug-in. */
    cmsContext context = cmsCreateContext((void *)(uintptr_t)&ct_color_memory, session);
    if (context != NULL) cmsSetLogErrorHandlerTHR(context, ct_color_log);
    return context;
}

/* ": <LittleCMS's message>", or nothing when it gave none. */
static const char *ct_color_because(const ct_color_session *session, char *buffer, size_t size) {
    if (session->error[0] == 0) return "";
    snprintf(buffer, size, ": %s", session->error);
    return buffer;
}

/* ---- the report ---- */

/* Copies text as printable ASCII (anything else becomes '?'), without trailing blanks. */
static void ct_color_set_text(char *field, size_t size, const char *text) {
    size_t length = 0;
    for (; text[length] != 0 && length + 1 < size; length++) {
        unsigned char c = (unsigned char)text[length];
        field[length] = c >= 0x20 && c < 0x7F ? (char)c : '?';
    }
    while (length > 0 && field[length - 1] == ' ') length--;
    field[length] = 0;
}

void ct_color_ignore(ct_color_report *report, const char *format, ...) {
    report->status = CT_COLOR_IGNORED;
    va_list arguments;
    va_start(arguments, format);
    vsnprintf(report->note, sizeof report->note, format, arguments);
    va_end(arguments);
}

static void ct_color_describe(cmsHPROFILE profile, ct_color_report *report) {
    char text[sizeof report->profile];
    if (cmsGetProfileInfoASCII(profile, cmsInfoDescription, "en", "US", text, sizeof text) == 0) return;
    text[sizeof text - 1] = 0;
    ct_color_set_text(report->profile, sizeof report->profile, text);
}

static const char *ct_color_space_name(cmsColorSpaceSignature space) {
    switch (space) {
    case cmsSigGrayData: return "gray";
    case cmsSigRgbData: return "RGB";
    case cmsSigCmykData: return "CMYK";
    case cmsSigLabData: return "Lab";
    case cmsSigXYZData: return "XYZ";
    case cmsSigYCbCrData: return "YCbCr";
    default: return "other";
    }
}

static cmsColorSpaceSignature ct_color_space_of(ct_color_model model) {
    switch (model) {
    case CT_COLOR_MODEL_GRAY: return cmsSigGrayData;
    case CT_COLOR_MODEL_RGB: return cmsSigRgbData;
    case CT_COLOR_MODEL_CMYK:
    case CT_COLOR_MODEL_CMYK_INVERTED: break;
    }
    return cmsSigCmykData;
}

/* ---- is it sRGB already? ---- */

static int ct_color_curve_is_srgb(const cmsToneCurve *curve, const cmsToneCurve *srgb) {
    if (curve == NULL || srgb == NULL) return 0;
    for (int i = 0; i <= 32; i++) {
        float x = (float)i / 32.0f;
        if (fabsf(cmsEvalToneCurveFloat(curve, x) - cmsEvalToneCurveFloat(srgb, x)) > CT_COLOR_CURVE_TOLERANCE)
            return 0;
    }
    return 1;
}

static int ct_color_colorant_is_srgb(const cmsCIEXYZ *colorant, const cmsCIEXYZ *srgb) {
    return colorant != NULL && srgb != NULL && fabs(colorant->X - srgb->X) <= CT_COLOR_COLORANT_TOLERANCE
        && fabs(colorant->Y - srgb->Y) <= CT_COLOR_COLORANT_TOLERANCE
        && fabs(colorant->Z - srgb->Z) <= CT_COLOR_COLORANT_TOLERANCE;
}

/*
 * Whether converting would change nothing worth an 8-bit step: a matrix/TRC
 * profile (the kind LittleCMS would use as such: no lookup table for this
 * intent) with sRGB's colorants and curves, or a gray profile with sRGB's
 * curve. Most photos carry such a profile; they skip the conversion.
 */
static int ct_color_is_srgb(cmsHPROFILE profile, cmsHPROFILE srgb, ct_color_model model) {
    if (cmsIsCLUT(profile, INTENT_RELATIVE_COLORIMETRIC, LCMS_USED_AS_INPUT)) return 0;
    if (model == CT_COLOR_MODEL_GRAY)
        return ct_color_curve_is_srgb(cmsReadTag(profile, cmsSigGrayTRCTag), cmsReadTag(srgb, cmsSigRedTRCTag));
    if (model != CT_COLOR_MODEL_RGB || !cmsIsMatrixShaper(profile)) return 0;
    static const cmsTagSignature colorants[3] = {cmsSigRedColorantTag, cmsSigGreenColorantTag, cmsSigBlueColorantTag};
    static const cmsTagSignature curves[3] = {cmsSigRedTRCTag, cmsSigGreenTRCTag, cmsSigBlueTRCTag};
    for (int i = 0; i < 3; i++) {
        if (!ct_color_colorant_is_srgb(cmsReadTag(profile, colorants[i]), cmsReadTag(srgb, colorants[i]))
            || !ct_color_curve_is_srgb(cmsReadTag(profile, curves[i]), cmsReadTag(srgb, curves[i])))
            return 0;
    }
    return 1;
}

/* ---- converting ---- */

static void ct_color_apply(cmsHTRANSFORM transform, uint8_t *pixels, uint32_t width, uint32_t height,
                           ct_color_model model) {
    size_t stride = (size_t)width * 4;
    if (model == CT_COLOR_MODEL_GRAY) {
        /* A gray thumbnail has 256 values at most: convert those once and look each pixel up. */
        uint8_t gray[256], rgb[256 * 3];
        for (int i = 0; i < 256; i++) gray[i] = (uint8_t)i;
        cmsDoTransform(transform, gray, rgb, 256);
        for (uint32_t y = 0; y < height; y++) {
            uint8_t *row = pixels + y * stride;
            for (uint32_t x = 0; x < width; x++) memcpy(row + 4 * (size_t)x, rgb + 3 * row[4 * (size_t)x], 3);
        }
        return;
    }
    /* In place: input and output pixels are both 4 bytes, converted one after the other. */
    for (uint32_t y = 0; y < height; y++) {
        uint8_t *row = pixels + y * stride;
        cmsDoTransform(transform, row, row, width);
        if (model != CT_COLOR_MODEL_RGB)
            for (uint32_t x = 0; x < width; x++) row[4 * (size_t)x + 3] = 255; /* the K byte was there */
    }
}

/* Converts the pixels with `profile` when its colour space is the pixels' own; fills the report's status. */
static void ct_color_convert(cmsContext context, ct_color_session *session, cmsHPROFILE profile,
                             ct_color_model model, uint8_t *pixels, uint32_t width, uint32_t height,
                             ct_color_report *report) {
    cmsColorSpaceSignature space = cmsGetColorSpace(profile), wanted = ct_color_space_of(model);
    if (space != wanted) {
        ct_color_ignore(report, "the profile is for %s, the image is %s", ct_color_space_name(space),
                        ct_color_space_name(wanted));
        return;
    }
    char because[sizeof session->error + 2];
    cmsHPROFILE srgb = cmsCreate_sRGBProfileTHR(context);
    if (srgb == NULL) {
        ct_color_ignore(report, "no sRGB profile%s", ct_color_because(session, because, sizeof because));
        return;
    }
    if (ct_color_is_srgb(profile, srgb, model)) {
        report->status = CT_COLOR_SRGB;
    } else {
        static const cmsUInt32Number input[] = {
            [CT_COLOR_MODEL_GRAY] = TYPE_GRAY_8, [CT_COLOR_MODEL_RGB] = TYPE_RGBA_8,
            [CT_COLOR_MODEL_CMYK] = TYPE_CMYK_8, [CT_COLOR_MODEL_CMYK_INVERTED] = TYPE_CMYK_8_REV};
        cmsUInt32Number output = model == CT_COLOR_MODEL_GRAY ? TYPE_RGB_8 : TYPE_RGBA_8;
        /*
         * Gray converts 256 values once: evaluated exactly, rather than through
         * the tables LittleCMS would build to speed it up, which interpolate a
         * steep curve's first steps (gamma 0.4: 1 → 17 instead of 93).
         */
        cmsUInt32Number flags = model == CT_COLOR_MODEL_GRAY ? cmsFLAGS_NOOPTIMIZE : 0;
        cmsHTRANSFORM transform =
            cmsCreateTransformTHR(context, profile, input[model], srgb, output, INTENT_RELATIVE_COLORIMETRIC, flags);
        if (transform == NULL) {
            ct_color_ignore(report, "no conversion from this profile to sRGB%s",
                            ct_color_because(session, because, sizeof because));
        } else {
            ct_color_apply(transform, pixels, width, height, model);
            cmsDeleteTransform(transform);
            report->status = CT_COLOR_CONVERTED;
        }
    }
    cmsCloseProfile(srgb);
}

/* CMYK pixels must come out RGBA: when no profile converted them, today's formula does. */
static void ct_color_finish_cmyk(uint8_t *pixels, uint32_t width, uint32_t height, ct_color_model model,
                                 const ct_color_report *report) {
    if (model == CT_COLOR_MODEL_GRAY || model == CT_COLOR_MODEL_RGB || report->status == CT_COLOR_CONVERTED) return;
    size_t count = (size_t)width * height;
    for (size_t i = 0; i < count; i++) {
        uint8_t *pixel = pixels + 4 * i;
        ct_cmyk_ink_to_rgb(pixel, model == CT_COLOR_MODEL_CMYK_INVERTED, pixel);
        pixel[3] = 255;
    }
}

void ct_color_to_srgb(ct_alloc *alloc, uint8_t *pixels, uint32_t width, uint32_t height, ct_color_model model,
                      const uint8_t *icc, size_t size, ct_color_report *report) {
    memset(report, 0, sizeof *report);
    ct_color_session session;
    cmsContext context = NULL;
    if (size > CT_COLOR_PROFILE_MAX) {
        ct_color_ignore(report, "the ICC profile is %zu bytes, over the limit of %u", size, CT_COLOR_PROFILE_MAX);
    } else if ((context = ct_color_open(&session, alloc)) == NULL) {
        ct_color_ignore(report, "out of memory for LittleCMS");
    } else {
        char because[sizeof session.error + 2];
        cmsHPROFILE profile = cmsOpenProfileFromMemTHR(context, icc, (cmsUInt32Number)size);
        if (profile == NULL) {
            ct_color_ignore(report, "the ICC profile cannot be read%s",
                            ct_color_because(&session, because, sizeof because));
        } else {
            ct_color_describe(profile, report);
            ct_color_convert(context, &session, profile, model, pixels, width, height, report);
            cmsCloseProfile(profile);
        }
        cmsDeleteContext(context);
    }
    ct_color_finish_cmyk(pixels, width, height, model, report);
}

/* ---- PNG gAMA and cHRM ---- */

static int ct_color_close_to(double a, double b) { return fabs(a - b) <= CT_COLOR_CHROMATICITY_TOLERANCE; }

static int ct_color_chromaticities_are_srgb(const ct_color_chromaticities *c) {
    return ct_color_close_to(c->white_x, 0.3127) && ct_color_close_to(c->white_y, 0.3290)
        && ct_color_close_to(c->red_x, 0.64) && ct_color_close_to(c->red_y, 0.33)
        && ct_color_close_to(c->green_x, 0.30) && ct_color_close_to(c->green_y, 0.60)
        && ct_color_close_to(c->blue_x, 0.15) && ct_color_close_to(c->blue_y, 0.06);
}

/*
 * A profile for what the chunks say: the decoding curve is the inverse of
 * the encoding gamma (sRGB's own curve when there is no gAMA), and missing
 * chromaticities are sRGB's.
 */
static cmsHPROFILE ct_color_profile_from_chunks(cmsContext context, ct_color_model model, double gamma,
                                               const ct_color_chromaticities *chromaticities) {
    static const cmsFloat64Number srgb_curve[5] = {2.4, 1.0 / 1.055, 0.055 / 1.055, 1.0 / 12.92, 0.04045};
    cmsToneCurve *curve = gamma > 0 ? cmsBuildGamma(context, 1.0 / gamma)
                                    : cmsBuildParametricToneCurve(context, 4, srgb_curve);
    if (curve == NULL) return NULL;
    ct_color_chromaticities c = {0.3127, 0.3290, 0.64, 0.33, 0.30, 0.60, 0.15, 0.06};
    if (chromaticities != NULL) c = *chromaticities;
    cmsCIExyY white = {c.white_x, c.white_y, 1.0};
    cmsHPROFILE profile;
    if (model == CT_COLOR_MODEL_GRAY) {
        profile = cmsCreateGrayProfileTHR(context, &white, curve);
    } else {
        cmsCIExyYTRIPLE primaries = {{c.red_x, c.red_y, 1.0}, {c.green_x, c.green_y, 1.0}, {c.blue_x, c.blue_y, 1.0}};
        cmsToneCurve *curves[3] = {curve, curve, curve};
        profile = cmsCreateRGBProfileTHR(context, &white, &primaries, curves);
    }
    cmsFreeToneCurve(curve);
    return profile;
}

void ct_color_gamma_to_srgb(ct_alloc *alloc, uint8_t *pixels, uint32_t width, uint32_t height, ct_color_model model,
                            double gamma, const ct_color_chromaticities *chromaticities, const char *description,
                            ct_color_report *report) {
    memset(report, 0, sizeof *report);
    /* Gray has no chromaticities to speak of: only its curve can differ. */
    if (model == CT_COLOR_MODEL_GRAY) chromaticities = NULL;
    int gamma_differs = gamma > 0 && fabs(gamma * 2.2 - 1.0) > CT_COLOR_GAMMA_TOLERANCE;
    int chromaticities_differ = chromaticities != NULL && !ct_color_chromaticities_are_srgb(chromaticities);
    if (!gamma_differs && !chromaticities_differ) return;
    ct_color_set_text(report->profile, sizeof report->profile, description);
    ct_color_session session;
    cmsContext context = ct_color_open(&session, alloc);
    if (context == NULL) {
        ct_color_ignore(report, "out of memory for LittleCMS");
        return;
    }
    char because[sizeof session.error + 2];
    cmsHPROFILE profile = ct_color_profile_from_chunks(context, model, gamma, chromaticities);
    if (profile == NULL) {
        ct_color_ignore(report, "no profile can be made of these values%s",
                        ct_color_because(&session, because, sizeof because));
    } else {
        ct_color_convert(context, &session, profile, model, pixels, width, height, report);
        cmsCloseProfile(profile);
    }
    cmsDeleteContext(context);
}
