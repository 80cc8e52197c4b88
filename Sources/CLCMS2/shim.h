/* LittleCMS 2: ICC profiles to sRGB. */
#include <lcms2.h>
