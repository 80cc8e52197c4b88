/* libwebp's scaling decoder and its container parser (ICCP, EXIF, animation frames). */
#include <webp/decode.h>
#include <webp/demux.h>
