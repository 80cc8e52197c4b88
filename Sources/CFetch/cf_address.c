/* Which addresses a client that refuses private addresses will not connect to. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "cf_internal.h"

static int cf_ipv4_is_private(const uint8_t a[4]) {
    return a[0] == 0                                      /* 0.0.0.0/8: "this" network */
        || a[0] == 10                                     /* 10/8 */
        || a[0] == 127                                    /* loopback */
        || (a[0] == 100 && (a[1] & 0xC0) == 64)           /* 100.64/10: carrier-grade NAT */
        || (a[0] == 169 && a[1] == 254)                   /* link-local, cloud metadata */
        || (a[0] == 172 && (a[1] & 0xF0) == 16)           /* 172.16/12 */
        || (a[0] == 192 && a[1] == 0 && a[2] == 0)        /* 192.0.0/24: protocol assignments */
        || (a[0] == 192 && a[1] == 168)                   /* 192.168/16 */
        || (a[0] == 198 && (a[1] & 0xFE) == 18)           /* 198.18/15: benchmarking */
        || a[0] >= 224;                                   /* multicast, reserved, broadcast */
}

static int cf_ipv6_is_private(const uint8_t a[16]) {
    static const uint8_t compatible_prefix[12] = {0};
    static const uint8_t mapped_prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF};
    static const uint8_t nat64_prefix[12] = {0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0};
    /* IPv4 addresses in disguise, judged as the address they carry: ::a.b.c.d (IPv4-compatible,
       deprecated, but a stack may still route it; :: and ::1 fall in 0.0.0.0/8), ::ffff:a.b.c.d
       (mapped), 64:ff9b::a.b.c.d (NAT64), and 2002:aabb:ccdd::/48 (6to4, for aa.bb.cc.dd). */
    if (memcmp(a, compatible_prefix, 12) == 0 || memcmp(a, mapped_prefix, 12) == 0 || memcmp(a, nat64_prefix, 12) == 0)
        return cf_ipv4_is_private(a + 12);
    if (a[0] == 0x20 && a[1] == 0x02) return cf_ipv4_is_private(a + 2);
    if ((a[0] & 0xFE) == 0xFC) return 1;                                  /* fc00::/7 unique local */
    if (a[0] == 0xFE && (a[1] & 0xC0) == 0x80) return 1;                  /* fe80::/10 link-local */
    if (a[0] == 0xFE && (a[1] & 0xC0) == 0xC0) return 1;                  /* fec0::/10 site-local (deprecated) */
    if (a[0] == 0xFF) return 1;                                           /* multicast */
    return 0;
}

int cf_sockaddr_is_private(const struct sockaddr *address, char *text, size_t text_size) {
    if (address->sa_family == AF_INET) {
        const struct sockaddr_in *v4 = (const struct sockaddr_in *)address;
        if (text != NULL) inet_ntop(AF_INET, &v4->sin_addr, text, (socklen_t)text_size);
        return cf_ipv4_is_private((const uint8_t *)&v4->sin_addr);
    }
    if (address->sa_family == AF_INET6) {
        const struct sockaddr_in6 *v6 = (const struct sockaddr_in6 *)address;
        if (text != NULL) inet_ntop(AF_INET6, &v6->sin6_addr, text, (socklen_t)text_size);
        return cf_ipv6_is_private((const uint8_t *)&v6->sin6_addr);
    }
    if (text != NULL) snprintf(text, text_size, "an address of family %d", address->sa_family);
    return 1; /* Unix sockets and anything else: never a web server */
}

int cf_address_is_private(const char *address) {
    uint8_t bytes[16];
    if (address == NULL) return -1;
    if (inet_pton(AF_INET, address, bytes) == 1) return cf_ipv4_is_private(bytes);
    if (inet_pton(AF_INET6, address, bytes) == 1) return cf_ipv6_is_private(bytes);
    return -1;
}
