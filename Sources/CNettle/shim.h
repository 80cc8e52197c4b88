/* SHA-256: cache file names and checksums for the disk cache.
   HMAC-SHA256: the signatures of `thumbnailer serve`'s URLs. */
#include <nettle/sha2.h>
#include <nettle/hmac.h>
