/* Only the digest API: SHA-256 names and checksums for the disk cache. */
#include <openssl/evp.h>
