/* libjxl's decoder: JPEG XL codestreams and containers, with progressive (DC-first) output. */
#include <jxl/decode.h>
