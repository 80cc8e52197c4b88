#!/usr/bin/env python3
"""Converts X window dumps (xwd, 24/32-bit TrueColor) to one PNG, with the standard library only:
each dump cropped to the same region, side by side, 16 pixels of grey apart.

Usage: xwd-to-png.py OUT.png IN.xwd [IN.xwd ...] [--crop X Y WIDTH HEIGHT]"""
import argparse
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
    parser = argparse.ArgumentParser(description="X window dumps to one PNG, side by side")
    parser.add_argument("output")
    parser.add_argument("inputs", nargs="+")
    parser.add_argument("--crop", nargs=4, type=int, metavar=("X", "Y", "WIDTH", "HEIGHT"))
    args = parser.parse_args()
    images = []
    for path in args.inputs:
        width, height, rows = read_xwd(path)
        if args.crop:
            x, y, w, h = args.crop
            w, h = min(w, width - x), min(h, height - y)
            rows = [row[3 * x: 3 * (x + w)] for row in rows[y: y + h]]
            width, height = w, h
        images.append((width, height, rows))
    gap = b"\x40" * 3 * 16
    height = min(image[1] for image in images)
    rows = [gap.join(image[2][y] for image in images) for y in range(height)]
    width = sum(image[0] for image in images) + 16 * (len(images) - 1)
    write_png(args.output, width, height, rows)


if __name__ == "__main__":
    main()
