/* giflib's low-level reader (one record, one line at a time). */
#include <gif_lib.h>
