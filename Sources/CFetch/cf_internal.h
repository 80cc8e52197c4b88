/* Shared between cfetch's files; not part of its API. */
#ifndef CF_INTERNAL_H
#define CF_INTERNAL_H

#include <stddef.h>
#include <stdio.h>
#include <sys/socket.h>

#include "cfetch.h"

/**
 * Whether a client refusing private addresses refuses this one; writes its
 * numeric form into text (may be NULL).
 */
int cf_sockaddr_is_private(const struct sockaddr *address, char *text, size_t text_size);

#endif /* CF_INTERNAL_H */
