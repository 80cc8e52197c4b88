/* libavif's decoder: AV1 stills and the first frame of sequences in ISO-BMFF (dav1d or libaom underneath). */
#include <avif/avif.h>
