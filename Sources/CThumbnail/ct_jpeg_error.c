/*
 * The libjpeg error manager shared by the decoder and the encoder. libjpeg
 * reports fatal errors through error_exit and expects it not to return; we
 * longjmp back into the function of ours that called the library, which then
 * destroys the libjpeg object and frees everything.
 */
#include <stdarg.h>
#include <string.h>

#include "ct_jpeg.h"

static ct_jpeg_error *ct_jpeg_error_of(j_common_ptr cinfo) { return (ct_jpeg_error *)cinfo->err; }

void ct_jpeg_format_current(j_common_ptr cinfo, char *buffer) { (*cinfo->err->format_message)(cinfo, buffer); }

static void ct_jpeg_error_exit(j_common_ptr cinfo) {
    ct_jpeg_error *error = ct_jpeg_error_of(cinfo);
    char text[JMSG_LENGTH_MAX];
    ct_jpeg_format_current(cinfo, text);
    snprintf(error->message, sizeof error->message, "JPEG: %s", text);
    error->status = CT_OK; /* the caller maps pub.msg_code to a status */
    longjmp(error->jump, 1);
}

/* A library must not write to stderr. */
static void ct_jpeg_output_message(j_common_ptr cinfo) { (void)cinfo; }

/* libjpeg calls this for trace messages (level >= 0) and warnings (level -1). */
static void ct_jpeg_emit_message(j_common_ptr cinfo, int level) {
    ct_jpeg_error *error = ct_jpeg_error_of(cinfo);
    if (level < 0 && error->emit_warning != NULL) error->emit_warning(cinfo);
}

void ct_jpeg_error_init(ct_jpeg_error *error, void (*emit_warning)(j_common_ptr cinfo)) {
    memset(error, 0, sizeof *error);
    jpeg_std_error(&error->pub);
    error->pub.error_exit = ct_jpeg_error_exit;
    error->pub.output_message = ct_jpeg_output_message;
    error->pub.emit_message = ct_jpeg_emit_message;
    error->emit_warning = emit_warning;
}

_Noreturn void ct_jpeg_raise(j_common_ptr cinfo, ct_status status, const char *format, ...) {
    ct_jpeg_error *error = ct_jpeg_error_of(cinfo);
    va_list arguments;
    va_start(arguments, format);
    int prefix = snprintf(error->message, sizeof error->message, "JPEG: ");
    vsnprintf(error->message + prefix, sizeof error->message - (size_t)prefix, format, arguments);
    va_end(arguments);
    error->status = status;
    longjmp(error->jump, 1);
}
