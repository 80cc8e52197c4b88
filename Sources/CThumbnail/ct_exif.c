/*
 * Reads the Orientation tag (0x0112) from an EXIF TIFF block. Every offset is
 * bounds-checked: the block comes from the file and may lie.
 */
#include "ct_internal.h"

static uint32_t ct_read16(const uint8_t *p, int little_endian) {
    return little_endian ? (uint32_t)p[0] | (uint32_t)p[1] << 8 : (uint32_t)p[0] << 8 | (uint32_t)p[1];
}

static uint32_t ct_read32(const uint8_t *p, int little_endian) {
    return little_endian ? ct_read16(p, 1) | ct_read16(p + 2, 1) << 16 : ct_read16(p, 0) << 16 | ct_read16(p + 2, 0);
}

uint8_t ct_exif_orientation(const uint8_t *tiff, size_t size) {
    if (tiff == NULL || size < 8) return 1;
    int little_endian;
    if (tiff[0] == 'I' && tiff[1] == 'I') little_endian = 1;
    else if (tiff[0] == 'M' && tiff[1] == 'M') little_endian = 0;
    else return 1;
    if (ct_read16(tiff + 2, little_endian) != 42) return 1;
    uint32_t ifd = ct_read32(tiff + 4, little_endian);
    if (ifd > size - 2) return 1;
    uint32_t entries = ct_read16(tiff + ifd, little_endian);
    for (uint32_t i = 0; i < entries; i++) {
        uint64_t entry = (uint64_t)ifd + 2 + 12ull * i;
        if (entry + 12 > size) return 1;
        const uint8_t *e = tiff + entry;
        if (ct_read16(e, little_endian) != 0x0112) continue;
        /* SHORT, count 1: the value sits in the first two bytes of the value field. */
        if (ct_read16(e + 2, little_endian) != 3 || ct_read32(e + 4, little_endian) != 1) return 1;
        uint32_t value = ct_read16(e + 8, little_endian);
        return value >= 1 && value <= 8 ? (uint8_t)value : 1;
    }
    return 1;
}
