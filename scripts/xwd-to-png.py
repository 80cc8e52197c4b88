#!/usr/bin/env python3
"""Converts an X window dump (xwd, 24/32-bit TrueColor) to PNG, with the standard library only.

Usage: xwd-to-png.py IN.xwd OUT.png [X Y WIDTH HEIGHT]   (optionally a crop)"""
import struct
import sys
import zlib


def read_xwd(path):
    data = open(path, "rb").read()
    fields = struct.unpack(">25I", data[:100])
    header_size, _version, _format, depth, width, height = fields[:6]
    byte_order, bits_per_pixel, bytes_per_line = fields[7], fields[11], fields[12]
    ncolors = fields[19]
    red_mask, green_mask, blue_mask = fields[14], fields[15], fields[16]
    if bits_per_pixel != 32 or depth not in (24, 32):
        raise SystemExit("xwd-to-png: only 24/32-bit TrueColor dumps (this one: depth %d, %d bpp)" % (depth, bits_per_pixel))
    offset = header_size + ncolors * 12
    order = "<" if byte_order == 0 else ">"

    def shift(mask):
        return (mask & -mask).bit_length() - 1

    rs, gs, bs = shift(red_mask), shift(green_mask), shift(blue_mask)
    rows = []
    for y in range(height):
        line = data[offset + y * bytes_per_line: offset + y * bytes_per_line + width * 4]
        pixels = struct.unpack(order + "%dI" % width, line)
        rows.append(bytes(b for p in pixels for b in ((p >> rs) & 255, (p >> gs) & 255, (p >> bs) & 255)))
    return width, height, rows


def write_png(path, width, height, rows):
    raw = b"".join(b"\x00" + row for row in rows)

    def chunk(kind, body):
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)

    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
                + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


def main():
    width, height, rows = read_xwd(sys.argv[1])
    if len(sys.argv) == 7:
        x, y, w, h = map(int, sys.argv[3:7])
        rows = [row[3 * x: 3 * (x + w)] for row in rows[y: y + h]]
        width, height = w, h
    write_png(sys.argv[2], width, height, rows)


if __name__ == "__main__":
    main()
