/* libheif: HEIF containers with HEVC images (HEIC), their thumbnail items, transforms and colour. */
#include <libheif/heif.h>
