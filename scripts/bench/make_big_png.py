#!/usr/bin/env python3
"""Writes a large, hard-to-compress PNG (a photo-like gradient under grain) for the warm benchmark:
the kind of 5 MB original a careless CMS serves. Standard library only.

Usage: make_big_png.py OUT.png WIDTH HEIGHT [--alpha] [--seed N]"""
import argparse
import random
import struct
import zlib


def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("out")
    parser.add_argument("width", type=int)
    parser.add_argument("height", type=int)
    parser.add_argument("--alpha", action="store_true")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    channels = 4 if args.alpha else 3
    grain = bytes(rng.randrange(0, 48) for _ in range(args.width * channels * 7))
    raw = bytearray()
    for y in range(args.height):
        raw.append(0)  # filter: none
        offset = (y * 131) % (len(grain) - args.width * channels)
        row = bytearray(grain[offset:offset + args.width * channels])
        for x in range(args.width):
            base = x * channels
            row[base] = (row[base] + x * 200 // args.width) & 0xFF
            row[base + 1] = (row[base + 1] + y * 200 // args.height) & 0xFF
            row[base + 2] = (row[base + 2] + 100) & 0xFF
            if args.alpha:
                row[base + 3] = 255 - (x * y * 255 // (args.width * args.height)) // 2
        raw += row
    header = struct.pack(">IIBBBBB", args.width, args.height, 8, 6 if args.alpha else 2, 0, 0, 0)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(bytes(raw), 6)) + chunk(b"IEND", b"")
    with open(args.out, "wb") as out:
        out.write(png)


if __name__ == "__main__":
    main()
