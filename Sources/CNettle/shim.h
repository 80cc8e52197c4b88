/* Only SHA-256: cache file names and checksums for the disk cache. */
#include <nettle/sha2.h>
