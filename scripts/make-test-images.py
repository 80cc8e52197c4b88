#!/usr/bin/python3
"""Generate the decoder test corpus in TestImages/, with its README.md and manifest.json.

Usage:  /usr/bin/python3 scripts/make-test-images.py

Needs:  the Python 3 standard library; Pillow (Debian python3-pil) with WebP support; cjpeg,
        djpeg and jpegtran (libjpeg-turbo-progs); dwebp and webpinfo (webp, for cross-checks);
        convert-im6.q16 (imagemagick-6.q16, for the YCCK file); avifenc and avifdec
        (libavif-bin), heif-enc and heif-convert (libheif-examples), cjxl and djxl (libjxl-tools);
        the Aitzol Berasategi photos in /usr/share/backgrounds, which Debian ships in
        lomiri-wallpapers-16.04, and their licence in
        /usr/share/doc/lomiri-wallpapers-20.04/copyright (lomiri-wallpapers-20.04; both
        binary packages come from one source package with one copyright file).
        The system libpng (through its png_image API, via ctypes), pngtopnm (netpbm) and
        pngfix (libpng-tools) are used for cross-checks when installed; their verdicts then
        appear in the README.

How the files are made:
  * PNGs are written chunk by chunk here (zlib + struct + crc32) so bit depths, Adam7
    interlacing, filter types and damage are exactly controlled. Only the RGBA photo is
    encoded by Pillow.
  * WebPs are encoded by Pillow (libwebp); containers whose layout matters (EXIF chunks,
    animation frames, damage) are assembled chunk by chunk around Pillow's bitstreams.
  * JPEGs come from cjpeg (PPM/PGM on stdin), from jpegtran (scan scripts and restart
    intervals for progressive files), from Pillow (CMYK), from ImageMagick (YCCK), or are
    assembled or edited by hand (EXIF segments, 12-bit, lossless and damaged files, a DQT
    moved between scans).
  * AVIF, HEIC and JPEG XL files come from their reference encoders (avifenc, heif-enc,
    cjxl), checked with their reference decoders; damage and hostile headers are edits of
    those files (a cut, an `ispe` property, a hand-written JPEG XL size header). The
    iPhone-like HEIC is assembled box by box around HEVC tiles and a thumbnail heif-enc encoded.
  * ICC profiles for the colour-management files are written byte by byte here (ICC v2), so
    they do not depend on a colour-management library; the checks convert with LittleCMS
    through Pillow's ImageCms.
  * Nothing random: pseudo-random bytes come from a seeded random.Random. Re-running
    reproduces every file byte for byte with the same zlib, libjpeg-turbo, Pillow, ImageMagick,
    libavif, libheif and libjxl.

Files whose expected outcome is an error go to TestImages/invalid/; everything at the top
of TestImages/ decodes.

After writing, every file is decoded again with Pillow and with the libjpeg/libpng-based
tools; pixel content is asserted against the formulas documented in the README, and each
tool's verdict is recorded in the README table. Any mismatch stops the script.
"""

import ctypes
import ctypes.util
import io
import json
import math
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import warnings
import zlib
from pathlib import Path

from PIL import Image, ImageCms, ImageOps, PngImagePlugin

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "TestImages"
INVALID = "invalid"  # subfolder of OUT for every file whose expected outcome is an error
BACKGROUNDS = Path("/usr/share/backgrounds")
WALLPAPER_COPYRIGHT = Path("/usr/share/doc/lomiri-wallpapers-20.04/copyright")
IMAGEMAGICK = "convert-im6.q16"  # ImageMagick 6 (Debian imagemagick-6.q16): the YCCK writer

# Outcome names as the Swift API spells them; "decodes" means success.
DECODES, CORRUPT, TRUNCATED = "decodes", "corrupt", "truncated"
TOO_LARGE, UNSUPPORTED_FEATURE, UNSUPPORTED_FORMAT = "tooLarge", "unsupportedFeature", "unsupportedFormat"


# ---------------------------------------------------------------------------------------
# Corpus bookkeeping
# ---------------------------------------------------------------------------------------

class Corpus:
    """Writes files and remembers what each one is for (README rows, manifest, checks)."""

    def __init__(self, directory):
        self.directory = directory
        self.entries = []
        self.family = None
        self.credits = []  # (file name, credit line) for derived third-party content

    def section(self, title, intro):
        self.family = {"title": title, "intro": intro}

    def add(self, name, data, *, what, exercises, expect, header=None, check=None, same_pixels_as=None):
        """header: the facts a successful probe reports (ct_image_info), None when the
        header itself is unusable. check(data) asserts pixel content and may return a note.
        Files that decode go to the top of TestImages/, all others to TestImages/invalid/;
        "path" is relative to TestImages/."""
        path = name if expect == DECODES else INVALID + "/" + name
        target = self.directory / path
        target.parent.mkdir(exist_ok=True)
        target.write_bytes(data)
        assert same_pixels_as is None or "/" not in same_pixels_as
        self.entries.append({
            "name": name, "path": path, "data": data, "family": self.family, "what": what,
            "exercises": exercises, "expect": expect, "header": header, "check": check,
            "same_pixels_as": same_pixels_as, "tools": "", "note": "",
        })
        return data


def header_facts(width, height, *, components, bit_depth=8, has_alpha=False, progressive=False,
                 orientation=1, whole_image_bytes_per_pixel=0):
    return {"width": width, "height": height, "components": components, "bit_depth": bit_depth,
            "has_alpha": has_alpha, "progressive": progressive, "orientation": orientation,
            "whole_image_bytes_per_pixel": whole_image_bytes_per_pixel}


# ---------------------------------------------------------------------------------------
# PNG writer
# ---------------------------------------------------------------------------------------

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}
COLOUR_TYPE_NAMES = {0: "gray", 2: "RGB", 3: "palette", 4: "gray+alpha", 6: "RGBA"}
# Adam7 passes: (first column, first row, column step, row step)
ADAM7 = [(0, 0, 8, 8), (4, 0, 8, 8), (0, 4, 4, 8), (2, 0, 4, 4), (0, 2, 2, 4), (1, 0, 2, 2), (0, 1, 1, 2)]
IDAT_SIZE = 8192  # libpng's default IDAT chunk size


def png_chunk(kind, payload, bad_crc=False):
    crc = zlib.crc32(kind + payload)
    if bad_crc:
        crc ^= 0xFFFFFFFF
    return struct.pack(">I", len(payload)) + kind + payload + struct.pack(">I", crc)


def assemble_png(chunks, bad_crc=()):
    """chunks: [(type, payload)]; chunk types listed in bad_crc get an inverted CRC."""
    return PNG_SIGNATURE + b"".join(png_chunk(kind, payload, kind in bad_crc) for kind, payload in chunks)


def pack_row(pixels, depth):
    """Packs a row of sample tuples big-endian at `depth` bits, padding the last byte."""
    samples = [s for pixel in pixels for s in pixel]
    if depth == 16:
        return struct.pack(">%dH" % len(samples), *samples)
    if depth == 8:
        return bytes(samples)
    per_byte = 8 // depth
    packed = bytearray()
    for start in range(0, len(samples), per_byte):
        byte = 0
        for slot, sample in enumerate(samples[start:start + per_byte]):
            byte |= sample << (8 - depth * (slot + 1))
        packed.append(byte)
    return bytes(packed)


def paeth(a, b, c):
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def filter_scanline(filter_type, row, previous, bpp):
    left = bytes(bpp) + row[:-bpp]
    up_left = bytes(bpp) + previous[:-bpp]
    if filter_type == 0:
        return row
    if filter_type == 1:
        return bytes((x - a) & 255 for x, a in zip(row, left))
    if filter_type == 2:
        return bytes((x - b) & 255 for x, b in zip(row, previous))
    if filter_type == 3:
        return bytes((x - ((a + b) >> 1)) & 255 for x, a, b in zip(row, left, previous))
    return bytes((x - paeth(a, b, c)) & 255 for x, a, b, c in zip(row, left, previous, up_left))


def filtered_scanlines(width, height, colour_type, depth, rows, interlace, adaptive):
    """The uncompressed IDAT stream. Filters rotate 0,1,2,3,4 row by row (so every
    unfilter path runs), or with adaptive=True each row takes the filter with the smallest
    sum of absolute signed bytes (libpng's heuristic), for compact large images."""
    bpp = max(1, CHANNELS[colour_type] * depth // 8)
    passes = ADAM7 if interlace else [(0, 0, 1, 1)]
    stream = bytearray()
    row_counter = 0
    for x0, y0, dx, dy in passes:
        columns, lines = range(x0, width, dx), range(y0, height, dy)
        if not columns or not lines:
            continue  # an empty Adam7 pass contributes no bytes at all
        previous = None
        for y in lines:
            raw = pack_row([rows[y][x] for x in columns], depth)
            previous = previous or bytes(len(raw))
            if adaptive:
                candidates = [(filter_scanline(f, raw, previous, bpp), f) for f in range(5)]
                line, filter_type = min(candidates, key=lambda c: sum(v if v < 128 else 256 - v for v in c[0]))
            else:
                filter_type = row_counter % 5
                line = filter_scanline(filter_type, raw, previous, bpp)
            stream.append(filter_type)
            stream += line
            previous = raw
            row_counter += 1
    return bytes(stream)


def png_chunk_list(width, height, colour_type, depth, rows, *, palette=None, trns=None, interlace=False,
                   adaptive=False, text=()):
    chunks = [(b"IHDR", struct.pack(">IIBBBBB", width, height, depth, colour_type, 0, 0, int(interlace)))]
    chunks += [(b"tEXt", key.encode("latin-1") + b"\0" + value.encode("latin-1")) for key, value in text]
    if palette is not None:
        chunks.append((b"PLTE", b"".join(bytes(entry) for entry in palette)))
    if trns is not None:
        chunks.append((b"tRNS", trns))
    compressed = zlib.compress(filtered_scanlines(width, height, colour_type, depth, rows, interlace, adaptive), 9)
    chunks += [(b"IDAT", compressed[i:i + IDAT_SIZE]) for i in range(0, len(compressed), IDAT_SIZE)]
    chunks.append((b"IEND", b""))
    return chunks


def encode_png(*args, **kwargs):
    return assemble_png(png_chunk_list(*args, **kwargs))


def png_header_facts(width, height, colour_type, depth, *, interlace=False, trns=False):
    return header_facts(width, height, components=3 if colour_type == 3 else CHANNELS[colour_type],
                        bit_depth=depth, has_alpha=colour_type in (4, 6) or trns, progressive=interlace)


# ---------------------------------------------------------------------------------------
# JPEG helpers
# ---------------------------------------------------------------------------------------

def pnm(width, height, samples, channels):
    return b"P%d %d %d 255\n" % (6 if channels == 3 else 5, width, height) + bytes(samples)


def cjpeg(arguments, pnm_bytes):
    return subprocess.run(["cjpeg", *arguments], input=pnm_bytes, capture_output=True, check=True).stdout


def jpeg_segments(data):
    """[(marker, start, header_end, end)] for SOI, each marker segment and EOI. For SOS,
    `end` also covers the entropy-coded data (with its RSTn markers) that follows."""
    segments = [(0xD8, 0, 2, 2)]
    position = 2
    while position + 1 < len(data):
        marker = data[position + 1]
        if marker == 0xD9:
            segments.append((marker, position, position + 2, position + 2))
            break
        header_end = position + 2 + struct.unpack(">H", data[position + 2:position + 4])[0]
        end = header_end
        if marker == 0xDA:
            while end + 1 < len(data) and not (data[end] == 0xFF and data[end + 1] != 0
                                               and not 0xD0 <= data[end + 1] <= 0xD7):
                end += 1
        segments.append((marker, position, header_end, end))
        position = end
    return segments


def insert_after_app0(jpeg, segment):
    app0 = next(s for s in jpeg_segments(jpeg) if s[0] == 0xE0)
    return jpeg[:app0[3]] + segment + jpeg[app0[3]:]


def marker_segment(marker, payload):
    return bytes((0xFF, marker)) + struct.pack(">H", len(payload) + 2) + payload


def exif_app1(entries, big_endian, ifd_pointer=8, entry_count=None):
    """An APP1 Exif segment holding one IFD at TIFF offset 8. entries: [(tag, type, count,
    value bytes)]; values longer than 4 bytes go to a data area after the IFD. ifd_pointer
    and entry_count override what the header and IFD claim (for malformed files)."""
    order = ">" if big_endian else "<"
    data_offset = 8 + 2 + 12 * len(entries) + 4
    ifd, data_area = bytearray(), bytearray()
    for tag, kind, count, value in entries:
        if len(value) <= 4:
            field = value.ljust(4, b"\0")
        else:
            field = struct.pack(order + "I", data_offset + len(data_area))
            data_area += value
        ifd += struct.pack(order + "HHI", tag, kind, count) + field
    count_field = struct.pack(order + "H", len(entries) if entry_count is None else entry_count)
    tiff = ((b"MM\0*" if big_endian else b"II*\0") + struct.pack(order + "I", ifd_pointer)
            + count_field + ifd + struct.pack(order + "I", 0) + data_area)
    return marker_segment(0xE1, b"Exif\0\0" + tiff)


def exif_entries(orientation, big_endian, with_orientation=True):
    """IFD0 with Make, Orientation, X/YResolution, ResolutionUnit: the parser has to walk
    entries, follow offsets and read a SHORT from the left of its 4-byte field."""
    order = ">" if big_endian else "<"
    entries = [(0x010F, 2, 12, b"Thumbnailer\0")]
    if with_orientation:
        entries.append((0x0112, 3, 1, struct.pack(order + "H", orientation)))
    entries += [(0x011A, 5, 1, struct.pack(order + "II", 72, 1)),
                (0x011B, 5, 1, struct.pack(order + "II", 72, 1)),
                (0x0128, 3, 1, struct.pack(order + "H", 2))]
    return entries


def tiny_gray_jpeg(sof_marker, precision):
    """A hand-assembled 8×8 one-component JPEG whose samples are all mid-gray
    (2^(precision-1)): one-symbol Huffman tables, every DC difference 0.
    SOF0/SOF1: one block, DC category 0 then EOB, i.e. bits "00" (padded: 0x3F).
    SOF3 (lossless, predictor 1): 64 differences of category 0, i.e. 64 zero bits."""
    one_code = bytes([1] + [0] * 15)  # BITS: a single code of length 1
    parts = [b"\xff\xd8"]
    if sof_marker == 0xC3:
        parts.append(marker_segment(0xC3, struct.pack(">BHHB", precision, 8, 8, 1) + b"\x01\x11\x00"))
        parts.append(marker_segment(0xC4, b"\x00" + one_code + b"\x00"))
        parts.append(marker_segment(0xDA, b"\x01\x01\x00\x01\x00\x00"))  # Ss=1 predictor, Se=0, Al=0
        parts.append(bytes(8))
    else:
        parts.append(marker_segment(0xDB, b"\x00" + bytes([1] * 64)))
        parts.append(marker_segment(sof_marker, struct.pack(">BHHB", precision, 8, 8, 1) + b"\x01\x11\x00"))
        parts.append(marker_segment(0xC4, b"\x00" + one_code + b"\x00"))  # DC table 0: category 0
        parts.append(marker_segment(0xC4, b"\x10" + one_code + b"\x00"))  # AC table 0: EOB
        parts.append(marker_segment(0xDA, b"\x01\x01\x00\x00\x3f\x00"))
        parts.append(b"\x3f")
    parts.append(b"\xff\xd9")
    return b"".join(parts)


# ---------------------------------------------------------------------------------------
# GIF writer and reader: Pillow writes the ordinary GIFs; these write the structures it does
# not (offset or oversized first frames, a local palette on the first frame, no palette,
# indices beyond the palette, damage) and read back what any GIF's headers say
# ---------------------------------------------------------------------------------------

GIF_INTERLACE_PASSES = [(0, 8), (4, 8), (2, 4), (1, 2)]  # (first row, row step)


def lzw_encode(indices, min_code_size):
    """GIF's LZW: variable-width codes (LSB first), a clear code first and whenever the
    table reaches 4096 entries, the end code last."""
    clear, end = 1 << min_code_size, (1 << min_code_size) + 1
    out, state = bytearray(), [0, 0]  # pending bits, how many

    def emit(code, width):
        state[0] |= code << state[1]
        state[1] += width
        while state[1] >= 8:
            out.append(state[0] & 255)
            state[0] >>= 8
            state[1] -= 8

    def fresh():
        return {bytes([i]): i for i in range(clear)}, end + 1, min_code_size + 1

    table, next_code, width = fresh()
    emit(clear, width)
    prefix = b""
    for index in indices:
        assert index < clear
        grown = prefix + bytes([index])
        if grown in table:
            prefix = grown
            continue
        emit(table[prefix], width)
        if next_code == 4096:
            emit(clear, width)
            table, next_code, width = fresh()
        else:
            table[grown] = next_code
            next_code += 1
            if next_code > 1 << width and width < 12:
                width += 1
        prefix = bytes([index])
    if prefix:
        emit(table[prefix], width)
    emit(end, width)
    if state[1]:
        out.append(state[0] & 255)
    return bytes(out)


def gif_sub_blocks(data):
    return b"".join(bytes([len(data[i:i + 255])]) + data[i:i + 255] for i in range(0, len(data), 255)) + b"\0"


def gif_colour_table(palette):
    """(packed-field bits, table bytes): the table has 2^n ≥ len(palette) entries, padded with black."""
    bits = max(1, (len(palette) - 1).bit_length())
    padded = list(palette) + [(0, 0, 0)] * ((1 << bits) - len(palette))
    return 0x80 | (bits - 1), bytes(c for colour in padded for c in colour)


def gif_frame(left, top, width, height, indices, *, palette=None, transparent=None, interlaced=False,
              min_code_size=None, lzw=None):
    """One graphic: an optional Graphics Control Extension, the image descriptor, an optional
    local colour table and the LZW data (given, or encoded from `indices` in row order)."""
    out = b""
    if transparent is not None:
        out += b"\x21\xf9\x04" + bytes([0x01, 0, 0, transparent]) + b"\0"
    flags, table = gif_colour_table(palette) if palette is not None else (0, b"")
    if interlaced:
        flags |= 0x40
    out += b"\x2c" + struct.pack("<HHHHB", left, top, width, height, flags) + table
    if min_code_size is None:
        min_code_size = max(2, max(indices).bit_length())
    if lzw is None:
        rows = [indices[y * width:(y + 1) * width] for y in range(height)]
        order = [y for start, step in GIF_INTERLACE_PASSES for y in range(start, height, step)] if interlaced \
            else range(height)
        lzw = lzw_encode([i for y in order for i in rows[y]], min_code_size)
    return out + bytes([min_code_size]) + gif_sub_blocks(lzw)


def gif_file(width, height, frames, *, palette=None, version=b"89a"):
    """A GIF: header, logical screen (global colour table when `palette`), the frames, trailer."""
    flags, table = gif_colour_table(palette) if palette is not None else (0, b"")
    if palette is not None:
        flags |= 0x70  # colour resolution: 8 bits per primary
    return b"GIF" + version + struct.pack("<HHBBB", width, height, flags, 0, 0) + table + b"".join(frames) + b"\x3b"


def gif_structure(data):
    """What a GIF's headers say, read here without any GIF library: the screen, the global
    table's bits, and the first frame's geometry, table bits, transparency, interlacing and
    where its LZW data lies (offsets into data)."""
    width, height, flags = struct.unpack("<HHB", data[6:11])
    facts = {"screen": (width, height), "global_bits": (flags & 7) + 1 if flags & 0x80 else None}
    position = 13 + (3 << ((flags & 7) + 1) if flags & 0x80 else 0)
    transparent, frames = None, []
    while position < len(data) and data[position] != 0x3B:
        introducer = data[position]
        if introducer == 0x21:
            label, position = data[position + 1], position + 2
            if label == 0xF9 and data[position] == 4 and not frames:
                transparent = data[position + 4] if data[position + 1] & 1 else None
            while data[position]:
                position += data[position] + 1
            position += 1
        else:
            assert introducer == 0x2C, "unknown block 0x%02X" % introducer
            left, top, w, h, frame_flags = struct.unpack("<HHHHB", data[position + 1:position + 10])
            position += 10 + (3 << ((frame_flags & 7) + 1) if frame_flags & 0x80 else 0)
            lzw_start = position
            position += 1
            while position < len(data) and data[position]:
                position += data[position] + 1
            position += 1
            frames.append({"box": (left, top, w, h), "local_bits": (frame_flags & 7) + 1 if frame_flags & 0x80 else None,
                           "interlaced": bool(frame_flags & 0x40), "lzw": (lzw_start, position)})
    first = frames[0] if frames else None
    facts.update(frames=len(frames), first=first, transparent=transparent)
    return facts


def gif_header_facts(data):
    """ct_image_info for a GIF, from gif_structure: alpha when the first frame has a transparent
    index or leaves part of the screen uncovered; bit depth = bits of the first frame's palette."""
    facts = gif_structure(data)
    (width, height), first = facts["screen"], facts["first"]
    left, top, w, h = first["box"]
    covers = left == 0 and top == 0 and w >= width and h >= height
    has_alpha = facts["transparent"] is not None or not covers
    bits = first["local_bits"] or facts["global_bits"] or 8
    return header_facts(width, height, components=4 if has_alpha else 3, bit_depth=bits, has_alpha=has_alpha,
                        progressive=first["interlaced"])


# ---------------------------------------------------------------------------------------
# Pixel formulas (documented in the README; keep both in step)
# ---------------------------------------------------------------------------------------

MATRIX_W, MATRIX_H = 67, 43


def sample(x, y, bits):
    """Gray samples and palette indices at `bits` bits: S_d(x, y) = (x + 3y) mod 2^d."""
    return (x + 3 * y) % (1 << bits)


def alpha(x, y):
    """A(x, y) = 255 - ((5x + 3y) mod 192): 64..255, never 0, so colour is always defined."""
    return 255 - (5 * x + 3 * y) % 192


def rgb(x, y):
    return ((4 * x + y) & 255, (x + 4 * y) & 255, (255 - 2 * x - 2 * y) & 255)


def palette_entry(i):
    return ((73 * i + 16) & 255, (151 * i + 64) & 255, (199 * i + 32) & 255)


def in_key_block(x, y):
    """The tRNS-keyed images paint these 8×8 blocks with the key colour."""
    return ((x >> 3) + (y >> 3)) % 3 == 0


GRAY_KEY = 250          # never produced by S_8 at 67×43 (max 192)
RGB_KEY = (255, 0, 255)  # never produced by rgb() at 67×43 (asserted below)
PALETTE_ALPHA = bytes(2 * i for i in range(128))  # tRNS: index i < 128 has alpha 2i


def matrix_pixel(colour_type, depth, trns, x, y):
    """(samples as stored at `depth`, RGBA8 a correct decoder produces)."""
    wide = 257 if depth == 16 else 1  # 16-bit samples are the 8-bit values × 257
    if colour_type == 0:
        value = GRAY_KEY if trns and in_key_block(x, y) else sample(x, y, min(depth, 8))
        assert not (trns and not in_key_block(x, y) and value == GRAY_KEY)
        gray = value * 255 // ((1 << depth) - 1) if depth < 8 else value
        return (value * wide,), (gray, gray, gray, 0 if trns and value == GRAY_KEY else 255)
    if colour_type == 4:
        value, a = sample(x, y, 8), alpha(x, y)
        return (value * wide, a * wide), (value, value, value, a)
    if colour_type == 2:
        colour = RGB_KEY if trns and in_key_block(x, y) else rgb(x, y)
        assert not (trns and not in_key_block(x, y) and colour == RGB_KEY)
        return tuple(c * wide for c in colour), colour + (0 if trns and colour == RGB_KEY else 255,)
    if colour_type == 6:
        colour, a = rgb(x, y), alpha(x, y)
        return tuple(c * wide for c in colour + (a,)), colour + (a,)
    index = sample(x, y, depth)
    return (index,), palette_entry(index) + (PALETTE_ALPHA[index] if trns and index < 128 else 255,)


def gradient(width, height):
    """The smooth JPEG source: R across, G down, B falls along the diagonal."""
    pixels = bytearray()
    for y in range(height):
        g = y * 255 // max(height - 1, 1)
        for x in range(width):
            r = x * 255 // max(width - 1, 1)
            pixels += bytes((r, g, 255 - (r + g) // 2))
    return bytes(pixels)


def gradient_gray(width, height):
    rgb_pixels = gradient(width, height)
    return bytes((rgb_pixels[i] + rgb_pixels[i + 1]) // 2 for i in range(0, len(rgb_pixels), 3))


# ---------------------------------------------------------------------------------------
# Checks run on the written bytes (assertions; the returned text goes to the README)
# ---------------------------------------------------------------------------------------

def pillow_open(data):
    image = Image.open(io.BytesIO(data))
    image.load()
    return image


def check_png_pixels(expected_rgba, raw16=None):
    """Pillow must decode to exactly expected_rgba (list of RGBA tuples). For 16-bit gray,
    which Pillow keeps as 16-bit mode I, the raw samples raw16 are compared instead."""
    def check(data):
        image = pillow_open(data)
        if raw16 is not None:
            assert image.mode == "I" and list(image.getdata()) == raw16, "16-bit gray samples differ"
            return "Pillow 16-bit samples = formula"
        assert list(image.convert("RGBA").getdata()) == expected_rgba, "pixels differ from the formula"
        return "Pillow pixels = formula"
    return check


def check_twin(corpus, twin_name, pillow=True, libpng=True):
    """Pillow and pngtopnm (libpng), each unless switched off, must decode this file exactly
    like its twin."""
    def check(data):
        twin = (corpus.directory / twin_name).read_bytes()
        notes = []
        if pillow:
            a, b = pillow_open(data), pillow_open(twin)
            assert a.mode == b.mode and a.tobytes() == b.tobytes(), "Pillow: differs from " + twin_name
            notes.append("Pillow: identical to " + twin_name)
        if libpng and shutil.which("pngtopnm"):
            for flags in ([], ["-alpha"]):
                ours = run_tool(["pngtopnm", *flags], data)
                theirs = run_tool(["pngtopnm", *flags], twin)
                assert ours.returncode == 0 and ours.stdout == theirs.stdout, "pngtopnm: differs from " + twin_name
            notes.append("pngtopnm (libpng): colour and alpha identical to " + twin_name)
        return "; ".join(notes)
    return check


def max_delta(a, b):
    return max(abs(p - q) for p, q in zip(a, b))


def check_jpeg_close(expected, mode, tolerance):
    """Pillow's full-size decode must be within `tolerance` of the formula everywhere."""
    def check(data):
        delta = max_delta(pillow_open(data).convert(mode).tobytes(), expected)
        assert delta <= tolerance, "max |delta| %d > %d" % (delta, tolerance)
        return "max |Δ| vs formula: %d" % delta
    return check


def check_mid_gray(analog_sof):
    """The hand-made file cannot be decoded by any tool here (12-bit/lossless); decode the
    same construction with 8-bit precision and SOF `analog_sof` instead."""
    def check(data):
        if analog_sof is None:
            return "no decoder here supports this process; structure by hand (see README)"
        analog = tiny_gray_jpeg(analog_sof, 8)
        decoded = run_tool(["djpeg", "-pnm"], analog)
        assert decoded.returncode == 0 and decoded.stdout.endswith(bytes([128]) * 64), "8-bit analog is not mid-gray"
        assert set(pillow_open(analog).tobytes()) == {128}
        return "8-bit twin of this construction decodes to 8×8 of 128 (djpeg, Pillow)"
    return check


# ---------------------------------------------------------------------------------------
# Families
# ---------------------------------------------------------------------------------------

def make_reference(corpus):
    corpus.section("Reference patterns", "Images whose area-filtered downscale is known exactly (formulas above).")

    width, height = 256, 192
    blocks = [[(8 * (x >> 3) + 4, 10 * (y >> 3) + 5, 255 - 4 * ((x >> 3) + (y >> 3))) for x in range(width)]
              for y in range(height)]
    flat = [p + (255,) for row in blocks for p in row]
    corpus.add("ref-blocks-256x192.png", encode_png(width, height, 2, 8, blocks),
               what="PNG RGB 8-bit 256×192: 32×24 solid 8×8 blocks of distinct colours",
               exercises="area filter at integer ratios: box 32×24 gives exactly the block colours",
               expect=DECODES, header=png_header_facts(width, height, 2, 8), check=check_png_pixels(flat))
    block_bytes = bytes(c for row in blocks for p in row for c in p)

    def check_dct_eighth(data):
        image = Image.open(io.BytesIO(data))
        image.draft("RGB", (32, 24))  # libjpeg DCT scaling 1/8: one pixel per block
        image.load()
        assert image.size == (32, 24)
        eighth = bytes(c for by in range(24) for bx in range(32) for c in blocks[by * 8][bx * 8])
        full = check_jpeg_close(block_bytes, "RGB", 6)(data)
        return "%s; at DCT scale 1/8 max |Δ| vs block colours: %d" % (full, max_delta(image.tobytes(), eighth))

    corpus.add("ref-blocks-256x192-q100-444.jpg",
               cjpeg(["-quality", "100", "-sample", "1x1"], pnm(width, height, block_bytes, 3)),
               what="JPEG baseline 4:4:4 q100 of ref-blocks-256x192.png (blocks aligned with the 8×8 DCT grid)",
               exercises="JPEG DCT scaling: at 1/8 each block is one DC value, so box 32×24 gives the block colours ±2",
               expect=DECODES, header=header_facts(width, height, components=3), check=check_dct_eighth)

    ramp = [[(x,) for x in range(256)] for _ in range(16)]
    corpus.add("ref-gray-ramp-256x16.png", encode_png(256, 16, 0, 8, ramp),
               what="PNG gray 8-bit 256×16: value = x",
               exercises="horizontal averaging: factor f gives column k = f·k + (f−1)/2",
               expect=DECODES, header=png_header_facts(256, 16, 0, 8),
               check=check_png_pixels([(x, x, x, 255) for _ in range(16) for x in range(256)]))

    checker = [[(255 if (x + y) & 1 else 0,) for x in range(256)] for y in range(256)]
    corpus.add("ref-checker-1px-256x256.png", encode_png(256, 256, 0, 8, checker),
               what="PNG gray 8-bit 256×256: 1-px checkerboard, black at (0,0)",
               exercises="area filter vs point sampling: any even factor gives 127.5 (127 or 128), never 0/255",
               expect=DECODES, header=png_header_facts(256, 256, 0, 8),
               check=check_png_pixels([(v[0],) * 3 + (255,) for row in checker for v in row]))

    columns = [[(255, 0, 0, 255) if x % 2 == 0 else (0, 255, 0, 0) for x in range(128)] for _ in range(64)]
    corpus.add("ref-premultiply-red-clear-green-128x64.png", encode_png(128, 64, 6, 8, columns),
               what="PNG RGBA 8-bit 128×64: even columns opaque red (255,0,0,255), odd columns transparent green (0,255,0,0)",
               exercises="premultiplied filtering: 2× gives (255,0,0,127/128); a straight-alpha average gives brownish (128,128,0,128)",
               expect=DECODES, header=png_header_facts(128, 64, 6, 8),
               check=check_png_pixels([p for row in columns for p in row]))


MATRIX = [  # (slug, colour type, bit depth, tRNS)
    ("gray-1bit", 0, 1, False), ("gray-2bit", 0, 2, False), ("gray-4bit", 0, 4, False),
    ("gray-8bit", 0, 8, False), ("gray-16bit", 0, 16, False),
    ("gray-alpha-8bit", 4, 8, False), ("gray-alpha-16bit", 4, 16, False),
    ("rgb-8bit", 2, 8, False), ("rgb-16bit", 2, 16, False),
    ("rgba-8bit", 6, 8, False), ("rgba-16bit", 6, 16, False),
    ("palette-1bit", 3, 1, False), ("palette-2bit", 3, 2, False), ("palette-4bit", 3, 4, False),
    ("palette-8bit", 3, 8, False),
    ("palette-8bit-trns", 3, 8, True), ("gray-8bit-trns", 0, 8, True), ("rgb-8bit-trns", 2, 8, True),
]


def matrix_exercises(colour_type, depth, trns):
    parts = {0: "gray → RGBA", 2: "RGB → RGBA (add opaque alpha)", 3: "palette → RGB",
             4: "gray+alpha → RGBA", 6: "RGBA passthrough"}[colour_type]
    if depth < 8:
        parts += "; sub-byte unpacking" + ("" if colour_type == 3 else " and scaling to 8 bits")
    if depth == 16:
        parts += "; 16→8 reduction (strip and scale agree: samples are v·257)"
    if trns:
        parts += "; tRNS → alpha"
    if colour_type in (4, 6) or trns:
        parts += "; premultiplied filtering"
    return parts


def add_png_pair(corpus, slug, colour_type, depth, trns, width, height):
    """A non-interlaced PNG and its Adam7 twin with identical pixels."""
    pixels = [[matrix_pixel(colour_type, depth, trns, x, y) for x in range(width)] for y in range(height)]
    stored = [[p[0] for p in row] for row in pixels]
    expected = [p[1] for row in pixels for p in row]
    palette = [palette_entry(i) for i in range(1 << depth)] if colour_type == 3 else None
    if not trns:
        trns_chunk = None
    elif colour_type == 3:
        trns_chunk = PALETTE_ALPHA
    elif colour_type == 0:
        trns_chunk = struct.pack(">H", GRAY_KEY)
    else:
        trns_chunk = struct.pack(">HHH", *RGB_KEY)
    raw16 = [p[0] for row in stored for p in row] if (colour_type, depth) == (0, 16) else None
    kind = "PNG %s %d-bit%s %d×%d" % (COLOUR_TYPE_NAMES[colour_type], depth, " + tRNS" if trns else "", width, height)
    name = "png-%s-%dx%d.png" % (slug, width, height)
    twin = name.replace(".png", "-adam7.png")
    for interlace, file_name in ((False, name), (True, twin)):
        corpus.add(file_name,
                   encode_png(width, height, colour_type, depth, stored, palette=palette, trns=trns_chunk,
                              interlace=interlace),
                   what=kind + (", Adam7" if interlace else "") + ", filters 0–4 in rotation",
                   exercises=("Adam7 deinterlacing (sparse resampler); output must equal %s exactly" % name
                              if interlace else matrix_exercises(colour_type, depth, trns)),
                   expect=DECODES,
                   header=png_header_facts(width, height, colour_type, depth, interlace=interlace, trns=trns),
                   check=check_twin(corpus, name) if interlace else check_png_pixels(expected, raw16),
                   same_pixels_as=name if interlace else None)


def make_png_matrix(corpus):
    corpus.section("PNG colour types and bit depths",
                   "Every colour type/bit depth, each with an Adam7 twin holding the same pixels. "
                   "Content: the matrix formulas above.")
    for slug, colour_type, depth, trns in MATRIX:
        add_png_pair(corpus, slug, colour_type, depth, trns, MATRIX_W, MATRIX_H)
    # Tiny Adam7 edge cases: 1×1 has only pass 1; 5×3 has an empty pass 3.
    add_png_pair(corpus, "rgba-8bit", 6, 8, False, 1, 1)
    add_png_pair(corpus, "rgb-8bit", 2, 8, False, 5, 3)


def make_png_special(corpus):
    corpus.section("PNG 16-bit rounding", "")
    values = [256 * x + 255 for x in range(256)]
    rows = [[(v,) for v in values] for _ in range(8)]

    def check(data):
        image = pillow_open(data)
        assert image.mode == "I" and list(image.getdata()) == values * 8
        scaled = [(v * 255 + 32767) // 65535 for v in values]  # == libpng png_do_scale_16_to_8
        assert [x for x in range(256) if scaled[x] != x] == list(range(127))
        return "Pillow 16-bit samples = formula"

    corpus.add("png-gray-16bit-scale-vs-strip-256x8.png", encode_png(256, 8, 0, 16, rows),
               what="PNG gray 16-bit 256×8: column x holds 256·x + 255 (0x00FF … 0xFFFF)",
               exercises="16→8 reduction: png_set_strip_16 gives x, png_set_scale_16 gives x+1 for x ≤ 126",
               expect=DECODES, header=png_header_facts(256, 8, 0, 16), check=check)


def make_png_errors(corpus):
    corpus.section("PNG damage and hostile headers",
                   "Damaged copies of png-rgb-8bit-67x43.png (unless stated) and size attacks.")
    stored = [[matrix_pixel(2, 8, False, x, y)[0] for x in range(MATRIX_W)] for y in range(MATRIX_H)]
    chunks = png_chunk_list(MATRIX_W, MATRIX_H, 2, 8, stored)
    assert [kind for kind, _ in chunks] == [b"IHDR", b"IDAT", b"IEND"]
    good = png_header_facts(MATRIX_W, MATRIX_H, 2, 8)
    base = "png-rgb-8bit-67x43.png"

    corpus.add("png-error-bad-crc-ihdr.png", assemble_png(chunks, bad_crc={b"IHDR"}),
               what="IHDR CRC inverted", exercises="CRC check on a critical chunk before anything is trusted",
               expect=CORRUPT)
    corpus.add("png-error-bad-crc-idat.png", assemble_png(chunks, bad_crc={b"IDAT"}),
               what="IDAT CRC inverted (data intact)", exercises="critical-chunk CRC error must be fatal",
               expect=CORRUPT, header=good)
    with_text = chunks[:1] + [(b"tEXt", b"Comment\0this chunk has a bad CRC")] + chunks[1:]
    corpus.add("png-bad-crc-text-ancillary.png", assemble_png(with_text, bad_crc={b"tEXt"}),
               what="extra tEXt chunk after IHDR with an inverted CRC",
               exercises="ancillary CRC error: libpng warns and discards the chunk; must decode like " + base,
               expect=DECODES, header=good, check=check_twin(corpus, base, pillow=False), same_pixels_as=base)

    whole = assemble_png(chunks)
    idat_data = len(PNG_SIGNATURE) + 12 + 13 + 8  # signature, IHDR chunk, IDAT length+type
    corpus.add("png-error-truncated-mid-idat.png", whole[:idat_data + len(chunks[1][1]) // 2],
               what="file cut in the middle of the IDAT data",
               exercises="EOF inside image data (read callback runs dry)", expect=TRUNCATED, header=good)
    corpus.add("png-error-missing-iend.png", assemble_png(chunks[:-1]),
               what="complete IHDR+IDAT, IEND missing",
               exercises="all image data present, but the file stops where IEND belongs: a download cut "
                         "there is still cut, so the decoder reports it (as libpng's png_read_end and the "
                         "corpus's pillow/truncated_end_chunk.png do) rather than cache it",
               expect=TRUNCATED, header=good)
    corpus.add("png-error-no-idat.png", assemble_png([chunks[0], chunks[-1]]),
               what="IHDR then IEND, no IDAT",
               exercises="libpng: IEND out of place before any image data (already in png_read_info)",
               expect=CORRUPT)
    bad_zlib = b"\x78\xda\x07" + bytes(range(40))  # valid zlib header; first block has BTYPE=11 (reserved)
    corpus.add("png-error-bad-zlib.png", assemble_png([chunks[0], (b"IDAT", bad_zlib), chunks[-1]]),
               what="IDAT (correct CRC) with a valid zlib header and an invalid deflate block type",
               exercises="inflate error (\"invalid block type\") must become corrupt", expect=CORRUPT, header=good)

    side = 20000
    bomb_stream = zlib.compress(bytes(side * (1 + side // 8)), 9)  # filter byte 0 + 2500 zero bytes per row
    bomb = [(b"IHDR", struct.pack(">IIBBBBB", side, side, 1, 0, 0, 0, 0))]
    bomb += [(b"IDAT", bomb_stream[i:i + IDAT_SIZE]) for i in range(0, len(bomb_stream), IDAT_SIZE)]
    bomb.append((b"IEND", b""))
    corpus.add("png-bomb-20000x20000.png", assemble_png(bomb),
               what="PNG gray 1-bit 20000×20000 (400 MP); IDAT is the complete, valid deflate stream of all rows "
                    "(zeros, i.e. black): 50 MB inflated, 1.6 GB as RGBA",
               exercises="pixel-count limit from IHDR before decoding (default max_pixels 100 MP). With limits "
                         "raised it streams to an all-black thumbnail in bounded memory",
               expect=TOO_LARGE, header=png_header_facts(side, side, 0, 1))
    corpus.add("png-error-header-only-60000x60000.png",
               PNG_SIGNATURE + png_chunk(b"IHDR", struct.pack(">IIBBBBB", 60000, 60000, 8, 6, 0, 0, 0)),
               what="signature + IHDR claiming RGBA 8-bit 60000×60000, then end of file",
               exercises="size limit must fire on IHDR (png_set_user_limits or own check) before libpng looks "
                         "for more chunks; a late check would report truncated instead",
               expect=TOO_LARGE, header=png_header_facts(60000, 60000, 6, 8))


JPEG_W, JPEG_H = 256, 192


def make_jpeg_variants(corpus):
    corpus.section("JPEG encodings", "Content: the JPEG gradient formula above (lossy: see max |Δ|).")
    colour = gradient(JPEG_W, JPEG_H)
    source = pnm(JPEG_W, JPEG_H, colour, 3)
    gray = gradient_gray(JPEG_W, JPEG_H)
    produced = {}
    variants = [  # (name, cjpeg arguments, what, exercises, progressive, tolerance)
        ("jpeg-baseline-420-gradient-256x192.jpg", ["-sample", "2x2"], "baseline, 4:2:0 (2×2 chroma)",
         "fancy upsampling of 2×2 chroma; DCT scaling", False, 12),
        ("jpeg-baseline-422-gradient-256x192.jpg", ["-sample", "2x1"], "baseline, 4:2:2 (2×1 chroma)",
         "h2v1 chroma upsampling", False, 12),
        ("jpeg-baseline-444-gradient-256x192.jpg", ["-sample", "1x1"], "baseline, 4:4:4",
         "no chroma upsampling", False, 8),
        ("jpeg-progressive-420-gradient-256x192.jpg", ["-sample", "2x2", "-progressive"],
         "progressive (libjpeg standard scan script), 4:2:0",
         "multi-scan decoding with whole-image coefficient buffer; scan skipping at reduced scale", True, 12),
        ("jpeg-progressive-444-gradient-256x192.jpg", ["-sample", "1x1", "-progressive"],
         "progressive (standard script), 4:4:4", "progressive with three full-size components", True, 8),
        ("jpeg-restart-interval-gradient-256x192.jpg", ["-restart", "1"],
         "baseline 4:2:0 with DRI: RSTn marker after every MCU row (16 MCUs)",
         "restart marker handling", False, 12),
        ("jpeg-arithmetic-gradient-256x192.jpg", ["-arithmetic"], "baseline-style sequential, arithmetic coding (SOF9)",
         "arithmetic decoding (libjpeg-turbo builds it by default)", False, 12),
        ("jpeg-optimized-huffman-gradient-256x192.jpg", ["-optimize"], "baseline 4:2:0 with optimized Huffman tables",
         "non-standard DHT tables", False, 12),
    ]
    for name, arguments, what, exercises, progressive, tolerance in variants:
        produced[name] = corpus.add(
            name, cjpeg(["-quality", "90", *arguments], source),
            what="JPEG 256×192 q90, " + what, exercises=exercises, expect=DECODES,
            header=header_facts(JPEG_W, JPEG_H, components=3, progressive=progressive),
            check=check_jpeg_close(colour, "RGB", tolerance))
    for progressive in (False, True):
        kind = "progressive" if progressive else "baseline"
        corpus.add("jpeg-gray-%s-256x192.jpg" % kind,
                   cjpeg(["-quality", "90"] + (["-progressive"] if progressive else []), pnm(JPEG_W, JPEG_H, gray, 1)),
                   what="JPEG grayscale (1 component) 256×192 q90, %s; L = ⌊(R+G)/2⌋ of the gradient" % kind,
                   exercises="gray JPEG → RGBA expansion" + (", progressive" if progressive else ""),
                   expect=DECODES, header=header_facts(JPEG_W, JPEG_H, components=1, progressive=progressive),
                   check=check_jpeg_close(gray, "L", 8))
    for width, height in ((1, 1), (17, 13), (333, 1)):
        pixels = gradient(width, height)
        produced["%dx%d" % (width, height)] = corpus.add(
            "jpeg-odd-%dx%d.jpg" % (width, height),
            cjpeg(["-quality", "90"], pnm(width, height, pixels, 3)),
            what="JPEG baseline 4:2:0 q90 %d×%d gradient" % (width, height),
            exercises="partial MCUs, dimensions not multiples of 16; output clamps to ≥ 1 px",
            expect=DECODES, header=header_facts(width, height, components=3),
            check=check_jpeg_close(pixels, "RGB", 40))
    strip = gradient(9000, 5)
    corpus.add("jpeg-strip-9000x5.jpg", cjpeg(["-quality", "90"], pnm(9000, 5, strip, 3)),
               what="JPEG baseline 4:2:0 q90 9000×5 gradient (G steps down the 5 rows)",
               exercises="a thin strip: the DCT scale keeps ≥ 8 px a side, so the block padding "
                         "below the 5 rows does not outweigh them",
               expect=DECODES, header=header_facts(9000, 5, components=3),
               check=check_jpeg_close(strip, "RGB", 40))
    make_cmyk(corpus)
    return produced


CMYK_BLOCKS = [  # (ink C, M, Y, K), expected RGB; row-major 4×2 blocks of 32×32
    ((255, 0, 0, 0), (0, 255, 255)), ((0, 255, 0, 0), (255, 0, 255)),
    ((0, 0, 255, 0), (255, 255, 0)), ((0, 0, 0, 255), (0, 0, 0)),
    ((0, 0, 0, 0), (255, 255, 255)), ((255, 255, 0, 0), (0, 0, 255)),
    ((0, 0, 0, 128), (127, 127, 127)), ((255, 0, 255, 0), (0, 255, 0)),
]


def make_cmyk(corpus):
    image = Image.new("CMYK", (128, 64))
    for index, (ink, _) in enumerate(CMYK_BLOCKS):
        x, y = (index % 4) * 32, (index // 4) * 32
        image.paste(ink, (x, y, x + 32, y + 32))
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=100, subsampling=0)

    def check(data):
        decoded = pillow_open(data)
        assert decoded.mode == "CMYK"
        worst = max_delta(decoded.tobytes(), image.tobytes())
        assert worst <= 4
        djpeg = parse_pnm(run_tool(["djpeg", "-pnm"], data).stdout)
        expected = bytes(c for y in range(64) for x in range(128)
                         for c in CMYK_BLOCKS[(y // 32) * 4 + x // 32][1])
        return "Pillow inks max |Δ| %d; djpeg RGB max |Δ| vs expected %d" % (worst, max_delta(djpeg, expected))

    corpus.add("jpeg-cmyk-adobe-blocks-128x64.jpg", buffer.getvalue(),
               what="JPEG CMYK (4 components, Adobe APP14, inverted samples as Photoshop writes), 4:4:4 q100, "
                    "8 blocks of 32×32 (table above)",
               exercises="CMYK → RGB conversion of Adobe-inverted data: R = C'·K'/255 with stored C' = 255 − C",
               expect=DECODES, header=header_facts(128, 64, components=4), check=check)


# ---------------------------------------------------------------------------------------
# Progressive JPEG fixtures (photo content)
# ---------------------------------------------------------------------------------------

PROGRESSIVE_PHOTO = "aitzgorri"  # orange trees, green grass, grey rock and sky: chroma varies everywhere
PROGRESSIVE_QUALITY = "80"
PROGRESSIVE_CHANGES = "scaled to cover, centre-cropped and re-encoded"
_photo_originals = {}


def photo_crop(key, size):
    """The photo scaled (Lanczos) to the smallest size that covers `size`, its aspect ratio
    kept, then cropped to `size` around the centre."""
    if key not in _photo_originals:
        _photo_originals[key] = Image.open(BACKGROUNDS / PHOTOS[key][0]).convert("RGB")
    original = _photo_originals[key]
    width, height = size
    scale = max(width / original.width, height / original.height)
    scaled = (max(width, round(original.width * scale)), max(height, round(original.height * scale)))
    x, y = (scaled[0] - width) // 2, (scaled[1] - height) // 2
    return original.resize(scaled, Image.LANCZOS).crop((x, y, x + width, y + height))


def insert_after_app_segments(jpeg, segment):
    """`segment` placed after SOI and the APPn segments that follow it."""
    position = 2
    for marker, _, _, end in jpeg_segments(jpeg)[1:]:
        if not 0xE0 <= marker <= 0xEF:
            break
        position = end
    return jpeg[:position] + segment + jpeg[position:]


def jpegtran(arguments, jpeg):
    return subprocess.run(["jpegtran", *arguments], input=jpeg, capture_output=True, check=True).stdout


def jpeg_structure(data):
    """What the headers and scans of a JPEG are: {"sof": marker, "components": [(id, h, v, tq)],
    "scans": [{"components": [ids], "ss", "se", "ah", "al", "restarts", "restart_interval"}],
    "tables_between_scans": [marker names of DQT/DHT/DRI segments after the first SOS]}."""
    result = {"sof": None, "components": [], "scans": [], "tables_between_scans": []}
    interval = 0
    for marker, start, header_end, end in jpeg_segments(data):
        payload = data[start + 4:header_end]
        if marker in (0xC0, 0xC1, 0xC2):
            result["sof"] = marker
            result["components"] = [(payload[6 + 3 * i], payload[7 + 3 * i] >> 4, payload[7 + 3 * i] & 15,
                                     payload[8 + 3 * i]) for i in range(payload[5])]
        elif marker == 0xDD:
            interval = struct.unpack(">H", payload[:2])[0]
        elif marker == 0xDA:
            count = payload[0]
            ss, se, approximation = payload[1 + 2 * count:4 + 2 * count]
            entropy = data[header_end:end]
            restarts = sum(1 for i in range(len(entropy) - 1)
                           if entropy[i] == 0xFF and 0xD0 <= entropy[i + 1] <= 0xD7)
            result["scans"].append({"components": [payload[1 + 2 * i] for i in range(count)], "ss": ss, "se": se,
                                    "ah": approximation >> 4, "al": approximation & 15, "restarts": restarts,
                                    "restart_interval": interval})
        if marker in (0xC4, 0xDB, 0xDD) and result["scans"]:
            result["tables_between_scans"].append({0xC4: "DHT", 0xDB: "DQT", 0xDD: "DRI"}[marker])
    return result


def scan_script_text(structure):
    """The scans in jpegtran -scans notation, for the README: "0,1,2: 0-0 Al1; …" with
    component indexes from 0 and Ah→Al when a scan refines."""
    ids = [component[0] for component in structure["components"]]
    parts = []
    for scan in structure["scans"]:
        approximation = "%d→%d" % (scan["ah"], scan["al"]) if scan["ah"] else "Al%d" % scan["al"]
        parts.append("%s: %d-%d %s" % (",".join(str(ids.index(c)) for c in scan["components"]),
                                       scan["ss"], scan["se"], approximation))
    return "; ".join(parts)


def sampling_text(structure):
    return ",".join("%dx%d" % (h, v) for _, h, v, _ in structure["components"])


def djpeg_pixels(data, scale=None):
    """djpeg's output pixels (RGB or gray), asserting it decoded without a message."""
    command = ["djpeg", "-pnm"] + (["-scale", scale] if scale else [])
    result = run_tool(command, data)
    assert result.returncode == 0 and not result.stderr, "djpeg %s: %r" % (scale or "", result.stderr)
    return parse_pnm(result.stdout)


def check_progressive(structure_test, source=None, mode="RGB", twin=None, corpus=None):
    """The file is SOF2 and passes structure_test(structure); djpeg decodes it at full size and
    at 1/8 without a message. With `source` (the encoded pixels) the mean and largest
    difference of Pillow's decode are reported (mean asserted ≤ 12). With `twin` (a corpus
    file with the same coefficients) Pillow and djpeg at 1, 1/2, 1/4 and 1/8 must give
    exactly the twin's pixels."""
    def check(data):
        structure = jpeg_structure(data)
        assert structure["sof"] == 0xC2, "not SOF2"
        structure_test(structure)
        notes = []
        full = djpeg_pixels(data)
        eighth = djpeg_pixels(data, "1/8")
        if source is not None:
            decoded = pillow_open(data).convert(mode).tobytes()
            assert len(decoded) == len(source)
            mean = sum(abs(p - q) for p, q in zip(decoded, source)) / len(source)
            assert mean <= 12, "mean |delta| %.2f vs the source" % mean
            notes.append("Pillow vs source: mean |Δ| %.2f, max |Δ| %d" % (mean, max_delta(decoded, source)))
        if twin is not None:
            other = (corpus.directory / twin).read_bytes()
            assert pillow_open(data).tobytes() == pillow_open(other).tobytes(), "Pillow: differs from " + twin
            assert full == djpeg_pixels(other) and eighth == djpeg_pixels(other, "1/8"), "djpeg differs from " + twin
            for scale in ("1/2", "1/4"):
                assert djpeg_pixels(data, scale) == djpeg_pixels(other, scale), "djpeg %s differs" % scale
            notes.append("Pillow and djpeg (1, 1/2, 1/4, 1/8): identical to " + twin)
        notes.append("djpeg -scale 1/8: ok")
        notes.append("scans: " + scan_script_text(structure))
        return "; ".join(notes)
    return check


def standard_script_test(components, sampling):
    def test(structure):
        assert sampling_text(structure) == sampling, "sampling %s, not %s" % (sampling_text(structure), sampling)
        assert len(structure["components"]) == components
    return test


# jpegtran scan scripts (component indexes 0 = Y, 1 = Cb, 2 = Cr; "Ss-Se, Ah, Al")
SCANS_DC_AL2 = """
0,1,2: 0-0, 0, 2;
0: 1-5, 0, 2;
2: 1-63, 0, 1;
1: 1-63, 0, 1;
0,1,2: 0-0, 2, 1;
0: 6-63, 0, 2;
0: 1-63, 2, 1;
2: 1-63, 1, 0;
1: 1-63, 1, 0;
0,1,2: 0-0, 1, 0;
0: 1-63, 1, 0;
"""
SCANS_DC_NONINTERLEAVED = """
0: 0-0, 0, 1;
0: 1-5, 0, 2;
2: 0-0, 0, 1;
1: 0-0, 0, 1;
2: 1-63, 0, 1;
1: 1-63, 0, 1;
0: 6-63, 0, 2;
1: 0-0, 1, 0;
0: 1-63, 2, 1;
0: 0-0, 1, 0;
2: 1-63, 1, 0;
2: 0-0, 1, 0;
1: 1-63, 1, 0;
0: 1-63, 1, 0;
"""
SCANS_DC_PARTLY_INTERLEAVED = """
0,2: 0-0, 0, 1;
1: 0-0, 0, 0;
0: 1-5, 0, 2;
2: 1-63, 0, 1;
1: 1-63, 0, 0;
0: 6-63, 0, 2;
0: 1-63, 2, 1;
0,2: 0-0, 1, 0;
2: 1-63, 1, 0;
0: 1-63, 1, 0;
"""
SCANS_LUMA_FIRST = """
0: 0-0, 0, 1;
0: 1-5, 0, 2;
0: 6-63, 0, 2;
0: 1-63, 2, 1;
0: 0-0, 1, 0;
0: 1-63, 1, 0;
1,2: 0-0, 0, 1;
2: 1-63, 0, 1;
1: 1-63, 0, 1;
1,2: 0-0, 1, 0;
2: 1-63, 1, 0;
1: 1-63, 1, 0;
"""


def jpegtran_scans(script, jpeg, arguments=()):
    """jpegtran with a scan script (written to a temporary file: -scans reads a file)."""
    with tempfile.NamedTemporaryFile("w", suffix=".txt") as file:
        file.write(script)
        file.flush()
        return jpegtran(["-scans", file.name, *arguments], jpeg)


def one_quant_slot_redefined(jpeg):
    """Every component made to use quantisation slot 0, with slot 0 holding the luma table
    until the luma scans are over and the chroma table from then on: the chroma table's DQT
    moves from the header to just after the last scan of component 0 (whose scans must all
    come first), renamed slot 0. The coefficients and the tables each component is
    dequantised with are unchanged, so the pixels are too (libjpeg keeps each component's
    table from its first scan; T.81 allows redefining a slot once the scans of the
    components that use it are complete)."""
    segments = jpeg_segments(jpeg)
    sof = next(s for s in segments if s[0] == 0xC2)
    luma_id = jpeg[sof[1] + 10]
    dqt = [s for s in segments if s[0] == 0xDB]
    tables = {}
    for _, start, header_end, _ in dqt:
        position = start + 4
        while position < header_end:
            size = 1 + 64 * (1 + (jpeg[position] >> 4))
            tables[jpeg[position] & 15] = jpeg[position:position + size]
            position += size
    assert all(a[3] == b[1] for a, b in zip(dqt, dqt[1:])), "DQT segments not adjacent"
    assert sorted(tables) == [0, 1] and tables[0][0] >> 4 == 0 and tables[1][0] >> 4 == 0
    scans = [s for s in segments if s[0] == 0xDA]
    first_chroma = next(i for i, s in enumerate(scans) if luma_id not in jpeg[s[1] + 5:s[2] - 3:2])
    assert all(luma_id not in jpeg[s[1] + 5:s[2] - 3:2] for s in scans[first_chroma:]), "luma scans not first"
    cut = scans[first_chroma - 1][3]  # just after the entropy data of the last luma scan
    sof_bytes = bytearray(jpeg[sof[1]:sof[2]])
    for i in range(sof_bytes[9]):
        sof_bytes[10 + 3 * i + 2] = 0
    header = jpeg[:dqt[0][1]] + marker_segment(0xDB, tables[0]) + jpeg[dqt[-1][3]:sof[1]] + bytes(sof_bytes)
    assert dqt[-1][3] <= sof[1]
    redefined = marker_segment(0xDB, bytes([0]) + tables[1][1:])
    return header + jpeg[sof[2]:cut] + redefined + jpeg[cut:]


def cmyk_from_rgb(image):
    """Inks for an RGB image with full grey-component replacement: K = 255 − max(R, G, B),
    C = 255·(max − R)/max (M, Y alike), so C'·K'/255 with C' = 255 − C gives back R (±1)."""
    inks = []
    for pixel in image.getdata():
        top = max(pixel)
        inks.append((0, 0, 0, 255) if top == 0 else tuple(round(255 * (top - v) / top) for v in pixel) + (255 - top,))
    result = Image.new("CMYK", image.size)
    result.putdata(inks)
    return result


def make_jpeg_progressive(corpus):
    corpus.section("Progressive JPEGs",
                   "Progressive Huffman (SOF2) files for the DC-only 1/8 decoder and scan skipping. Content: "
                   "a crop of a photo (see Photo crops above and Photo credits), COM marker with the credit. "
                   "cjpeg writes optimised Huffman tables for progressive files, so a DHT precedes almost every "
                   "scan (DC tables before DC first scans, AC tables before each AC scan, none before DC "
                   "refinement scans): tables are redefined between scans in every file of this table. "
                   "Files made by jpegtran from another file of the table keep its coefficients exactly: "
                   "same_pixels_as names it. The scan list gives component indexes (0 = Y or C), the spectral "
                   "range and the successive-approximation bit (Ah→Al for refinements).")

    def credit_of(name):
        """The credit line, recorded for the README; jpegtran copies the COM marker holding it."""
        return photo_credit(corpus, name, PROGRESSIVE_PHOTO, PROGRESSIVE_CHANGES).encode("utf-8")

    def credited(name, jpeg):
        return insert_after_app_segments(jpeg, marker_segment(0xFE, credit_of(name)))

    def add(name, data, size, what, exercises, check, components=3, twin=None):
        corpus.add(name, data, what=what, exercises=exercises, expect=DECODES,
                   header=header_facts(*size, components=components, progressive=True),
                   check=check, same_pixels_as=twin)

    quality = ["-quality", PROGRESSIVE_QUALITY]

    # Chroma sampling, standard scan script
    size = (200, 150)
    photo = photo_crop(PROGRESSIVE_PHOTO, size)
    source = pnm(*size, photo.tobytes(), 3)
    samplings = [  # (slug, -sample, what, exercises)
        ("422", "2x1", "4:2:2 (Y 2×1, chroma 1×1)", "h2v1 chroma: 1/8 output from DC planes of different widths"),
        ("440", "1x2", "4:4:0 (Y 1×2, chroma 1×1)", "h1v2 chroma: vertical-only chroma upsampling at 1/8"),
        ("411", "4x1", "4:1:1 (Y 4×1, chroma 1×1), MCU 32×8: 6¼ MCUs across", "h4v1 chroma: chroma replicated 4× across"),
        ("410", "4x2", "4:1:0 (Y 4×2, chroma 1×1), MCU 32×16 of 10 blocks (libjpeg's maximum), 6¼ × 9⅜ MCUs",
         "h4v2 chroma; the largest blocks-per-MCU count an interleaved DC scan may have"),
        ("sample-1x1-2x2-1x1", "1x1,2x2,1x1",
         "unusual sampling: Cb 2×2 while Y and Cr are 1×1 (Y is the subsampled one)",
         "a component other than the first with the largest factors; luma upsampled"),
        ("sample-3x2-1x1-1x1", "3x2,1x1,1x1",
         "unusual sampling: Y 3×2, chroma 1×1 (horizontal ratio 3, MCU 24×16: 8⅓ MCUs across)",
         "a non-power-of-two sampling ratio (libjpeg's generic integer upsampler); partial MCU column"),
        ("sample-2x2-1x2-2x1", "2x2,1x2,2x1",
         "unusual sampling: Y 2×2, Cb 1×2, Cr 2×1 (each chroma component subsampled in one direction only)",
         "components with different sampling ratios in each direction"),
    ]
    for slug, factors, what, exercises in samplings:
        name = "jpeg-progressive-%s-photo-%dx%d.jpg" % (slug, *size)
        sampling = factors if "," in factors else factors + ",1x1,1x1"
        add(name, credited(name, cjpeg([*quality, "-progressive", "-sample", factors], source)), size,
            what="JPEG progressive %d×%d q%s, %s; libjpeg's standard scan script (DC interleaved, Al1 then "
                 "refined)" % (*size, PROGRESSIVE_QUALITY, what),
            exercises=exercises, check=check_progressive(standard_script_test(3, sampling), photo.tobytes()))

    # Sizes that are not multiples of the MCU (4:2:0, standard script)
    base_size = (255, 129)
    base_name = "jpeg-progressive-420-photo-%dx%d.jpg" % base_size
    base = None
    for size in ((333, 250), base_size, (17, 13), (9, 9), (8, 8), (1, 1)):
        photo = photo_crop(PROGRESSIVE_PHOTO, size)
        name = "jpeg-progressive-420-photo-%dx%d.jpg" % size
        data = credited(name, cjpeg([*quality, "-progressive"], pnm(*size, photo.tobytes(), 3)))
        if size == base_size:
            base = data
        mcus = math.ceil(size[0] / 16), math.ceil(size[1] / 16)
        add(name, data, size,
            what="JPEG progressive 4:2:0 q%s %d×%d (%d×%d MCUs, the last column and row partial unless the "
                 "side is a multiple of 16); standard scan script" % (PROGRESSIVE_QUALITY, *size, *mcus),
            exercises="partial MCUs in a progressive file: interleaved DC scans cover whole MCUs, "
                      "non-interleaved AC scans only the component's own blocks"
                      + ("; the base of the jpegtran variants below" if size == base_size else ""),
            check=check_progressive(standard_script_test(3, "2x2,1x1,1x1"), photo.tobytes()))

    # Custom scan scripts and restart intervals: jpegtran from the base, same coefficients
    def dc_scans(structure):
        return [(tuple(scan["components"]), scan["ah"], scan["al"]) for scan in structure["scans"] if scan["ss"] == 0]

    def expect_dc(expected):
        def test(structure):
            ids = [component[0] for component in structure["components"]]
            named = [(tuple(ids[i] for i in comps), ah, al) for comps, ah, al in expected]
            assert dc_scans(structure) == named, "DC scans %s" % dc_scans(structure)
        return test

    def expect_restarts(interval_of, tables=None):
        """interval_of(scan) → the restart interval that scan must have (and a marker after every
        `interval` MCUs); tables: DRI must appear between scans when True."""
        def test(structure):
            for scan in structure["scans"]:
                assert scan["restart_interval"] == interval_of(scan), "interval %d" % scan["restart_interval"]
                assert scan["restarts"] > 0
            if tables:
                assert "DRI" in structure["tables_between_scans"]
        return test

    def one_slot_redefined_test(structure):
        assert {component[3] for component in structure["components"]} == {0}
        assert structure["tables_between_scans"].count("DQT") == 1

    variants = [  # (slug, jpegtran script or None for -progressive, extra arguments, what, exercises, test)
        ("dc-al2", SCANS_DC_AL2, [],
         "custom scan script: interleaved DC first scan at Al=2, refined 2→1 after the first AC scans and 1→0 "
         "near the end", "DC successive approximation over two refinement scans (values shifted by 2)",
         expect_dc([((0, 1, 2), 0, 2), ((0, 1, 2), 2, 1), ((0, 1, 2), 1, 0)])),
        ("dc-noninterleaved", SCANS_DC_NONINTERLEAVED, [],
         "custom scan script: one DC scan per component (Y, then Cr, then Cb, all Al=1, with Y's first AC "
         "scan between them) and one DC refinement per component, each at a different point among the AC "
         "scans; Cr and Cb share DC table slot 1, redefined by a DHT before each of their DC scans",
         "non-interleaved DC scans (a component's own blocks, no MCU padding: Y is 32×17 blocks, not 32×18); "
         "AC scans before another component's DC scan; DC DHT redefinition",
         expect_dc([((0,), 0, 1), ((2,), 0, 1), ((1,), 0, 1), ((1,), 1, 0), ((0,), 1, 0), ((2,), 1, 0)])),
        ("dc-partly-interleaved", SCANS_DC_PARTLY_INTERLEAVED, [],
         "custom scan script: DC of Y and Cr interleaved at Al=1 (MCU of 4 + 1 blocks), Cb's DC alone at full "
         "precision (Al=0, never refined), then the Y+Cr refinement",
         "a two-component interleaved DC scan; components at different DC precisions",
         expect_dc([((0, 2), 0, 1), ((1,), 0, 0), ((0, 2), 1, 0)])),
        ("restart-1row", SCANS_DC_NONINTERLEAVED, ["-restart", "1"],
         "the dc-noninterleaved scan script with a restart interval of one MCU row (jpegtran -restart 1): DRI "
         "32 before Y's scans and 16 before Cb/Cr's (a row of one component's blocks), so DRI is redefined "
         "between scans", "RSTn in DC and AC scans; the restart interval changing from scan to scan",
         expect_restarts(lambda scan: 32 if scan["components"] == [1] else 16, tables=True)),
        ("restart-5mcus", None, ["-progressive", "-restart", "5B"],
         "libjpeg's standard scan script with a restart interval of 5 MCUs (jpegtran -restart 5B): the "
         "interleaved DC scans have 144 MCUs (28 intervals and a short one), AC scans count single blocks",
         "RSTn every 5 MCUs in interleaved DC scans and every 5 blocks in AC scans; RST numbers wrap past 7",
         expect_restarts(lambda scan: 5)),
        ("dqt-between-scans", SCANS_LUMA_FIRST, [],
         "all of Y's scans first, then Cb and Cr's; every component uses quantisation slot 0, which a DQT "
         "redefines between the last Y scan and the first chroma scan (luma table, then chroma table)",
         "DQT between scans; each component keeps the table in force at its first scan (as libjpeg latches "
         "it), so dequantising Y with the later table is wrong",
         one_slot_redefined_test),
    ]
    for slug, script, arguments, what, exercises, test in variants:
        name = "jpeg-progressive-%s-photo-%dx%d.jpg" % (slug, *base_size)
        data = jpegtran_scans(script, base, arguments) if script else jpegtran(arguments, base)
        if slug == "dqt-between-scans":
            data = one_quant_slot_redefined(data)
        assert credit_of(name) in data, "jpegtran dropped the COM marker"
        add(name, data, base_size,
            what="JPEG progressive 4:2:0 q%s %d×%d, jpegtran of %s: %s" % (PROGRESSIVE_QUALITY, *base_size,
                                                                          base_name, what),
            exercises=exercises, twin=base_name,
            check=check_progressive(test, twin=base_name, corpus=corpus))

    # Grayscale: odd size, and the same with restart markers
    size = (99, 67)
    photo = photo_crop(PROGRESSIVE_PHOTO, size).convert("L")
    gray_name = "jpeg-progressive-gray-photo-%dx%d.jpg" % size
    gray = credited(gray_name, cjpeg([*quality, "-progressive"], pnm(*size, photo.tobytes(), 1)))
    add(gray_name, gray, size, components=1,
        what="JPEG grayscale progressive q%s %d×%d (13×9 blocks, partial at the right and bottom), standard "
             "gray scan script; L = Pillow's convert(\"L\") of the crop" % (PROGRESSIVE_QUALITY, *size),
        exercises="one-component progressive at an odd size (every scan non-interleaved)",
        check=check_progressive(standard_script_test(1, "1x1"), photo.tobytes(), "L"))
    name = "jpeg-progressive-gray-restart-2blocks-photo-%dx%d.jpg" % size
    data = jpegtran(["-progressive", "-restart", "2B"], gray)
    assert credit_of(name) in data
    add(name, data, size, components=1, twin=gray_name,
        what="JPEG grayscale progressive %d×%d, jpegtran -restart 2B of %s: RSTn after every 2 blocks in every "
             "scan (117 blocks: 58 intervals and a short one)" % (*size, gray_name),
        exercises="restart markers in a one-component progressive file",
        check=check_progressive(expect_restarts(lambda scan: 2), twin=gray_name, corpus=corpus))

    # Four components: CMYK (Pillow) and YCCK (ImageMagick), both Adobe-inverted
    size = (128, 96)
    photo = photo_crop(PROGRESSIVE_PHOTO, size)
    inks = cmyk_from_rgb(photo)
    buffer = io.BytesIO()
    inks.save(buffer, "JPEG", quality=int(PROGRESSIVE_QUALITY), progressive=True)
    name = "jpeg-progressive-cmyk-adobe-photo-%dx%d.jpg" % size
    add(name, credited(name, buffer.getvalue()), size, components=4,
        what="JPEG CMYK progressive q%s %d×%d (Pillow: Adobe APP14 transform 0, inverted samples, 4:4:4, one "
             "quantisation table), inks from the crop by full grey replacement (K = 255 − max(R,G,B)); DC "
             "interleaved over 4 components" % (PROGRESSIVE_QUALITY, *size),
        exercises="progressive CMYK: four DC planes, Adobe-inverted CMYK → RGB at 1/8",
        check=check_progressive(standard_script_test(4, "1x1,1x1,1x1,1x1"), photo.tobytes()))
    ycck = subprocess.run([IMAGEMAGICK, "-size", "%dx%d" % size, "-depth", "8", "cmyk:-", "-strip", "-quality",
                           PROGRESSIVE_QUALITY, "-interlace", "JPEG", "jpeg:-"],
                          input=inks.tobytes(), capture_output=True, check=True).stdout
    name = "jpeg-progressive-ycck-adobe-photo-%dx%d.jpg" % size
    add(name, credited(name, ycck), size, components=4,
        what="JPEG YCCK progressive q%s %d×%d (ImageMagick 6 from the same inks: Adobe APP14 transform 2; Y and "
             "K 2×2, Cb and Cr 1×1), libjpeg's standard scan script" % (PROGRESSIVE_QUALITY, *size),
        exercises="progressive YCCK: YCC → inverted CMYK → RGB; an interleaved DC scan of 4+1+1+4 = 10 blocks "
                  "per MCU (libjpeg's maximum)",
        check=check_progressive(standard_script_test(4, "2x2,1x1,1x1,2x2"), photo.tobytes()))


def exif_transposes():
    """orientation → (Pillow transpose that displays stored data, its inverse)."""
    t = Image.Transpose
    display = {2: t.FLIP_LEFT_RIGHT, 3: t.ROTATE_180, 4: t.FLIP_TOP_BOTTOM, 5: t.TRANSPOSE,
               6: t.ROTATE_270, 7: t.TRANSVERSE, 8: t.ROTATE_90}
    inverse = {**display, 6: t.ROTATE_90, 8: t.ROTATE_270}
    return display, inverse


def marker_picture():
    """96×64 upright picture: white, red top-left, blue top-right, green bottom-left (24×24)."""
    image = Image.new("RGB", (96, 64), (255, 255, 255))
    image.paste((255, 0, 0), (0, 0, 24, 24))
    image.paste((0, 0, 255), (72, 0, 96, 24))
    image.paste((0, 255, 0), (0, 40, 24, 64))
    return image


def where_blocks_are(image):
    """Text saying in which corner of the stored image each marker block sits."""
    width, height = image.size
    corners = {(0, 0): "top-left", (1, 0): "top-right", (0, 1): "bottom-left", (1, 1): "bottom-right"}
    found = []
    for label, colour in (("red", (255, 0, 0)), ("blue", (0, 0, 255)), ("green", (0, 255, 0))):
        for (cx, cy), corner in corners.items():
            if image.getpixel((cx * (width - 1), cy * (height - 1))) == colour:
                found.append("%s %s" % (label, corner))
    return ", ".join(found)


def make_jpeg_exif(corpus):
    corpus.section("JPEG EXIF orientation",
                   "Every file displays the same upright 96×64 marker picture once its orientation is applied. "
                   "Odd orientations use Intel (II) byte order, even ones Motorola (MM). APP1 follows the JFIF "
                   "APP0; IFD0 holds Make, Orientation, X/YResolution and ResolutionUnit.")
    upright = marker_picture()
    display, inverse = exif_transposes()
    upright_bytes = upright.tobytes()

    def encode(image):
        return cjpeg(["-quality", "95", "-sample", "1x1"], pnm(*image.size, image.tobytes(), 3))

    def check(orientation):
        def run(data):
            image = pillow_open(data)
            tag = image.getexif().get(0x0112)
            assert tag == (orientation if orientation is not None else None), "Pillow read orientation %r" % tag
            shown = ImageOps.exif_transpose(image).convert("RGB")
            assert shown.size == (96, 64)
            delta = max_delta(shown.tobytes(), upright_bytes)
            assert delta <= 48
            return "Pillow: orientation tag %s; after exif_transpose max |Δ| vs upright %d" % (tag, delta)
        return run

    for orientation in range(1, 9):
        stored = upright.transpose(inverse[orientation]) if orientation > 1 else upright
        assert (stored.transpose(display[orientation]) if orientation > 1 else stored).tobytes() == upright_bytes
        big_endian = orientation % 2 == 0
        order = "MM" if big_endian else "II"
        corpus.add("jpeg-exif-orientation-%d-%s.jpg" % (orientation, order.lower()),
                   insert_after_app0(encode(stored), exif_app1(exif_entries(orientation, big_endian), big_endian)),
                   what="JPEG 4:4:4 q95, stored %d×%d (%s), EXIF orientation %d, %s" % (
                       stored.size[0], stored.size[1], where_blocks_are(stored), orientation, order),
                   exercises="EXIF APP1 parsing (%s) and %s" % (
                       order, "no transform" if orientation == 1 else "orientation transform %d" % orientation),
                   expect=DECODES,
                   header=header_facts(*stored.size, components=3, orientation=orientation),
                   check=check(orientation))
    upright_jpeg = encode(upright)
    for orientation, big_endian in ((0, False), (9, True)):
        order = "MM" if big_endian else "II"
        corpus.add("jpeg-exif-orientation-%d-invalid-%s.jpg" % (orientation, order.lower()),
                   insert_after_app0(upright_jpeg, exif_app1(exif_entries(orientation, big_endian), big_endian)),
                   what="JPEG 96×64 upright, EXIF orientation %d (out of range), %s" % (orientation, order),
                   exercises="invalid orientation is treated as 1", expect=DECODES,
                   header=header_facts(96, 64, components=3, orientation=1), check=check(orientation))
    corpus.add("jpeg-exif-none-96x64.jpg", upright_jpeg,
               what="JPEG 96×64 upright, no APP1", exercises="absent EXIF means orientation 1", expect=DECODES,
               header=header_facts(96, 64, components=3), check=check(None))
    corpus.add("jpeg-exif-malformed-ifd-offset.jpg",
               insert_after_app0(upright_jpeg, exif_app1(exif_entries(6, False), False, ifd_pointer=0xFFFFFFF0)),
               what="JPEG 96×64 upright; EXIF (II) whose IFD0 offset is 0xFFFFFFF0 (past the segment; overflows "
                    "32-bit offset arithmetic). An orientation-6 IFD is present at offset 8 but not referenced",
               exercises="EXIF bounds checks; unreadable EXIF means orientation 1", expect=DECODES,
               header=header_facts(96, 64, components=3), check=check(None))
    corpus.add("jpeg-exif-malformed-entry-count.jpg",
               insert_after_app0(upright_jpeg, exif_app1(exif_entries(1, True, with_orientation=False), True,
                                                         entry_count=0xFFFF)),
               what="JPEG 96×64 upright; EXIF (MM) IFD0 claims 65535 entries, the segment holds 4 (no Orientation)",
               exercises="EXIF entry loop must stop at the segment end; orientation 1", expect=DECODES,
               header=header_facts(96, 64, components=3), check=check(None))


def make_jpeg_unsupported(corpus):
    corpus.section("JPEG processes outside 8-bit DCT",
                   "Hand-assembled 8×8 gray files (every sample mid-gray) that a libjpeg-turbo 2.x 8-bit build "
                   "cannot decode.")
    corpus.add("jpeg-12bit-gray-8x8.jpg", tiny_gray_jpeg(0xC1, 12),
               what="JPEG SOF1 (extended sequential), 12-bit precision, 1 component, 8×8, all samples 2048",
               exercises="jpeg_read_header fails with JERR_BAD_PRECISION (\"Unsupported JPEG data precision 12\")",
               expect=UNSUPPORTED_FEATURE, header=header_facts(8, 8, components=1, bit_depth=12),
               check=check_mid_gray(0xC1))
    corpus.add("jpeg-lossless-gray-8x8.jpg", tiny_gray_jpeg(0xC3, 8),
               what="JPEG SOF3 (lossless, predictor 1), 8-bit, 1 component, 8×8, all samples 128",
               exercises="JERR_SOF_UNSUPPORTED (\"Unsupported JPEG process: SOF type 0xc3\") in libjpeg-turbo 2.x; "
                         "libjpeg-turbo ≥ 3.0 decodes it (all 128)",
               expect=UNSUPPORTED_FEATURE, header=None, check=check_mid_gray(None))


def make_jpeg_errors(corpus, produced):
    corpus.section("JPEG damage and hostile headers",
                   "Cut or patched copies of jpeg-baseline-420-gradient-256x192.jpg unless stated. libjpeg only "
                   "warns (and fills gray) on a premature end; the decoder must turn that warning into truncated.")
    baseline = produced["jpeg-baseline-420-gradient-256x192.jpg"]
    segments = jpeg_segments(baseline)
    _, _, sos_header_end, sos_end = next(s for s in segments if s[0] == 0xDA)
    facts = header_facts(JPEG_W, JPEG_H, components=3)
    corpus.add("jpeg-error-truncated-half-entropy.jpg",
               baseline[:sos_header_end + (sos_end - sos_header_end) // 2],
               what="cut at 50%% of the entropy-coded data (%d of %d bytes), no EOI" % (
                   (sos_end - sos_header_end) // 2, sos_end - sos_header_end),
               exercises="JWRN_JPEG_EOF warning → truncated, never a gray-filled picture", expect=TRUNCATED,
               header=facts)
    corpus.add("jpeg-error-truncated-after-sos.jpg", baseline[:sos_header_end],
               what="cut right after the SOS header: no entropy-coded data at all",
               exercises="premature end before the first MCU", expect=TRUNCATED, header=facts)

    progressive = produced["jpeg-progressive-420-gradient-256x192.jpg"]
    last_scan = [s for s in jpeg_segments(progressive) if s[0] == 0xDA][-1]
    scans = len([s for s in jpeg_segments(progressive) if s[0] == 0xDA])
    corpus.add("jpeg-error-progressive-truncated-last-scan.jpg",
               progressive[:last_scan[2] + (last_scan[3] - last_scan[2]) // 2],
               what="copy of jpeg-progressive-420-gradient-256x192.jpg cut in the middle of its last scan "
                    "(scan %d of %d)" % (scans, scans),
               exercises="truncation in a refinement scan; with scan skipping the decoder must still notice the "
                         "missing end (or never claim success for a scan it did not read)",
               expect=TRUNCATED, header=header_facts(JPEG_W, JPEG_H, components=3, progressive=True))

    header_only = baseline[:2] + b"".join(baseline[s[1]:s[3]] for s in segments if s[0] in (0xE0, 0xDB, 0xC0))
    corpus.add("jpeg-error-header-only.jpg", header_only,
               what="SOI + APP0 + DQT + SOF0 only (no DHT, SOS, data or EOI)",
               exercises="EOF while jpeg_read_header still looks for SOS: libjpeg warns \"Premature end\" "
                         "(its stdio source inserts a fake EOI), then fails \"missing SOS marker\"; the EOF "
                         "must win", expect=TRUNCATED)

    head = bytearray(baseline[:sos_header_end])
    sof = next(s for s in segments if s[0] == 0xC0)
    head[sof[1] + 5:sof[1] + 9] = struct.pack(">HH", 60000, 60000)
    corpus.add("jpeg-error-sof-60000x60000.jpg", bytes(head),
               what="all headers through SOS, SOF0 patched to 60000×60000, no entropy data",
               exercises="size limit right after jpeg_read_header (3.6 GP > 100 MP; libjpeg's own limit is 65500)",
               expect=TOO_LARGE, header=header_facts(60000, 60000, components=3))

    garbage = bytes(random.Random(20240611).getrandbits(8) for _ in range(2048))
    corpus.add("jpeg-error-garbage-after-soi.jpg", b"\xff\xd8\xff" + garbage,
               what="FF D8 FF (so it sniffs as JPEG) then 2048 seeded pseudo-random bytes; the first marker code "
                    "is 0x%02X" % garbage[0],
               exercises="marker parser on garbage: unknown marker → error", expect=CORRUPT)


# ---------------------------------------------------------------------------------------
# WebP
# ---------------------------------------------------------------------------------------

WEBP_GRADIENT_W, WEBP_GRADIENT_H = 256, 192
WEBP_LARGE_W, WEBP_LARGE_H = 6000, 4000


def riff_chunk(fourcc, payload):
    """A RIFF chunk: FourCC, little-endian payload size, payload, a pad byte after an odd payload."""
    return fourcc + struct.pack("<I", len(payload)) + payload + (b"\0" if len(payload) % 2 else b"")


def webp_container(chunks):
    body = b"WEBP" + b"".join(chunks)
    return b"RIFF" + struct.pack("<I", len(body)) + body


def webp_chunks(data):
    """[(FourCC, payload)] of a WebP file's top-level chunks."""
    assert data[:4] == b"RIFF" and data[8:12] == b"WEBP"
    chunks, position = [], 12
    while position + 8 <= len(data):
        fourcc, size = data[position:position + 4], struct.unpack("<I", data[position + 4:position + 8])[0]
        chunks.append((fourcc, data[position + 8:position + 8 + size]))
        position += 8 + size + (size & 1)
    return chunks


def vp8x_chunk(width, height, *, alpha=False, exif=False, animation=False):
    flags = (0x10 if alpha else 0) | (0x08 if exif else 0) | (0x02 if animation else 0)
    return riff_chunk(b"VP8X", bytes((flags, 0, 0, 0)) + (width - 1).to_bytes(3, "little")
                      + (height - 1).to_bytes(3, "little"))


def pillow_webp(image, **options):
    output = io.BytesIO()
    image.save(output, "WEBP", **options)
    return output.getvalue()


def image_chunks(webp):
    """The image-bearing chunks (ALPH, VP8, VP8L) of a still WebP, as bytes."""
    return b"".join(riff_chunk(fourcc, payload) for fourcc, payload in webp_chunks(webp)
                    if fourcc in (b"ALPH", b"VP8 ", b"VP8L"))


def anmf_chunk(x, y, width, height, image, *, duration=100, blend=True, dispose=False):
    """An animation frame at (x, y) (even), its image chunks inside."""
    flags = (0 if blend else 0x02) | (0x01 if dispose else 0)
    header = ((x // 2).to_bytes(3, "little") + (y // 2).to_bytes(3, "little") + (width - 1).to_bytes(3, "little")
              + (height - 1).to_bytes(3, "little") + duration.to_bytes(3, "little") + bytes((flags,)))
    return riff_chunk(b"ANMF", header + image)


def webp_header(width, height, *, alpha=False, orientation=1, whole_image_bytes_per_pixel=0):
    return header_facts(width, height, components=4 if alpha else 3, has_alpha=alpha, orientation=orientation,
                        whole_image_bytes_per_pixel=whole_image_bytes_per_pixel)


def check_webp_close(expected_rgb, tolerance, expected_alpha=None):
    """Pillow (libwebp) at full size: colour within `tolerance` of the formula wherever the
    formula's alpha is 255; alpha exactly the formula's."""
    def check(data):
        image = pillow_open(data).convert("RGBA")
        pixels = image.tobytes()
        alphas = pixels[3::4]
        if expected_alpha is not None:
            assert alphas == expected_alpha, "alpha differs from the formula"
        opaque = [i for i, a in enumerate(expected_alpha or alphas) if a == 255]
        delta = max(abs(pixels[4 * i + c] - expected_rgb[3 * i + c]) for i in opaque for c in range(3))
        assert delta <= tolerance, "max |delta| %d > %d" % (delta, tolerance)
        note = "max |Δ| vs formula where opaque: %d" % delta
        return note + ("; alpha = formula" if expected_alpha is not None else "")
    return check


def check_webp_exact(expected_rgba):
    def check(data):
        assert pillow_open(data).convert("RGBA").tobytes() == expected_rgba, "pixels differ from the formula"
        return "Pillow pixels = formula"
    return check


def alpha_vignette(width, height):
    """The photo's alpha vignette (255 in the middle, 0 at the corners), as bytes."""
    return vignette(width, height).tobytes()


def make_webp(corpus):
    corpus.section("WebP",
                   "Encoded by Pillow's libwebp (1.2.4 in Debian 12: byte-identical output needs that version). "
                   "Containers whose layout matters (EXIF chunks, animation frames) are assembled here chunk by "
                   "chunk around bitstreams Pillow made. The gradient is the JPEG gradient formula; the blocks are "
                   "ref-blocks-256x192.png's; the RGBA matrix is the PNG matrix's RGB and alpha formulas.")
    produced = {}
    w, h = WEBP_GRADIENT_W, WEBP_GRADIENT_H
    gradient_rgb = gradient(w, h)
    gradient_image = Image.frombytes("RGB", (w, h), gradient_rgb)
    lossy = pillow_webp(gradient_image, quality=90)
    produced["webp-lossy"] = corpus.add(
        "webp-lossy-gradient-256x192.webp", lossy,
        what="WebP lossy (VP8, simple format) q90 of the gradient, 256×192",
        exercises="lossy decode straight to the thumbnail's size with libwebp's scaler",
        expect=DECODES, header=webp_header(w, h), check=check_webp_close(gradient_rgb, 12))

    blocks = bytes(c for y in range(h) for x in range(w)
                   for c in (8 * (x >> 3) + 4, 10 * (y >> 3) + 5, 255 - 4 * ((x >> 3) + (y >> 3))))
    produced["webp-lossless"] = corpus.add(
        "webp-lossless-blocks-256x192.webp", pillow_webp(Image.frombytes("RGB", (w, h), blocks), lossless=True),
        what="WebP lossless (VP8L, simple format) of ref-blocks-256x192.png's 32×24 blocks",
        exercises="lossless decode; libwebp's scaler at ×8 (box 32×24) gives exactly the block colours",
        expect=DECODES, header=webp_header(w, h, whole_image_bytes_per_pixel=4),
        check=check_webp_exact(bytes(c for i in range(0, len(blocks), 3) for c in blocks[i:i + 3] + b"\xff")))

    mw, mh = 67, 43
    matrix = bytes(c for y in range(mh) for x in range(mw) for c in rgb(x, y) + (alpha(x, y),))
    corpus.add("webp-lossless-rgba-67x43.webp",
               pillow_webp(Image.frombytes("RGBA", (mw, mh), matrix), lossless=True, exact=True),
               what="WebP lossless with alpha (VP8X + VP8L), 67×43: the PNG matrix's RGB and alpha (64…255) formulas",
               exercises="lossless alpha at full size: exactly the formula", expect=DECODES,
               header=webp_header(mw, mh, alpha=True, whole_image_bytes_per_pixel=4), check=check_webp_exact(matrix))

    vignette_alpha = alpha_vignette(w, h)
    with_alpha = Image.frombytes("RGB", (w, h), gradient_rgb)
    with_alpha.putalpha(Image.frombytes("L", (w, h), vignette_alpha))
    corpus.add("webp-lossy-alpha-vignette-256x192.webp", pillow_webp(with_alpha, quality=90, alpha_quality=100),
               what="WebP lossy with alpha (VP8X + ALPH + VP8) q90: the gradient under the photo's vignette (alpha "
                    "255 within half the normalised radius, 0 at the corners), alpha compressed losslessly",
               exercises="lossy colour with a lossless alpha plane (ALPH chunk, compression method 1)",
               expect=DECODES, header=webp_header(w, h, alpha=True, whole_image_bytes_per_pixel=5),
               check=check_webp_close(gradient_rgb, 12, vignette_alpha))

    # An animation whose first frame covers only part of the canvas: red 40×30 at (20, 10) on
    # a transparent 100×80 canvas, then a blue frame over the whole canvas.
    red = image_chunks(pillow_webp(Image.new("RGB", (40, 30), (255, 0, 0)), lossless=True))
    blue = image_chunks(pillow_webp(Image.new("RGB", (100, 80), (0, 0, 255)), lossless=True))
    anim_payload = struct.pack("<IH", 0xFFFFFFFF, 0)  # white background (a hint decoders ignore), loop forever
    offset_frame = webp_container([
        vp8x_chunk(100, 80, alpha=True, animation=True), riff_chunk(b"ANIM", anim_payload),
        anmf_chunk(20, 10, 40, 30, red, blend=False), anmf_chunk(0, 0, 100, 80, blue)])
    first = bytes(c for y in range(80) for x in range(100)
                  for c in ((255, 0, 0, 255) if 20 <= x < 60 and 10 <= y < 40 else (0, 0, 0, 0)))
    corpus.add("webp-animated-offset-first-frame-100x80.webp", offset_frame,
               what="WebP animation (VP8X + ANIM + 2 ANMF), 100×80 canvas: frame 1 lossless opaque red 40×30 at "
                    "(20, 10), no blending; frame 2 blue over the whole canvas",
               exercises="the first frame composited onto a transparent canvas: red in (20…59, 10…39), transparent "
                         "elsewhere; never the second frame",
               expect=DECODES, header=webp_header(100, 80, alpha=True, whole_image_bytes_per_pixel=4),
               check=check_webp_exact(first))

    aw, ah = 128, 96
    first_frame = Image.frombytes("RGB", (aw, ah), gradient(aw, ah))
    second_frame = ImageOps.invert(first_frame)
    output = io.BytesIO()
    first_frame.save(output, "WEBP", save_all=True, append_images=[second_frame], duration=100, loop=0,
                     quality=90, minimize_size=False, kmin=0, kmax=1)
    animated = output.getvalue()
    animated_flags = webp_chunks(animated)[0][1][0]
    corpus.add("webp-animated-lossy-2-frames-128x96.webp", animated,
               what="WebP animation made by Pillow's WebPAnimEncoder, lossy q90, two full-canvas keyframes: the "
                    "gradient, then its inverse",
               exercises="an animation shows its first frame (the gradient, not its inverse)", expect=DECODES,
               header=webp_header(aw, ah, alpha=bool(animated_flags & 0x10)),
               check=check_webp_close(gradient(aw, ah), 12))

    upright = marker_picture()
    display, inverse = exif_transposes()
    upright_bytes = upright.tobytes()

    # Where each block's centre and the white middle show once the orientation is applied.
    landmarks = {(12, 12): (255, 0, 0), (84, 12): (0, 0, 255), (12, 52): (0, 255, 0), (48, 32): (255, 255, 255)}

    def check_orientation(orientation, lossless):
        def run(data):
            image = pillow_open(data)
            tag = image.getexif().get(0x0112)
            assert tag == orientation, "Pillow read orientation %r" % tag
            shown = ImageOps.exif_transpose(image).convert("RGB")
            assert shown.size == (96, 64)
            if lossless:
                assert shown.tobytes() == upright_bytes, "not the upright picture"
                return "Pillow: orientation tag %s; after exif_transpose exactly the upright picture" % tag
            # 4:2:0 chroma blurs the block edges (by up to ~100 here); the block centres must be right.
            delta = max(max_delta(shown.getpixel(point), colour) for point, colour in landmarks.items())
            assert delta <= 16, "block centres off by %d" % delta
            return "Pillow: orientation tag %s; after exif_transpose block centres within %d of upright" % (tag, delta)
        return run

    for orientation, big_endian, lossless, prefix in ((6, True, True, False), (3, False, False, True)):
        stored = upright.transpose(inverse[orientation])
        order = "MM" if big_endian else "II"
        tiff = exif_app1(exif_entries(orientation, big_endian), big_endian)[4 + 6:]  # the TIFF block alone
        bitstream = image_chunks(pillow_webp(stored, lossless=True) if lossless else pillow_webp(stored, quality=95))
        data = webp_container([vp8x_chunk(*stored.size, exif=True), bitstream,
                               riff_chunk(b"EXIF", (b"Exif\0\0" if prefix else b"") + tiff)])
        corpus.add("webp-exif-orientation-%d-%s%s.webp" % (orientation, order.lower(), "-exif-prefix" if prefix else ""),
                   data,
                   what="WebP %s, stored %d×%d (%s), EXIF chunk after the image: orientation %d, %s%s" % (
                       "lossless" if lossless else "lossy q95", stored.size[0], stored.size[1],
                       where_blocks_are(stored), orientation, order,
                       ", the payload starting with JPEG's \"Exif\\0\\0\" as some writers do" if prefix else
                       ", the bare TIFF block the WebP specification asks for"),
                   exercises="EXIF chunk parsing and orientation transform %d (the upright marker picture)" % orientation,
                   expect=DECODES,
                   header=webp_header(*stored.size, orientation=orientation,
                                      whole_image_bytes_per_pixel=4 if lossless else 0),
                   check=check_orientation(orientation, lossless))

    lw, lh = WEBP_LARGE_W, WEBP_LARGE_H
    ramp = Image.linear_gradient("L")
    large = Image.merge("RGB", (ramp.rotate(90).resize((lw, lh)), ramp.resize((lw, lh)),
                                ramp.rotate(45).resize((lw, lh))))
    corpus.add("webp-lossy-gradient-6000x4000.webp", pillow_webp(large, quality=80),
               what="WebP lossy q80, 6000×4000 (24 MP): smooth ramps (R falls across, G down, B along a diagonal), "
                    "small on disk",
               exercises="a 24-megapixel lossy decode whose full frame (96 MB RGBA, 36 MB YUV) must never exist",
               expect=DECODES, header=webp_header(lw, lh))
    return produced


def make_webp_errors(corpus, produced):
    corpus.section("WebP damage and hostile headers",
                   "Cut or patched copies of webp-lossy-gradient-256x192.webp or webp-lossless-blocks-256x192.webp. "
                   "A WebP probe holds the whole container (the EXIF chunk comes after the image), so it fails for "
                   "a truncated file too.")
    lossy, lossless = produced["webp-lossy"], produced["webp-lossless"]
    corpus.add("webp-error-truncated-half.webp", lossy[:len(lossy) // 2],
               what="cut at half its %d bytes, inside the VP8 bitstream" % len(lossy),
               exercises="data ends before the RIFF size says: truncated, never a partly grey picture",
               expect=TRUNCATED)
    corpus.add("webp-error-truncated-in-header.webp", lossy[:16],
               what="the first 16 bytes: the RIFF header and half a chunk header",
               exercises="truncation before the first chunk", expect=TRUNCATED)

    broken = bytearray(lossless)
    chunk = webp_chunks(lossless)[0]
    assert chunk[0] == b"VP8L"
    for i in range(20 + 5, min(len(broken), 20 + 5 + 64)):  # after the VP8L signature and size fields
        broken[i] = 0xFF
    corpus.add("webp-error-vp8l-bad-huffman.webp", bytes(broken),
               what="the lossless blocks with the 64 bitstream bytes after the VP8L header set to 0xFF",
               exercises="invalid transform / Huffman code data: corrupt (the header itself is intact)",
               expect=CORRUPT, header=webp_header(WEBP_GRADIENT_W, WEBP_GRADIENT_H, whole_image_bytes_per_pixel=4))

    overrun = bytearray(lossy)
    assert overrun[12:16] == b"VP8 " and overrun[23:26] == b"\x9d\x01\x2a"
    tag = overrun[20] | overrun[21] << 8 | overrun[22] << 16
    tag |= 0x7FFFF << 5  # first partition size: the largest the 19 bits hold, past the chunk's end
    overrun[20:23] = tag.to_bytes(3, "little")
    corpus.add("webp-error-vp8-partition-overrun.webp", bytes(overrun),
               what="the lossy gradient with its VP8 frame tag claiming a 524287-byte first partition",
               exercises="partition size past the chunk: corrupt", expect=CORRUPT)

    chunks = webp_chunks(lossy)
    assert chunks[0][0] == b"VP8 "
    half = chunks[0][1][:len(chunks[0][1]) // 2]
    corpus.add("webp-error-vp8-cut-sizes-rewritten.webp", webp_container([riff_chunk(b"VP8 ", half)]),
               what="the lossy gradient's VP8 bitstream cut at half (%d bytes), its chunk and RIFF sizes rewritten "
                    "to match" % len(half),
               exercises="a consistent container around a bitstream that ends before the image does: truncated "
                         "(libwebp: NOT_ENOUGH_DATA)", expect=TRUNCATED, header=webp_header(WEBP_GRADIENT_W, WEBP_GRADIENT_H))

    past_end = bytearray(lossy)
    past_end[16:20] = struct.pack("<I", len(lossy))  # the VP8 chunk now claims to run past the RIFF end
    corpus.add("webp-error-chunk-past-riff-end.webp", bytes(past_end),
               what="the lossy gradient with its VP8 chunk size set to the whole file's size",
               exercises="a chunk running past the RIFF container: corrupt (the RIFF size itself matches the file)",
               expect=CORRUPT)

    corpus.add("webp-error-vp8x-canvas-60000x60000.webp", webp_container([vp8x_chunk(60000, 60000)]),
               what="RIFF + VP8X claiming a 60000×60000 canvas, no image",
               exercises="size limit from the VP8X header, before anything is read or allocated (3.6 GP > 100 MP)",
               expect=TOO_LARGE, header=webp_header(60000, 60000))

    # VP8L header: signature 0x2F, then 14 bits width − 1, 14 bits height − 1, alpha hint, 3-bit version.
    bits = (16383) | (16383 << 14)
    huge = webp_container([riff_chunk(b"VP8L", b"\x2f" + bits.to_bytes(4, "little") + bytes(32))])
    corpus.add("webp-error-vp8l-16384x16384.webp", huge,
               what="simple-format VP8L whose header says 16384×16384 (the format's largest), then 32 zero bytes",
               exercises="size limit from the VP8L header (268 MP > 100 MP) before the lossless decoder allocates "
                         "its 1 GiB ARGB image", expect=TOO_LARGE, header=webp_header(16384, 16384))


GIF_COLOURS = [(255, 0, 0), (0, 160, 0), (0, 0, 255), (255, 255, 0)]  # "T": red, green, blue, yellow
CLEAR = (0, 0, 0, 0)


def gif_screen_pixels(screen, box, index_at, colour_of):
    """RGBA rows of the first frame composited on a transparent screen: index_at(fx, fy) in
    frame coordinates, colour_of(index) an RGBA tuple; frame pixels off the screen are dropped."""
    (width, height), (left, top, w, h) = screen, box
    return [colour_of(index_at(x - left, y - top)) if left <= x < left + w and top <= y < top + h else CLEAR
            for y in range(height) for x in range(width)]


def check_gif(expected, *, structure=None, region=None, frames=1, pillow_differs=None):
    """Asserts the file's structure (gif_structure facts that must hold) and that Pillow's first
    frame, as RGBA, equals `expected` (a list of RGBA tuples for the whole screen) inside
    `region` (x0, y0, x1, y1; default the whole screen). Pillow fills the screen outside the
    frame with the background colour and grows it to fit an oversized frame, so those pixels
    are compared with the formula only here, not with Pillow. pillow_differs names pixels where
    Pillow knowingly disagrees (an index beyond the palette), which are then skipped."""
    def check(data):
        facts = gif_structure(data)
        for key, value in (structure or {}).items():
            assert facts[key] == value if key != "first" else all(facts["first"][k] == v for k, v in value.items()), \
                "structure: %s is %r" % (key, facts[key])
        assert facts["frames"] == frames, "%d frames" % facts["frames"]
        image = pillow_open(data)
        width, height = facts["screen"]
        x0, y0, x1, y1 = region or (0, 0, width, height)
        rgba, stride = image.convert("RGBA").tobytes(), 4 * image.size[0]
        skipped = 0
        for y in range(y0, y1):
            for x in range(x0, x1):
                if pillow_differs and pillow_differs(x, y):
                    skipped += 1
                    continue
                actual, wanted = tuple(rgba[y * stride + 4 * x:y * stride + 4 * x + 4]), expected[y * width + x]
                # Where alpha is 0 the colour is not specified (Pillow keeps the palette's).
                assert actual == wanted or actual[3] == wanted[3] == 0, "Pillow differs at (%d, %d)" % (x, y)
        compared = (x1 - x0) * (y1 - y0) - skipped
        note = "Pillow's first frame = formula at %d of %d×%d pixels" % (compared, width, height)
        return note + ("" if compared == width * height else " (the rest: see the formulas)")
    return check


def make_gif(corpus):
    corpus.section("GIF", "First frames composited on a transparent logical screen (formulas under GIF above). "
                   "Pillow wrote the palette, transparency, interlaced and animated files; the script's own writer "
                   "the structures Pillow does not write.")
    pal8 = [palette_entry(i) for i in range(256)]
    matrix = Image.new("P", (MATRIX_W, MATRIX_H))
    matrix.putpalette([c for colour in pal8 for c in colour])
    matrix.putdata([sample(x, y, 8) for y in range(MATRIX_H) for x in range(MATRIX_W)])
    expected = [palette_entry(sample(x, y, 8)) + (255,) for y in range(MATRIX_H) for x in range(MATRIX_W)]
    produced = {}
    for name, interlace in (("gif-palette-67x43.gif", False), ("gif-palette-interlaced-67x43.gif", True)):
        out = io.BytesIO()
        matrix.save(out, "GIF", interlace=interlace, optimize=False)
        data = produced[name] = out.getvalue()
        twin = "gif-palette-67x43.gif" if interlace else "png-palette-8bit-67x43.png"
        corpus.add(name, data,
                   what="Pillow: %d×%d, 256-entry global palette entry i = palette formula, index (x + 3y) mod 256%s"
                        % (MATRIX_W, MATRIX_H, ", interlaced (4 passes)" if interlace else ""),
                   exercises=("interlaced rows into the sparse resampler: identical to " + twin) if interlace else
                             "row-by-row LZW decode through the palette: identical to " + twin,
                   expect=DECODES, header=gif_header_facts(data),
                   check=check_gif(expected, structure={"global_bits": 8, "first": {"interlaced": interlace}}),
                   same_pixels_as=twin)
    assert gif_header_facts(produced["gif-palette-67x43.gif"]) == header_facts(MATRIX_W, MATRIX_H, components=3)

    blocks = Image.new("P", (48, 32))
    blocks.putpalette([c for colour in GIF_COLOURS for c in colour])
    blocks.putdata([((x >> 3) + (y >> 3)) % 4 for y in range(32) for x in range(48)])
    out = io.BytesIO()
    blocks.save(out, "GIF", transparency=1, interlace=False, optimize=False)  # Pillow interlaces by default
    expected = [GIF_COLOURS[i] + (255,) if i != 1 else CLEAR
                for i in (((x >> 3) + (y >> 3)) % 4 for y in range(32) for x in range(48))]
    data = out.getvalue()
    corpus.add("gif-transparent-index-48x32.gif", data,
               what="Pillow: 48×32, palette T, 8×8 blocks of index (⌊x/8⌋ + ⌊y/8⌋) mod 4; a Graphics Control "
                    "Extension makes index 1 (green) transparent",
               exercises="transparent index: alpha 0 there, has_alpha from the header", expect=DECODES,
               header=gif_header_facts(data), check=check_gif(expected, structure={"transparent": 1}))
    assert gif_header_facts(data) == header_facts(48, 32, components=4, bit_depth=2, has_alpha=True)

    # Big enough for many cancellation checkpoints and a memory bound; 16×16 blocks keep the files small.
    indices = [((x >> 4) + 3 * (y >> 4)) % 4 for y in range(800) for x in range(1200)]
    expected = [GIF_COLOURS[i] + (255,) if i else CLEAR for i in indices]
    for interlaced in (False, True):
        data = gif_file(1200, 800, [gif_frame(0, 0, 1200, 800, indices, transparent=0, interlaced=interlaced)],
                        palette=GIF_COLOURS)
        corpus.add("gif-blocks-%s1200x800.gif" % ("interlaced-" if interlaced else ""), data,
                   what="1200×800, palette T, 16×16 blocks of index (⌊x/16⌋ + 3⌊y/16⌋) mod 4; index 0 (red) is "
                        "transparent%s" % (", interlaced" if interlaced else ""),
                   exercises="a frame of about a megapixel: memory bounded by the thumbnail, cancellation between "
                             "rows" + ("; interlaced: identical to gif-blocks-1200x800.gif" if interlaced else ""),
                   expect=DECODES, header=gif_header_facts(data),
                   check=check_gif(expected, structure={"transparent": 0, "first": {"interlaced": interlaced}}),
                   same_pixels_as="gif-blocks-1200x800.gif" if interlaced else None)

    stripes = [(x >> 2) % 2 for y in range(30) for x in range(40)]
    frames = []
    for pattern in (stripes, [2] * 1200, [3] * 1200):
        frame = Image.new("P", (40, 30))
        frame.putpalette([c for colour in [(255, 0, 0), (0, 0, 255), (0, 160, 0), (255, 255, 255)] for c in colour])
        frame.putdata(pattern)
        frames.append(frame)
    out = io.BytesIO()
    frames[0].save(out, "GIF", save_all=True, append_images=frames[1:], duration=100, loop=0, interlace=False,
                   optimize=False)
    data = out.getvalue()
    expected = [((255, 0, 0), (0, 0, 255))[i] + (255,) for i in stripes]
    corpus.add("gif-animated-3-frames-40x30.gif", data,
               what="Pillow: 40×30 animation, 3 frames: 4 px red/blue vertical stripes, then all green, then all "
                    "white (later frames may be cropped to what changes)",
               exercises="only the first frame is decoded; the others are never read", expect=DECODES,
               header=gif_header_facts(data), check=check_gif(expected, frames=3))

    def add_placed(name, screen, box, index_at, what, exercises, interlaced=False, twin=None, version=b"89a"):
        left, top, w, h = box
        indices = [index_at(x, y) for y in range(h) for x in range(w)]
        data = gif_file(*screen, [gif_frame(*box, indices, interlaced=interlaced)], palette=GIF_COLOURS,
                        version=version)
        expected = gif_screen_pixels(screen, box, index_at, lambda i: GIF_COLOURS[i] + (255,))
        region = (left, top, min(screen[0], left + w), min(screen[1], top + h))
        corpus.add(name, data, what=what, exercises=exercises, expect=DECODES, header=gif_header_facts(data),
                   check=check_gif(expected, structure={"first": {"box": box, "interlaced": interlaced}},
                                   region=region),
                   same_pixels_as=twin)

    offset_index = lambda x, y: ((x >> 2) + (y >> 2)) % 4
    for interlaced in (False, True):
        add_placed("gif-offset-frame-%s64x48.gif" % ("interlaced-" if interlaced else ""), (64, 48),
                   (30, 20, 24, 16), offset_index,
                   what="64×48 screen, palette T; the first frame is 24×16 at (30, 20), index "
                        "(⌊fx/4⌋ + ⌊fy/4⌋) mod 4 in frame coordinates%s" % (", interlaced" if interlaced else ""),
                   exercises="screen pixels outside the frame are transparent (not the background colour)"
                             + ("; interlaced: identical to gif-offset-frame-64x48.gif" if interlaced else ""),
                   interlaced=interlaced, twin="gif-offset-frame-64x48.gif" if interlaced else None)
    for interlaced in (False, True):
        add_placed("gif-frame-beyond-screen-%s32x24.gif" % ("interlaced-" if interlaced else ""), (32, 24),
                   (8, 6, 40, 30), lambda x, y: (x + y) % 4,
                   what="32×24 screen, palette T; the first frame is 40×30 at (8, 6), index (fx + fy) mod 4: "
                        "16 columns and 12 rows lie off the screen%s" % (", interlaced" if interlaced else ""),
                   exercises="a frame past the screen is clipped (decoded, then dropped there), the screen size "
                             "kept" + ("; interlaced: identical to gif-frame-beyond-screen-32x24.gif"
                                       if interlaced else ""),
                   interlaced=interlaced, twin="gif-frame-beyond-screen-32x24.gif" if interlaced else None)

    index_at = lambda x, y: ((x >> 3) + (y >> 3)) % 4
    indices = [index_at(x, y) for y in range(32) for x in range(32)]
    data = gif_file(32, 32, [gif_frame(0, 0, 32, 32, indices, palette=GIF_COLOURS)],
                    palette=[(0, 0, 0), (255, 255, 255)], version=b"87a")
    corpus.add("gif-local-palette-32x32.gif", data,
               what="GIF87a 32×32: global palette black, white (2 entries); the frame's local palette T; 8×8 "
                    "blocks of index (⌊x/8⌋ + ⌊y/8⌋) mod 4",
               exercises="a local palette wins over the global one (indices 2 and 3 are not even in the global)",
               expect=DECODES, header=gif_header_facts(data),
               check=check_gif([GIF_COLOURS[i] + (255,) for i in indices],
                               structure={"global_bits": 1, "first": {"local_bits": 2}}))

    indices = [(x + 16 * y) % 256 for y in range(16) for x in range(16)]
    data = gif_file(16, 16, [gif_frame(0, 0, 16, 16, indices, min_code_size=8)])
    corpus.add("gif-no-palette-16x16.gif", data,
               what="16×16 with neither a global nor a local palette; index x + 16y (0…255)",
               exercises="no palette at all: index i is gray (i, i, i), as Pillow reads it (mode L); GIF89a lets "
                         "a decoder use a table of its own", expect=DECODES, header=gif_header_facts(data),
               check=check_gif([(i, i, i, 255) for i in indices],
                               structure={"global_bits": None, "first": {"local_bits": None}}))

    indices = [x % 8 for y in range(8) for x in range(16)]
    data = gif_file(16, 8, [gif_frame(0, 0, 16, 8, indices, min_code_size=3)], palette=GIF_COLOURS)
    corpus.add("gif-index-beyond-palette-16x8.gif", data,
               what="16×8, 4-entry palette T, LZW code size 3 and index x mod 8: columns with x mod 8 ≥ 4 name "
                    "entries the palette does not have",
               exercises="an index beyond the palette is transparent (Pillow draws it gray (i, i, i))",
               expect=DECODES, header=gif_header_facts(data),
               check=check_gif([GIF_COLOURS[i] + (255,) if i < 4 else CLEAR for i in indices],
                               pillow_differs=lambda x, y: x % 8 >= 4))

    good = produced["gif-palette-67x43.gif"]
    start, end = gif_structure(good)["first"]["lzw"]
    corpus.add("gif-error-truncated-mid-frame.gif", good[:(start + end) // 2],
               what="gif-palette-67x43.gif cut in the middle of its LZW data",
               exercises="the input runs out inside the first frame: truncated, never a partial picture",
               expect=TRUNCATED, header=gif_header_facts(good))
    data = gif_file(65535, 65535, [gif_frame(0, 0, 1, 1, [0])], palette=GIF_COLOURS[:2])
    corpus.add("gif-bomb-screen-65535x65535.gif", data,
               what="complete, valid GIF with a 65535×65535 logical screen (4.3 GP) and a 1×1 frame",
               exercises="the screen size goes through the limits before anything is allocated (default 100 MP)",
               expect=TOO_LARGE, header=gif_header_facts(data))
    data = gif_file(16, 16, [gif_frame(0, 0, 65535, 65535, [0])], palette=GIF_COLOURS[:2])
    corpus.add("gif-bomb-frame-65535x65535-on-16x16.gif", data,
               what="16×16 screen whose first frame claims 65535×65535 (4.3 GP) at (0, 0); its LZW data ends "
                    "after one pixel",
               exercises="a frame is decoded whole even off the screen, so its own pixel count is refused before "
                         "any row is decoded (with the limit raised, its LZW data ends too soon: corrupt)",
               expect=TOO_LARGE, header=gif_header_facts(data))
    # Codes of 3 bits, LSB first: clear (4), then 7, which no table entry has yet (the next one is 6).
    data = gif_file(8, 8, [gif_frame(0, 0, 8, 8, [0], min_code_size=2, lzw=bytes([4 | 7 << 3, 0xFF, 0xFF]))],
                    palette=GIF_COLOURS)
    corpus.add("gif-error-bad-lzw.gif", data,
               what="8×8, palette T; the LZW data is a clear code, then code 7 before any table entry exists",
               exercises="giflib reports the image as defective: corrupt", expect=CORRUPT,
               header=gif_header_facts(data))
    corpus.add("gif-error-no-image.gif", gif_file(8, 8, [], palette=GIF_COLOURS),
               what="header, logical screen 8×8 and palette, then the trailer: no image at all",
               exercises="a GIF without a frame has nothing to show: corrupt", expect=CORRUPT)
    data = gif_file(0, 16, [gif_frame(0, 0, 1, 1, [0])], palette=GIF_COLOURS)
    corpus.add("gif-error-screen-0x16.gif", data, what="logical screen 0×16 with a 1×1 frame",
               exercises="a zero-width screen is corrupt, refused from the header", expect=CORRUPT)


def make_sniffing(corpus, produced):
    corpus.section("Content sniffing and non-images", "The format comes from magic bytes, never the file name.")
    png = (corpus.directory / "png-rgb-8bit-67x43.png").read_bytes()
    corpus.add("sniff-png-data-named.jpg", png,
               what="byte-identical copy of png-rgb-8bit-67x43.png with a .jpg name",
               exercises="PNG magic wins over the extension", expect=DECODES,
               header=png_header_facts(MATRIX_W, MATRIX_H, 2, 8),
               check=check_twin(corpus, "png-rgb-8bit-67x43.png"), same_pixels_as="png-rgb-8bit-67x43.png")
    corpus.add("sniff-jpeg-data-named.png", produced["17x13"],
               what="byte-identical copy of jpeg-odd-17x13.jpg with a .png name",
               exercises="JPEG magic (FF D8 FF) wins over the extension", expect=DECODES,
               header=header_facts(17, 13, components=3), same_pixels_as="jpeg-odd-17x13.jpg",
               check=check_jpeg_close(gradient(17, 13), "RGB", 40))
    corpus.add("sniff-webp-data-named.png", produced["webp-lossy"],
               what="byte-identical copy of webp-lossy-gradient-256x192.webp with a .png name",
               exercises="WebP magic (RIFF, size, WEBP) wins over the extension", expect=DECODES,
               header=webp_header(WEBP_GRADIENT_W, WEBP_GRADIENT_H),
               check=check_webp_close(gradient(WEBP_GRADIENT_W, WEBP_GRADIENT_H), 12),
               same_pixels_as="webp-lossy-gradient-256x192.webp")
    corpus.add("error-empty-file.jpg", b"", what="0 bytes", exercises="sniffing with fewer than 3 bytes",
               expect=UNSUPPORTED_FORMAT)
    corpus.add("error-text-file.jpg", b"This is a plain text file, not an image.\n",
               what="ASCII text named .jpg", exercises="unrecognised magic bytes", expect=UNSUPPORTED_FORMAT)
    gif = (corpus.directory / "gif-local-palette-32x32.gif").read_bytes()
    corpus.add("sniff-gif-data-named.jpg", gif, what="byte-identical copy of gif-local-palette-32x32.gif with a .jpg name",
               exercises="GIF magic (GIF87a/GIF89a) wins over the extension", expect=DECODES,
               header=gif_header_facts(gif), same_pixels_as="gif-local-palette-32x32.gif",
               check=check_twin(corpus, "gif-local-palette-32x32.gif", libpng=False))
    bmp = io.BytesIO()
    Image.new("RGB", (16, 16), (255, 0, 0)).save(bmp, "BMP")
    corpus.add("error-bmp-data-named.jpg", bmp.getvalue(), what="a valid 16×16 BMP named .jpg",
               exercises="a real image in an unsupported format", expect=UNSUPPORTED_FORMAT)


# ---------------------------------------------------------------------------------------
# Colour management: ICC profiles written byte by byte (ICC v2), so they do not depend on
# a CMS version, and files tagged with them
# ---------------------------------------------------------------------------------------

D50 = (0.9642, 1.0, 0.8249)
# sRGB's red, green and blue colorants adapted to D50 (Bradford), as in real sRGB profiles.
SRGB_COLORANTS = ((0.4360747, 0.2225045, 0.0139322), (0.3850649, 0.7168786, 0.0971045),
                  (0.1430804, 0.0606169, 0.7141733))
ICC_DATE = (2026, 1, 1, 0, 0, 0)  # fixed, so the profiles are reproducible


def srgb_to_linear(v):
    return v / 12.92 if v <= 0.04045 else ((v + 0.055) / 1.055) ** 2.4


def linear_to_srgb(v):
    return 12.92 * v if v <= 0.0031308 else 1.055 * v ** (1 / 2.4) - 0.055


def s15fixed16(value):
    return struct.pack(">i", round(value * 65536))


def icc_xyz(xyz):
    return b"XYZ " + bytes(4) + b"".join(s15fixed16(v) for v in xyz)


def icc_description(text):
    """textDescriptionType: ASCII only (no Unicode or ScriptCode text)."""
    ascii_text = text.encode("ascii") + b"\0"
    return (b"desc" + bytes(4) + struct.pack(">I", len(ascii_text)) + ascii_text + struct.pack(">IIHB", 0, 0, 0, 0)
            + bytes(67))


def icc_curve(entries):
    """curveType: no entries is the identity, one is a gamma (u8Fixed8), more are a table."""
    return b"curv" + bytes(4) + struct.pack(">I%dH" % len(entries), len(entries), *entries)


SRGB_CURVE = icc_curve([round(65535 * srgb_to_linear(i / 1023)) for i in range(1024)])


def icc_profile(device_class, space, description, tags):
    """A v2 profile with PCS XYZ: header, tag table, tags (equal tag data is stored once)."""
    tags = [(b"desc", icc_description(description)),
            (b"cprt", b"text" + bytes(4) + b"No copyright: a Thumbnailer test profile, use freely\0"),
            (b"wtpt", icc_xyz(D50))] + tags
    start = 128 + 4 + 12 * len(tags)
    table, body, placed = bytearray(struct.pack(">I", len(tags))), bytearray(), {}
    for signature, data in tags:
        if data not in placed:
            placed[data] = start + len(body)
            body += data + bytes(-len(data) % 4)
        table += signature + struct.pack(">II", placed[data], len(data))
    header = bytearray(128)
    struct.pack_into(">I4sI4s4s4s6H4s", header, 0, 128 + len(table) + len(body), b"", 0x02100000, device_class,
                     space, b"XYZ ", *ICC_DATE, b"acsp")
    header[68:80] = b"".join(s15fixed16(v) for v in D50)
    return bytes(header + table + body)


def rgb_matrix_profile(description, colorants):
    red, green, blue = colorants
    return icc_profile(b"mntr", b"RGB ", description,
                       [(b"rXYZ", icc_xyz(red)), (b"gXYZ", icc_xyz(green)), (b"bXYZ", icc_xyz(blue)),
                        (b"rTRC", SRGB_CURVE), (b"gTRC", SRGB_CURVE), (b"bTRC", SRGB_CURVE)])


def srgb_to_xyz_d50(rgb):
    linear = [srgb_to_linear(v) for v in rgb]
    return tuple(sum(linear[i] * SRGB_COLORANTS[i][axis] for i in range(3)) for axis in range(3))


def swapped_inks_to_xyz(c, m, y, k):
    """The CMYK profile's inks: the usual (1 − ink)(1 − K) RGB, but cyan acts as magenta and
    magenta as cyan."""
    return srgb_to_xyz_d50(((1 - m) * (1 - k), (1 - c) * (1 - k), (1 - y) * (1 - k)))


def cmyk_lut_profile(description, grid):
    """An output-class CMYK profile with one lut16 A2B0 tag: identity matrix and curves,
    a grid^4 table of XYZ (u1Fixed15, 0x8000 = 1.0)."""
    steps = [i / (grid - 1) for i in range(grid)]
    table = [min(65535, round(v * 32768)) for c in steps for m in steps for y in steps for k in steps
             for v in swapped_inks_to_xyz(c, m, y, k)]
    lut = (b"mft2" + bytes(4) + struct.pack(">BBBB", 4, 3, grid, 0)
           + b"".join(s15fixed16(v) for v in (1, 0, 0, 0, 1, 0, 0, 0, 1)) + struct.pack(">HH", 2, 2)
           + struct.pack(">8H", *[0, 65535] * 4) + struct.pack(">%dH" % len(table), *table)
           + struct.pack(">6H", *[0, 65535] * 3))
    return icc_profile(b"prtr", b"CMYK", description, [(b"A2B0", lut)])


SWAPPED_PROFILE = rgb_matrix_profile("Thumbnailer test: red and green swapped",
                                     (SRGB_COLORANTS[1], SRGB_COLORANTS[0], SRGB_COLORANTS[2]))
GRAY_LINEAR_PROFILE = icc_profile(b"mntr", b"GRAY", "Thumbnailer test: linear gray", [(b"kTRC", icc_curve([]))])
CMYK_SWAPPED_PROFILE = cmyk_lut_profile("Thumbnailer test: cyan and magenta swapped", 9)
BROKEN_PROFILE = b"not an ICC profile: " + bytes(range(256)) * 2  # no header LittleCMS or libpng accepts

COLOR_BLOCKS = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0),
                (255, 255, 255), (128, 128, 128), (0, 0, 0), (200, 100, 50)]
GRAY_BLOCKS = [0, 32, 64, 96, 128, 160, 192, 255]


def block_picture(width, height, colours, mode="RGB"):
    """4 × 2 blocks, row-major, of the given colours (or gray levels)."""
    image = Image.new(mode, (width, height))
    for index, colour in enumerate(colours):
        x, y = (index % 4) * width // 4, (index // 4) * height // 2
        image.paste(colour, (x, y, x + width // 4, y + height // 2))
    return image


def block_centres(image):
    width, height = image.size
    return [image.getpixel(((i % 4) * width // 4 + width // 8, (i // 4) * height // 2 + height // 4))
            for i in range(8)]


def icc_app2_segments(profile, pieces):
    """The profile as APP2 ICC_PROFILE segments, split into `pieces` parts; (sequence, segment)."""
    size = -(-len(profile) // pieces)
    parts = [profile[i:i + size] for i in range(0, len(profile), size)]
    assert len(parts) == pieces
    return [(number, marker_segment(0xE2, b"ICC_PROFILE\0" + bytes((number, pieces)) + part))
            for number, part in enumerate(parts, 1)]


def insert_after_sof(jpeg, segment):
    sof = next(s for s in jpeg_segments(jpeg) if s[0] in (0xC0, 0xC1, 0xC2))
    return jpeg[:sof[3]] + segment + jpeg[sof[3]:]


def png_with_chunks(image, extra):
    """`image` (RGB or L) as a PNG with `extra` chunks [(type, payload)] before IDAT."""
    colour_type = 2 if image.mode == "RGB" else 0
    width, height = image.size
    data = image.tobytes()
    channels = 3 if colour_type == 2 else 1
    rows = [[tuple(data[(y * width + x) * channels:(y * width + x + 1) * channels]) for x in range(width)]
            for y in range(height)]
    chunks = png_chunk_list(width, height, colour_type, 8, rows, adaptive=True)
    return assemble_png(chunks[:1] + extra + chunks[1:])


def iccp_chunk(name, profile):
    return (b"iCCP", name + b"\0\0" + zlib.compress(profile, 9))


def cms_transform_to_srgb(profile, mode, output_mode="RGB"):
    return ImageCms.buildTransform(ImageCms.ImageCmsProfile(io.BytesIO(profile)), ImageCms.createProfile("sRGB"),
                                   mode, output_mode, ImageCms.Intent.RELATIVE_COLORIMETRIC)


def embedded_profile(data):
    """A PNG's iCCP profile (as Pillow reads it), or a JPEG's ICC_PROFILE markers joined in
    sequence order wherever they are before SOS (Pillow 9 drops markers after SOF)."""
    if data.startswith(PNG_SIGNATURE):
        return pillow_open(data).info.get("icc_profile")
    pieces = {}
    for marker, start, header_end, _ in jpeg_segments(data):
        if marker == 0xDA:
            break
        payload = data[start + 4:header_end]
        if marker == 0xE2 and payload.startswith(b"ICC_PROFILE\0"):
            pieces[payload[12]] = payload[14:]
    return b"".join(pieces[number] for number in sorted(pieces)) if pieces else None


def check_converted_blocks(profile, expected, tolerance):
    """Pillow decodes the file; LittleCMS (Pillow's ImageCms) converts it from the embedded
    profile, which must be `profile`, to sRGB; the block centres must be `expected` ± tolerance."""
    def check(data):
        image = pillow_open(data)
        assert embedded_profile(data) == profile, "the embedded profile differs"
        mode = image.mode if image.mode in ("CMYK", "L") else "RGB"
        converted = ImageCms.applyTransform(image.convert(mode), cms_transform_to_srgb(profile, mode))
        centres = block_centres(converted)
        delta = max(max_delta(a, b) for a, b in zip(centres, expected))
        assert delta <= tolerance, "block centres %s, expected %s" % (centres, expected)
        return "LittleCMS (Pillow ImageCms) from the embedded profile: block centres max |Δ| vs table %d" % delta
    return check


def check_unusable_profile(reason):
    """LittleCMS must refuse the embedded profile (or, for a mismatch, the image's mode)."""
    def check(data):
        image = pillow_open(data)
        profile = embedded_profile(data)
        try:
            cms_transform_to_srgb(profile, "RGB" if image.mode == "RGB" else image.mode)
        except Exception as error:  # the refusal is what this check wants to see
            return "LittleCMS (Pillow ImageCms) refuses it: %s" % str(error).strip()
        raise AssertionError("LittleCMS accepted a profile meant to be unusable (%s)" % reason)
    return check


def make_color(corpus):
    corpus.section("Colour management (ICC profiles, PNG gAMA)",
                   "4×2 blocks (tables under Pixel formulas) tagged with the test profiles described there. "
                   "The check converts each file with LittleCMS through Pillow's ImageCms, independently of "
                   "the decoder.")
    swapped = [(g, r, b) for r, g, b in COLOR_BLOCKS]
    picture = block_picture(128, 64, COLOR_BLOCKS)
    baseline = cjpeg(["-quality", "100", "-sample", "1x1"], pnm(128, 64, picture.tobytes(), 3))
    rgb_header = header_facts(128, 64, components=3)
    single = icc_app2_segments(SWAPPED_PROFILE, 1)[0][1]
    corpus.add("icc-jpeg-swapped-red-green-128x64.jpg", insert_after_app0(baseline, single),
               what="JPEG 4:4:4 q100 colour blocks, one APP2 ICC_PROFILE marker: the red/green-swapped RGB profile",
               exercises="embedded ICC profile: a converted thumbnail shows each block with red and green swapped",
               expect=DECODES, header=rgb_header, check=check_converted_blocks(SWAPPED_PROFILE, swapped, 3))

    pieces = dict(icc_app2_segments(SWAPPED_PROFILE, 3))
    # Marker 3, then 1, before the frame; marker 2 after SOF: order in the file is not sequence order.
    split = insert_after_sof(insert_after_app0(baseline, pieces[3] + pieces[1]), pieces[2])
    corpus.add("icc-jpeg-swapped-three-markers-128x64.jpg", split,
               what="the same JPEG with the profile split over 3 APP2 markers, stored as 3, 1 (before SOF), 2 (after SOF)",
               exercises="profile reassembly by sequence number, including a marker between SOF and SOS; "
                         "converts exactly like the one-marker file",
               expect=DECODES, header=rgb_header, check=check_converted_blocks(SWAPPED_PROFILE, swapped, 3))
    misnumbered = pieces[2][:16] + b"\0" + pieces[2][17:]  # sequence number 0: invalid

    def check_numbering(data):
        numbers = [(data[start + 16], data[start + 17]) for marker, start, _, _ in jpeg_segments(data)
                   if marker == 0xE2 and data[start + 4:start + 16] == b"ICC_PROFILE\0"]
        assert numbers == [(3, 3), (1, 3), (0, 3)], numbers
        return "ICC_PROFILE markers numbered %s" % ", ".join("%d of %d" % n for n in numbers)

    corpus.add("icc-jpeg-misnumbered-marker-128x64.jpg",
               insert_after_sof(insert_after_app0(baseline, pieces[3] + pieces[1]), misnumbered),
               what="as the three-marker file, but the marker after SOF is numbered 0 of 3",
               exercises="a bad ICC_PROFILE sequence number: the profile is ignored with a note, the decode succeeds",
               expect=DECODES, header=rgb_header, check=check_numbering)
    corpus.add("icc-jpeg-broken-profile-128x64.jpg",
               insert_after_app0(baseline, icc_app2_segments(BROKEN_PROFILE, 1)[0][1]),
               what="the colour-block JPEG with one ICC_PROFILE marker holding %d bytes that are no profile"
                    % len(BROKEN_PROFILE),
               exercises="an unparsable profile is ignored with a note; the pixels stay as stored",
               expect=DECODES, header=rgb_header, check=check_unusable_profile("not a profile"))

    big = block_picture(512, 256, COLOR_BLOCKS)
    progressive = cjpeg(["-quality", "90", "-sample", "2x2", "-progressive"], pnm(512, 256, big.tobytes(), 3))
    corpus.add("icc-jpeg-progressive-swapped-512x256.jpg", insert_after_app0(progressive, single),
               what="JPEG progressive 4:2:0 q90, colour blocks of 128×128, the red/green-swapped profile",
               exercises="the profile on the DC-only path (a 64×32 box decodes at 1/8): the same colours as libjpeg's",
               expect=DECODES, header=header_facts(512, 256, components=3, progressive=True),
               check=check_converted_blocks(SWAPPED_PROFILE, swapped, 6))

    gray = block_picture(128, 64, GRAY_BLOCKS, mode="L")
    gray_jpeg = cjpeg(["-quality", "100"], pnm(128, 64, gray.tobytes(), 1))
    gray_header = header_facts(128, 64, components=1)
    linear = [(level,) * 3 for level in (round(255 * linear_to_srgb(v / 255)) for v in GRAY_BLOCKS)]
    corpus.add("icc-jpeg-gray-linear-128x64.jpg",
               insert_after_app0(gray_jpeg, icc_app2_segments(GRAY_LINEAR_PROFILE, 1)[0][1]),
               what="JPEG grayscale q100, gray blocks, tagged with a linear (gamma 1.0) gray profile",
               exercises="a gray profile on a gray image: each level v becomes 255·sRGB(v/255) (128 → 188)",
               expect=DECODES, header=gray_header, check=check_converted_blocks(GRAY_LINEAR_PROFILE, linear, 2))
    corpus.add("icc-jpeg-gray-with-rgb-profile-128x64.jpg", insert_after_app0(gray_jpeg, single),
               what="JPEG grayscale q100, gray blocks, tagged with the (RGB) red/green-swapped profile",
               exercises="a profile for another colour space: ignored with a note",
               expect=DECODES, header=gray_header, check=check_unusable_profile("RGB profile on gray"))

    inks = Image.new("CMYK", (128, 64))
    for index, (ink, _) in enumerate(CMYK_BLOCKS):
        x, y = (index % 4) * 32, (index // 4) * 32
        inks.paste(ink, (x, y, x + 32, y + 32))
    buffer = io.BytesIO()
    inks.save(buffer, "JPEG", quality=100, subsampling=0, icc_profile=CMYK_SWAPPED_PROFILE)
    cmyk = buffer.getvalue()
    cmyk_expected = [(r, g, b) for (c, m, y, k), _ in CMYK_BLOCKS
                     for r, g, b in [tuple(round(255 * v) for v in ((1 - m / 255) * (1 - k / 255),
                                                                     (1 - c / 255) * (1 - k / 255),
                                                                     (1 - y / 255) * (1 - k / 255)))]]
    corpus.add("icc-jpeg-cmyk-swapped-inks-128x64.jpg", cmyk,
               what="the CMYK blocks of jpeg-cmyk-adobe-blocks-128x64.jpg (Adobe, inverted) tagged with a CMYK "
                    "profile (lut16, 9⁴ grid) in which cyan and magenta inks act the other way round",
               exercises="CMYK through the filter as inks, then CMYK → sRGB by the profile: the cyan block comes "
                         "out magenta, C+Y red (without the profile: cyan, green)",
               expect=DECODES, header=header_facts(128, 64, components=4),
               check=check_converted_blocks(CMYK_SWAPPED_PROFILE, cmyk_expected, 4))
    corpus.add("icc-jpeg-progressive-cmyk-swapped-inks-128x64.jpg", jpegtran(["-progressive", "-copy", "all"], cmyk),
               what="the CMYK file above made progressive by jpegtran (markers copied)",
               exercises="CMYK inks kept on the DC-only path (a 16×8 box decodes at 1/8)",
               expect=DECODES, header=header_facts(128, 64, components=4, progressive=True),
               check=check_converted_blocks(CMYK_SWAPPED_PROFILE, cmyk_expected, 4))

    corpus.add("icc-png-swapped-red-green-128x64.png",
               png_with_chunks(picture, [iccp_chunk(b"swapped", SWAPPED_PROFILE)]),
               what="PNG RGB colour blocks with an iCCP chunk: the red/green-swapped profile",
               exercises="iCCP: the converted thumbnail shows red and green swapped",
               expect=DECODES, header=png_header_facts(128, 64, 2, 8),
               check=check_converted_blocks(SWAPPED_PROFILE, swapped, 1))
    corpus.add("icc-png-broken-profile-128x64.png",
               png_with_chunks(picture, [iccp_chunk(b"broken", BROKEN_PROFILE)]),
               what="PNG RGB colour blocks with an iCCP chunk whose (valid zlib) data is no profile",
               exercises="libpng drops the profile with a warning: ignored with a note, pixels as stored",
               expect=DECODES, header=png_header_facts(128, 64, 2, 8), check=check_unusable_profile("not a profile"))
    linear_colours = [tuple(round(255 * linear_to_srgb(v / 255)) for v in colour) for colour in COLOR_BLOCKS]

    def check_gamma(data):
        image = pillow_open(data)
        assert image.info.get("gamma") == 1.0 and block_centres(image) == COLOR_BLOCKS
        return "Pillow: gamma 1.0, pixels = the block table (it does not apply gAMA)"

    corpus.add("png-gamma-1.0-blocks-128x64.png",
               png_with_chunks(picture, [(b"gAMA", struct.pack(">I", 100000))]),
               what="PNG RGB colour blocks with gAMA 1.0 (linear samples), no iCCP, sRGB or cHRM",
               exercises="a gAMA far from 1/2.2: each sample v becomes 255·sRGB(v/255) (block centres: %s)"
                         % ", ".join(str(c) for c in linear_colours),
               expect=DECODES, header=png_header_facts(128, 64, 2, 8), check=check_gamma)

def wallpaper_licence(file_name):
    """(copyright line, licence) for <release>/<file_name> from the Debian copyright file."""
    for paragraph in WALLPAPER_COPYRIGHT.read_text().split("\n\n"):
        fields = dict(line.split(": ", 1) for line in paragraph.splitlines() if ": " in line and line[0] != " ")
        if fields.get("Files", "").split("/")[-1] == file_name:
            return fields["Copyright"], fields["License"]
    raise SystemExit("no licence paragraph for " + file_name)


PHOTO_LICENCE = "CC-BY-4.0"  # the project accepts CC0 or CC BY only; asserted per photo below
PHOTO_LICENCE_TEXT = "CC BY 4.0 (https://creativecommons.org/licenses/by/4.0/)"
PHOTOS = {  # key: (file under /usr/share/backgrounds, title, what it shows)
    "aitzgorri": ("aitzgorri_by_Aitzol_Berasategi.jpg", "aitzgorri", "autumn hillside below a mountain ridge"),
    "picosdeeuropa": ("picosdeeuropa_by_Aitzol_Berasategi.jpg", "picosdeeuropa",
                      "path through a meadow to rocky peaks, blue sky"),
    "sunset": ("sunset_by_Aitzol_Berasategi.jpg", "sunset", "sun low over hills"),
    "life": ("life_by_Aitzol_Berasategi.jpg", "life", "stream over rocks in a forest"),
    "friends": ("friends_by_Aitzol_Berasategi.jpg", "friends", "two dogs at a cabin window"),
}


def photo_credit(corpus, name, key, changes):
    """The credit line for a file derived from photo `key` (changes: what was done to it);
    also recorded for the README."""
    credit = wallpaper_credit(key, changes)
    corpus.credits.append((name, credit))
    return credit


def wallpaper_credit(key, changes):
    file_name, title, _ = PHOTOS[key]
    holder, licence = wallpaper_licence(file_name)
    assert licence == PHOTO_LICENCE, "%s is %s, not %s" % (file_name, licence, PHOTO_LICENCE)
    return "\"%s\" © %s, %s; %s from %s in Debian lomiri-wallpapers-20.04" % (
        title, holder, PHOTO_LICENCE_TEXT, changes, file_name)


def load_photo(key, size):
    """The photo scaled (Lanczos) to exactly `size`."""
    return Image.open(BACKGROUNDS / PHOTOS[key][0]).convert("RGB").resize(size, Image.LANCZOS)


def coefficient_buffer_mib(width, height):
    """libjpeg's whole-image coefficient buffer for 4:2:0 (JBLOCK = 64 × 2 bytes)."""
    luma = math.ceil(width / 16) * 2 * math.ceil(height / 16) * 2
    return (luma + 2 * luma // 4) * 128 / 2 ** 20


def add_photo_jpeg(corpus, name, key, image, arguments, what, exercises, changes="scaled and re-encoded"):
    comment = marker_segment(0xFE, photo_credit(corpus, name, key, changes).encode("utf-8"))
    width, height = image.size
    progressive = "-progressive" in arguments
    corpus.add(name, insert_after_app0(cjpeg(arguments, pnm(width, height, image.tobytes(), 3)), comment),
               what=what, exercises=exercises, expect=DECODES,
               header=header_facts(width, height, components=3, progressive=progressive),
               check=lambda data: "Pillow size %dx%d" % pillow_open(data).size)


def vignette(width, height):
    """Alpha 255 inside half the normalised radius, falling linearly to 0 at the corners."""
    cx, cy = (width - 1) / 2, (height - 1) / 2
    values = bytearray()
    for y in range(height):
        for x in range(width):
            d = math.hypot((x - cx) / cx, (y - cy) / cy) / math.sqrt(2)
            values.append(round(255 * min(1.0, max(0.0, (1 - d) / 0.5))))
    return Image.frombytes("L", (width, height), bytes(values))


def make_photos(corpus):
    corpus.section("Photos", "Real photographs (CC BY 4.0, see Photo credits) for realistic sizes and entropy.")
    size = (3000, 1998)  # from 3088×2056
    add_photo_jpeg(corpus, "photo-aitzgorri-baseline-%dx%d.jpg" % size, "aitzgorri", load_photo("aitzgorri", size),
                   ["-quality", "85"],
                   what="JPEG baseline 4:2:0 q85 %d×%d photo (%s), COM marker with credit"
                        % (size + (PHOTOS["aitzgorri"][2],)),
                   exercises="large baseline decode at DCT scale 1/8 then area filter; realistic entropy")

    size = (2048, 1536)  # from 3264×2448
    add_photo_jpeg(corpus, "photo-picosdeeuropa-progressive-%dx%d.jpg" % size, "picosdeeuropa",
                   load_photo("picosdeeuropa", size), ["-quality", "90", "-progressive"],
                   what="JPEG progressive 4:2:0 q90 %d×%d photo (%s), COM marker with credit"
                        % (size + (PHOTOS["picosdeeuropa"][2],)),
                   exercises="large progressive decode: whole-image coefficient buffer (%.0f MiB; refused as "
                             "tooLarge when max_decoder_memory is below that), scan skipping"
                             % coefficient_buffer_mib(*size))

    size = (1024, 683)  # from 4272×2848
    small = load_photo("sunset", size)
    small.putalpha(vignette(*size))
    name = "photo-sunset-rgba-vignette-%dx%d.png" % size
    info = PngImagePlugin.PngInfo()
    info.add_text("Copyright", photo_credit(corpus, name, "sunset", "scaled, given an alpha vignette and "
                                                                     "re-encoded as PNG"))
    buffer = io.BytesIO()
    small.save(buffer, "PNG", compress_level=9, pnginfo=info)
    corpus.add(name, buffer.getvalue(),
               what="PNG RGBA 8-bit %d×%d (Pillow encoder), photo (%s) with a soft alpha vignette: opaque "
                    "centre, alpha → 0 at the corners" % (size + (PHOTOS["sunset"][2],)),
               exercises="large non-interlaced RGBA, premultiplied filtering of real data",
               expect=DECODES, header=png_header_facts(*size, 6, 8),
               check=check_png_pixels(list(small.getdata())))

    crop = load_photo("life", (721, 480)).crop((40, 0, 680, 480))  # from 3088×2056
    rows = [[crop.getpixel((x, y)) for x in range(640)] for y in range(480)]
    name = "photo-life-adam7-rgb-640x480.png"
    corpus.add(name,
               encode_png(640, 480, 2, 8, rows, interlace=True, adaptive=True,
                          text=[("Copyright", photo_credit(corpus, name, "life",
                                                           "scaled, cropped and re-encoded as PNG"))]),
               what="PNG RGB 8-bit 640×480 Adam7 (adaptive filters), crop of a photo (%s)" % PHOTOS["life"][2],
               exercises="larger Adam7 image: sparse resampler over the whole output; libpng interlace memory path",
               expect=DECODES, header=png_header_facts(640, 480, 2, 8, interlace=True),
               check=check_png_pixels([p + (255,) for row in rows for p in row]))

    size = (1000, 1502)  # from 2056×3088
    add_photo_jpeg(corpus, "photo-friends-portrait-%dx%d.jpg" % size, "friends", load_photo("friends", size),
                   ["-quality", "90"],
                   what="JPEG baseline 4:2:0 q90 %d×%d portrait photo (%s), stored upright (no EXIF), COM marker "
                        "with credit" % (size + (PHOTOS["friends"][2],)),
                   exercises="portrait aspect ratio: fitting a tall image into the box (height-limited); "
                             "a portrait for demo feeds")


# ---------------------------------------------------------------------------------------
# AVIF, HEIC and JPEG XL
# ---------------------------------------------------------------------------------------

MODERN_ENCODERS = {"avifenc": "libavif-bin", "avifdec": "libavif-bin", "heif-enc": "libheif-examples",
                   "heif-convert": "libheif-examples", "cjxl": "libjxl-tools", "djxl": "libjxl-tools"}


def encode_with(tool, image, arguments, suffix):
    """`image` (Pillow) written as PNG, encoded by `tool` with `arguments` into a file ending in `suffix`."""
    with tempfile.TemporaryDirectory() as directory:
        source, output = Path(directory) / "source.png", Path(directory) / ("output" + suffix)
        image.save(source, "PNG")
        if tool == "heif-enc":
            command = [tool, *arguments, str(source), "-o", str(output)]
        else:
            command = [tool, *arguments, str(source), str(output)]
        subprocess.run(command, check=True, capture_output=True, timeout=300)
        return output.read_bytes()


def encode_png_with(tool, png, arguments, suffix):
    """PNG bytes (a 16-bit one, which Pillow cannot write) encoded by `tool` into a file ending in `suffix`."""
    with tempfile.TemporaryDirectory() as directory:
        source, output = Path(directory) / "source.png", Path(directory) / ("output" + suffix)
        source.write_bytes(png)
        subprocess.run([tool, *arguments, str(source), "-o", str(output)], check=True, capture_output=True, timeout=300)
        return output.read_bytes()


def encode_sequence(images, arguments):
    """An AVIS sequence of `images` (Pillow), one frame each, by avifenc."""
    with tempfile.TemporaryDirectory() as directory:
        sources = []
        for index, image in enumerate(images):
            sources.append(str(Path(directory) / ("frame%d.png" % index)))
            image.save(sources[-1], "PNG")
        output = Path(directory) / "sequence.avif"
        subprocess.run(["avifenc", *arguments, *sources, str(output)], check=True, capture_output=True, timeout=300)
        return without_timestamps(output.read_bytes())


def without_timestamps(data):
    """A sequence's movie, track and media headers (mvhd, tkhd, mdhd) with their creation and
    modification times set to 0, so that the file is the same whenever it is made."""
    patched = bytearray(data)
    for kind in (b"mvhd", b"tkhd", b"mdhd"):
        position = patched.find(kind)
        while position > 0:
            width = 8 if patched[position + 4] == 1 else 4  # version 1 has 64-bit times
            patched[position + 8:position + 8 + 2 * width] = bytes(2 * width)
            position = patched.find(kind, position + 4)
    return bytes(patched)


def reference_decode(data, suffix):
    """The format's own decoder (avifdec, heif-convert, djxl) to a Pillow RGBA image."""
    tool = {".avif": "avifdec", ".heic": "heif-convert", ".jxl": "djxl"}[suffix]
    with tempfile.TemporaryDirectory() as directory:
        source, output = Path(directory) / ("input" + suffix), Path(directory) / "output.png"
        source.write_bytes(data)
        subprocess.run([tool, str(source), str(output)], check=True, capture_output=True, timeout=300)
        return Image.open(output).convert("RGBA")


def psnr(first, second):
    """PSNR in dB over the RGB samples of two equal-sized Pillow images (inf when equal)."""
    a, b = first.convert("RGB").tobytes(), second.convert("RGB").tobytes()
    assert len(a) == len(b), "sizes differ: %s and %s" % (first.size, second.size)
    squared = sum((x - y) ** 2 for x, y in zip(a, b)) / len(a)
    return math.inf if squared == 0 else 10 * math.log10(255 ** 2 / squared)


def check_reference_close(source, suffix, minimum_db, size=None):
    """The reference decoder's pixels are within minimum_db PSNR of the picture that was encoded
    (size: the picture the reference shows, when transforms change it)."""
    def check(data):
        decoded = reference_decode(data, suffix)
        assert decoded.size == (size or source.size), "reference decoder gave %s" % (decoded.size,)
        db = psnr(decoded, source) if size is None else None
        assert db is None or db >= minimum_db, "reference decode only %.1f dB from the source" % db
        tool = {".avif": "avifdec", ".heic": "heif-convert", ".jxl": "djxl"}[suffix]
        return "%s: %d×%d%s" % (tool, *decoded.size, "" if db is None else
                                 ", %s dB from the encoded picture" % ("∞" if db == math.inf else "%.1f" % db))
    return check


def bmff_boxes(data, start=0, end=None):
    """(type, start, payload start, end) of each ISO-BMFF box in data[start:end]."""
    end = len(data) if end is None else end
    boxes = []
    while start + 8 <= end:
        size, kind = struct.unpack(">I4s", data[start:start + 8])
        header = 8
        if size == 1:
            size, header = struct.unpack(">Q", data[start + 8:start + 16])[0], 16
        elif size == 0:
            size = end - start
        boxes.append((kind.decode("latin-1"), start, start + header, start + size))
        start += size
    return boxes


def patch_ispe(data, width, height):
    """Every `ispe` property in the file set to width × height (the pixels stay as they were)."""
    patched = bytearray(data)
    position = patched.find(b"ispe")
    assert position > 0, "no ispe box"
    while position > 0:
        patched[position + 8:position + 16] = struct.pack(">II", width, height)
        position = patched.find(b"ispe", position + 4)
    return bytes(patched)


def modern_header(width, height, *, components=3, bit_depth=8, has_alpha=False, orientation=1):
    return header_facts(width, height, components=components + (1 if has_alpha else 0), bit_depth=bit_depth,
                        has_alpha=has_alpha, orientation=orientation)


def photo_with_credit(corpus, name, key, size, changes):
    image = photo_crop(key, size)
    photo_credit(corpus, name, key, changes)
    return image


def make_avif(corpus):
    corpus.section("AVIF",
                   "Encoded by avifenc (libavif 0.11.1 with libaom in Debian 12) at speed 6 from the photos, the "
                   "gradient and the marker picture; each file is checked by avifdec against the picture encoded.")
    produced = {}
    quality = ["-s", "6", "-j", "1", "--min", "10", "--max", "24"]
    name = "avif-photo-420-1024x683.avif"
    photo = photo_with_credit(corpus, name, "aitzgorri", (1024, 683), "scaled, cropped and encoded as AVIF")
    produced["avif-photo"] = corpus.add(
        name, encode_with("avifenc", photo, [*quality, "-y", "420"], ".avif"),
        what="AVIF 8-bit 4:2:0, 1024×683 photo (%s)" % PHOTOS["aitzgorri"][2],
        exercises="the common web AVIF: YUV rows converted into the area filter, no RGB frame",
        expect=DECODES, header=modern_header(1024, 683), check=check_reference_close(photo, ".avif", 30))

    w, h = 256, 192
    smooth = Image.frombytes("RGB", (w, h), gradient(w, h))
    corpus.add("avif-gradient-444-10bit-256x192.avif", encode_with("avifenc", smooth, [*quality, "-y", "444", "-d", "10"], ".avif"),
               what="AVIF 10-bit 4:4:4 of the gradient, 256×192",
               exercises="samples above 8 bits (uint16 planes) and unsubsampled chroma",
               expect=DECODES, header=modern_header(w, h, bit_depth=10), check=check_reference_close(smooth, ".avif", 40))

    with_alpha = smooth.copy()
    with_alpha.putalpha(vignette(w, h))
    corpus.add("avif-alpha-vignette-256x192.avif", encode_with("avifenc", with_alpha, [*quality, "-y", "420"], ".avif"),
               what="AVIF 8-bit 4:2:0 with an alpha item: the gradient under a vignette (opaque centre, transparent corners)",
               exercises="the auxiliary alpha image, filtered premultiplied", expect=DECODES,
               header=modern_header(w, h, has_alpha=True), check=check_reference_close(with_alpha, ".avif", 35))

    name = "avif-grid-2x2-512x384.avif"
    grid_photo = photo_with_credit(corpus, name, "picosdeeuropa", (512, 384), "scaled, cropped and encoded as AVIF")
    corpus.add(name, encode_with("avifenc", grid_photo, [*quality, "-y", "420", "--grid", "2x2"], ".avif"),
               what="AVIF grid of 2×2 tiles (256×192 each) making a 512×384 photo (%s)" % PHOTOS["picosdeeuropa"][2],
               exercises="a grid image: tiles assembled by libavif, the grid's size from its header",
               expect=DECODES, header=modern_header(512, 384), check=check_reference_close(grid_photo, ".avif", 30))

    upright = marker_picture()
    display, inverse = exif_transposes()
    # irot 1 turns the stored picture 90° anticlockwise for display: EXIF orientation 8.
    stored = upright.transpose(inverse[8])
    corpus.add("avif-irot-90-anticlockwise-64x96.avif", encode_with("avifenc", stored, [*quality, "-y", "444", "--irot", "1"], ".avif"),
               what="AVIF 4:4:4 of the marker picture stored turned (%s), 64×96, with irot angle 1 (90° anticlockwise)"
                    % where_blocks_are(stored),
               exercises="irot as orientation 8: displayed upright, 96×64", expect=DECODES,
               header=modern_header(64, 96, orientation=8), check=check_reference_close(stored, ".avif", 30))
    stored = upright.transpose(inverse[2])
    corpus.add("avif-imir-left-right-96x64.avif", encode_with("avifenc", stored, [*quality, "-y", "444", "--imir", "1"], ".avif"),
               what="AVIF 4:4:4 of the marker picture stored mirrored left to right (%s), 96×64, with imir axis 1"
                    % where_blocks_are(stored),
               exercises="imir as orientation 2: displayed upright", expect=DECODES,
               header=modern_header(96, 64, orientation=2), check=check_reference_close(stored, ".avif", 30))

    corpus.add("avif-nclx-p3-gradient-256x192.avif",
               encode_with("avifenc", smooth, [*quality, "-y", "444", "--cicp", "12/13/6"], ".avif"),
               what="AVIF 4:4:4 of the gradient tagged Display P3 (nclx primaries 12, sRGB transfer, BT.601 matrix)",
               exercises="nclx colour: P3 primaries converted to sRGB (saturated colours move inwards)",
               expect=DECODES, header=modern_header(w, h), check=check_reference_close(smooth, ".avif", 35))
    corpus.add("avif-nclx-bt2020-pq-gradient-256x192.avif",
               encode_with("avifenc", smooth, [*quality, "-y", "444", "--cicp", "9/16/9"], ".avif"),
               what="AVIF 4:4:4 of the gradient tagged BT.2020 with the PQ (HDR) transfer",
               exercises="HDR transfer functions are not tone-mapped: the colour report says so, pixels as decoded",
               expect=DECODES, header=modern_header(w, h))

    aw, ah = 128, 96
    first = Image.frombytes("RGB", (aw, ah), gradient(aw, ah))
    corpus.add("avif-sequence-2-frames-128x96.avif",
               encode_sequence([first, ImageOps.invert(first)], [*quality, "-y", "420"]),
               what="AVIS image sequence of two frames: the gradient, then its inverse (avifenc 0.11 gives a "
                    "sequence an opaque alpha track)",
               exercises="a sequence shows its first frame (the gradient, not its inverse)", expect=DECODES,
               header=modern_header(aw, ah, has_alpha=True), check=check_reference_close(first, ".avif", 32))

    photo_bytes = produced["avif-photo"]
    corpus.add("avif-error-truncated-half.avif", photo_bytes[:len(photo_bytes) // 2],
               what="avif-photo-420-1024x683.avif cut at half its %d bytes, inside the AV1 data" % len(photo_bytes),
               exercises="data ends before the image does: truncated", expect=TRUNCATED, header=None)
    corpus.add("avif-error-bomb-ispe-65535x65535.avif", patch_ispe(photo_bytes, 65535, 65535),
               what="avif-photo-420-1024x683.avif with its ispe property claiming 65535×65535",
               exercises="the size from the header is refused before any pixel memory exists", expect=TOO_LARGE,
               header=None)


def heif_full_box(kind, version, flags, payload):
    return struct.pack(">I4sI", 12 + len(payload), kind, version << 24 | flags) + payload


def heif_box(kind, payload):
    return struct.pack(">I4s", 8 + len(payload), kind) + payload


def heif_items(data):
    """The items of a HEIF file as libheif writes it: {id: {"type", "hidden", "properties":
    [(property box, essential)] in association order, "data"}}, the primary's id, and the
    references {(type, from): [to, …]}. Parsed from the boxes (iinf, iloc, iprp, iref, idat),
    versions and field sizes as each box declares them."""
    meta = next(b for b in bmff_boxes(data) if b[0] == "meta")
    parts = {kind: (payload, end) for kind, _, payload, end in bmff_boxes(data, meta[2] + 4, meta[3])}
    items, references = {}, {}

    def number(position, size):
        return int.from_bytes(data[position:position + size], "big"), position + size

    payload, end = parts["pitm"]
    primary = number(payload + 4, 4 if data[payload] else 2)[0]
    payload, end = parts["iinf"]
    start = payload + 4 + (2 if data[payload] == 0 else 4)
    for kind, _, body, _ in bmff_boxes(data, start, end):
        assert kind == "infe" and data[body] in (2, 3), "infe version %d" % data[body]
        item, p = number(body + 4, 2 if data[body] == 2 else 4)
        items[item] = {"type": data[p + 2:p + 6].decode("latin-1"), "hidden": bool(data[body + 3] & 1),
                       "properties": [], "data": b""}
    payload, end = parts["iloc"]
    version = data[payload]
    offset_size, length_size = data[payload + 4] >> 4, data[payload + 4] & 15
    base_size, index_size = data[payload + 5] >> 4, (data[payload + 5] & 15 if version else 0)
    count, p = number(payload + 6, 2 if version < 2 else 4)
    idat = parts.get("idat", (0, 0))[0]
    for _ in range(count):
        item, p = number(p, 2 if version < 2 else 4)
        method = 0
        if version:
            method, p = number(p, 2)
        p += 2  # data_reference_index: 0, this file
        base, p = number(p, base_size)
        extents, p = number(p, 2)
        for _ in range(extents):
            p += index_size
            offset, p = number(p, offset_size)
            length, p = number(p, length_size)
            assert method in (0, 1) and length > 0, "iloc construction method %d, length %d" % (method, length)
            origin = base + offset + (idat if method == 1 else 0)
            items[item]["data"] += data[origin:origin + length]
    ipco, ipma = ({kind: (body, end) for kind, _, body, end in bmff_boxes(data, *parts["iprp"])}[k]
                  for k in ("ipco", "ipma"))
    properties = [data[start:end] for _, start, _, end in bmff_boxes(data, *ipco)]
    version, flags = data[ipma[0]], data[ipma[0] + 3]
    count, p = number(ipma[0] + 4, 4)
    for _ in range(count):
        item, p = number(p, 2 if version == 0 else 4)
        associations, p = number(p, 1)
        for _ in range(associations):
            value, p = number(p, 2 if flags & 1 else 1)
            top = 0x8000 if flags & 1 else 0x80
            items[item]["properties"].append((properties[(value & (top - 1)) - 1], bool(value & top)))
    if "iref" in parts:
        payload, end = parts["iref"]
        width = 2 if data[payload] == 0 else 4
        for kind, _, body, end in bmff_boxes(data, payload + 4, end):
            source, p = number(body, width)
            count, p = number(p, 2)
            references[(kind, source)] = [number(p + width * i, width)[0] for i in range(count)]
    return items, primary, references


def heif_property(item, kind):
    """The payload of the item's first property box of type `kind` (None when it has none)."""
    return next((box[8:] for box, _ in item["properties"] if box[4:8] == kind.encode()), None)


def heif_file(items, primary, references):
    """A HEIF file ('heic' brand) of `items` ({id: {"type", "hidden", "properties": [(box,
    essential)], "data", "idat"}}) with the primary item and references {(type, from): [to, …]}:
    the meta box (hdlr, pitm, iloc, iinf, iref, iprp, idat) then one mdat holding every
    item's data in id order, except the ones marked "idat", which go into the meta box."""
    ids = sorted(items)
    unique = []  # ipco: each distinct property box once, numbered from 1 in first-use order
    for item in ids:
        unique += [box for box, _ in items[item]["properties"] if box not in unique]
    ipco = heif_box(b"ipco", b"".join(unique))
    described = [item for item in ids if items[item]["properties"]]
    ipma = heif_full_box(b"ipma", 0, 0, struct.pack(">I", len(described)) + b"".join(
        struct.pack(">HB", item, len(items[item]["properties"]))
        + bytes((0x80 if essential else 0) | (unique.index(box) + 1) for box, essential in items[item]["properties"])
        for item in described))
    assert len(unique) < 0x80 and max(ids) < 0x10000
    iinf = heif_full_box(b"iinf", 0, 0, struct.pack(">H", len(ids)) + b"".join(
        heif_full_box(b"infe", 2, 1 if items[item]["hidden"] else 0,
                      struct.pack(">HH4s", item, 0, items[item]["type"].encode()) + b"\0") for item in ids))
    iref = heif_full_box(b"iref", 0, 0, b"".join(
        heif_box(kind.encode(), struct.pack(">HH", source, len(targets)) + b"".join(struct.pack(">H", t) for t in targets))
        for (kind, source), targets in references.items()))
    in_idat = [item for item in ids if items[item].get("idat")]
    idat = heif_box(b"idat", b"".join(items[item]["data"] for item in in_idat))

    def meta(mdat_data_start):
        entries, positions = [], {True: 0, False: mdat_data_start}
        for item in ids:
            where = bool(items[item].get("idat"))
            entries.append(struct.pack(">HHHHII", item, 1 if where else 0, 0, 1, positions[where],
                                       len(items[item]["data"])))
            positions[where] += len(items[item]["data"])
        iloc = heif_full_box(b"iloc", 1, 0, struct.pack(">BBH", 0x44, 0x00, len(ids)) + b"".join(entries))
        return heif_full_box(b"meta", 0, 0, b"".join([
            heif_full_box(b"hdlr", 0, 0, struct.pack(">I4s12x", 0, b"pict") + b"\0"),
            heif_full_box(b"pitm", 0, 0, struct.pack(">H", primary)), iloc, iinf,
            iref if references else b"", heif_box(b"iprp", ipco + ipma), idat if in_idat else b""]))

    ftyp = heif_box(b"ftyp", b"heic" + struct.pack(">I", 0) + b"mif1heicmiaf")
    start = len(ftyp) + len(meta(0)) + 8
    return ftyp + meta(start) + heif_box(b"mdat", b"".join(items[i]["data"] for i in ids if not items[i].get("idat")))


def heif_enc_hevc(image, quality):
    """heif-enc's encoding of `image` (Pillow RGB) as one HEVC item, taken out of the file it writes:
    (its properties, hvcC first, its coded data). Only for even sizes: heif-enc 1.15 codes an odd
    height or width as a 1×1 grid around a padded picture."""
    items, primary, _ = heif_items(encode_with("heif-enc", image, ["-q", str(quality)], ".heic"))
    item = items[primary]
    assert item["type"] == "hvc1" and len(items) == 1, "heif-enc wrote %s" % {i: v["type"] for i, v in items.items()}
    assert item["properties"][0][0][4:8] == b"hvcC"
    assert heif_property(item, "ispe") == struct.pack(">III", 0, *image.size)
    return item["properties"], item["data"]


def iphone_like_heic(stored, thumbnail, *, tile=512, irot=0, exif=None, quality=80):
    """A HEIC laid out as an iPhone writes one: the primary a grid of tile×tile HEVC tiles whose
    output size (stored.size) cuts the right and bottom tiles, a thumbnail item (`thumbnail`, a
    filtered downscale of `stored`) with a 'thmb' reference to it, both items turned by irot
    (quarter turns anticlockwise) when it is not 0, an nclx colr (sRGB primaries and transfer,
    BT.601 matrix, full range: what heif-enc 1.15 codes with, though it writes no colr) on both,
    and an Exif item (`exif`: a TIFF structure, stored after "Exif\0\0" as iPhones store it) with
    a 'cdsc' reference to the grid. heif-enc encodes each tile and the
    thumbnail as a file of its own; their hvcC and coded data are copied into this one. The
    tiles past the picture's edge repeat its last column and row."""
    width, height = stored.size
    columns, rows = -(-width // tile), -(-height // tile)
    padded = Image.new("RGB", (columns * tile, rows * tile))
    padded.paste(stored, (0, 0))
    padded.paste(stored.crop((width - 1, 0, width, height)).resize((columns * tile - width, height), Image.NEAREST),
                 (width, 0))
    padded.paste(padded.crop((0, height - 1, columns * tile, height)).resize((columns * tile, rows * tile - height),
                                                                             Image.NEAREST), (0, height))
    nclx = heif_box(b"colr", b"nclx" + struct.pack(">HHHB", 1, 13, 6, 0x80))
    turn = [(heif_box(b"irot", bytes([irot])), True)] if irot else []
    grid_id, tile_ids = 1, list(range(2, 2 + columns * rows))
    thumbnail_id, exif_id = tile_ids[-1] + 1, tile_ids[-1] + 2
    items = {}
    for index, item in enumerate(tile_ids):
        x, y = index % columns * tile, index // columns * tile
        properties, coded = heif_enc_hevc(padded.crop((x, y, x + tile, y + tile)), quality)
        items[item] = {"type": "hvc1", "hidden": True, "properties": properties, "data": coded}
        assert properties == items[tile_ids[0]]["properties"], "tiles with different hvcC"
    pixi = [(box, essential) for box, essential in items[tile_ids[0]]["properties"] if box[4:8] == b"pixi"]
    ispe = heif_full_box(b"ispe", 0, 0, struct.pack(">II", width, height))
    items[grid_id] = {"type": "grid", "hidden": False, "properties": [(ispe, False), (nclx, False), *pixi, *turn],
                      "data": struct.pack(">BBBBHH", 0, 0, rows - 1, columns - 1, width, height), "idat": True}
    properties, coded = heif_enc_hevc(thumbnail, quality)
    items[thumbnail_id] = {"type": "hvc1", "hidden": False, "properties": properties[:2] + [(nclx, False)]
                           + properties[2:] + turn, "data": coded}
    references = {("dimg", grid_id): tile_ids, ("thmb", thumbnail_id): [grid_id]}
    if exif is not None:
        items[exif_id] = {"type": "Exif", "hidden": False, "properties": [],
                          "data": struct.pack(">I", 6) + b"Exif\0\0" + exif}  # offset to the TIFF header
        references[("cdsc", exif_id)] = [grid_id]
    return heif_file(items, grid_id, references)


def check_heic_thumbnail_item(source, minimum_db, thumbnail_db):
    """check_reference_close for the primary image (source: the picture heif-convert shows), then
    the primary's thumbnail item alone, copied with its properties (irot included) into a file
    of its own and decoded by heif-convert: within thumbnail_db PSNR of heif-convert's full
    decode box-filtered to the thumbnail's size."""
    primary_check = check_reference_close(source, ".heic", minimum_db)

    def check(data):
        note = primary_check(data)
        items, primary, references = heif_items(data)
        thumbnails = [item for (kind, item), targets in references.items() if kind == "thmb" and targets == [primary]]
        assert len(thumbnails) == 1, "thumbnail items %s" % thumbnails
        decoded = reference_decode(heif_file({1: items[thumbnails[0]]}, 1, {}), ".heic")
        db = psnr(decoded, reference_decode(data, ".heic").resize(decoded.size, Image.BOX))
        assert db >= thumbnail_db, "thumbnail item only %.1f dB from the full decode" % db
        return note + "; its thumbnail item alone: %d×%d, %.1f dB from the full decode box-filtered to that size" % (
            *decoded.size, db)
    return check


def make_heic(corpus):
    corpus.section("HEIC",
                   "Encoded by heif-enc (libheif 1.15.1 with x265 in Debian 12) from the photos and the gradient; "
                   "each file is checked by heif-convert against the picture encoded. The iPhone-like file is "
                   "assembled here box by box around HEVC tiles and a thumbnail encoded by heif-enc.")
    name = "heic-photo-1024x683.heic"
    photo = photo_with_credit(corpus, name, "sunset", (1024, 683), "scaled, cropped and encoded as HEIC")
    corpus.add(name, encode_with("heif-enc", photo, ["-q", "70"], ".heic"),
               what="HEIC 8-bit 4:2:0, 1024×683 photo (%s), no thumbnail item" % PHOTOS["sunset"][2],
               exercises="the primary image's rows into the area filter", expect=DECODES,
               header=modern_header(1024, 683), check=check_reference_close(photo, ".heic", 30))

    # An iPhone's 4032×3024 is 8×6 tiles of 512 with a 320×240 thumbnail; this is that at a quarter of the
    # size (1008×756: 2×2 tiles, the right and bottom ones cut), so the thumbnail's height is even: 4:2:0
    # HEVC cannot code 213 rows, and heif-enc would pad them and wrap the item in a grid of its own.
    name = "heic-iphone-grid-thumbnail-irot-1008x756.heic"
    upright = photo_with_credit(corpus, name, "picosdeeuropa", (756, 1008),
                                "scaled, cropped, turned and encoded as HEIC tiles")
    display, inverse = exif_transposes()
    stored = upright.transpose(inverse[8])  # irot 1 turns the stored picture 90° anticlockwise: orientation 8
    exif = exif_app1(exif_entries(8, big_endian=True), big_endian=True)[10:]  # the TIFF structure, no APP1 header
    iphone = corpus.add(name, iphone_like_heic(stored, stored.resize((320, 240), Image.BOX), irot=1, exif=exif, quality=60),
               what="HEIC laid out as an iPhone writes one: the primary a 1008×756 grid of 2×2 HEVC tiles of 512×512 "
                    "whose output size cuts the right and bottom tiles (an iPhone's 4032×3024 from 8×6 tiles, at a "
                    "quarter of the size), a 320×240 thumbnail item box-filtered from the picture, irot angle 1 "
                    "(90° anticlockwise) on both items, nclx colour and an Exif item whose Orientation is 8 too; "
                    "the photo (%s) is stored turned clockwise, so it shows upright as 756×1008. Assembled box by "
                    "box around tiles and a thumbnail heif-enc encoded (-q 60)" % PHOTOS["picosdeeuropa"][2],
               exercises="a grid primary with tiles overhanging its size, a filtered thumbnail item (decoded for a "
                         "256 px thumbnail instead of the grid) turned by its own irot, irot as orientation 8, an "
                         "Exif orientation not applied a second time",
               expect=DECODES, header=modern_header(1008, 756, orientation=8),
               check=check_heic_thumbnail_item(upright, 30, 35))

    w, h = 256, 192
    smooth = Image.frombytes("RGB", (w, h), gradient(w, h))
    with_alpha = smooth.copy()
    with_alpha.putalpha(vignette(w, h))
    corpus.add("heic-alpha-vignette-256x192.heic", encode_with("heif-enc", with_alpha, ["-q", "90"], ".heic"),
               what="HEIC with an alpha image: the gradient under a vignette", exercises="the auxiliary alpha image",
               expect=DECODES, header=modern_header(w, h, has_alpha=True),
               check=check_reference_close(with_alpha, ".heic", 35))
    deep = [[(r * 257, g * 257, b * 257) for r, g, b in zip(*[iter(gradient(w, h)[y * w * 3:(y + 1) * w * 3])] * 3)]
            for y in range(h)]
    corpus.add("heic-gradient-10bit-256x192.heic", encode_png_with("heif-enc", encode_png(w, h, 2, 16, deep),
                                                                  ["-q", "90", "-b", "10"], ".heic"),
               what="HEIC 10-bit 4:2:0 of the gradient", exercises="samples above 8 bits",
               expect=DECODES, header=modern_header(w, h, bit_depth=10), check=check_reference_close(smooth, ".heic", 35))

    corpus.add("heic-error-truncated-half.heic", iphone[:len(iphone) // 2],
               what="heic-iphone-grid-thumbnail-irot-1008x756.heic cut at half its %d bytes" % len(iphone),
               exercises="data ends before the image does: truncated", expect=TRUNCATED, header=None)
    corpus.add("heic-error-bomb-ispe-65535x65535.heic", patch_ispe(iphone, 65535, 65535),
               what="heic-iphone-grid-thumbnail-irot-1008x756.heic with every ispe property claiming 65535×65535",
               exercises="the size from the header is refused before any pixel memory exists", expect=TOO_LARGE,
               header=None)


def make_jxl(corpus):
    corpus.section("JPEG XL",
                   "Encoded by cjxl (libjxl 0.7.0 in Debian 12) from the photos, the gradient and a JPEG; each file "
                   "is checked by djxl against the picture encoded.")
    name = "jxl-photo-lossy-1024x683.jxl"
    photo = photo_with_credit(corpus, name, "life", (1024, 683), "scaled, cropped and encoded as JPEG XL")
    lossy = corpus.add(name, encode_with("cjxl", photo, ["-d", "1.5", "-e", "7", "--num_threads", "0"], ".jxl"),
                       what="JPEG XL lossy (VarDCT, distance 1.5), 1024×683 photo (%s), bare codestream"
                            % PHOTOS["life"][2],
                       exercises="the 1/8 DC image when the thumbnail is at most an eighth of the photo; "
                                 "otherwise the full decode into the area filter",
                       expect=DECODES, header=modern_header(1024, 683),
                       check=check_reference_close(photo, ".jxl", 30))

    name = "jxl-recompressed-jpeg-1024x683.jxl"
    jpeg_photo = photo_with_credit(corpus, name, "friends", (1024, 683), "scaled, cropped, encoded as JPEG q90 "
                                                                          "and recompressed losslessly as JPEG XL")
    jpeg = cjpeg(["-quality", "90"], pnm(1024, 683, jpeg_photo.tobytes(), 3))
    with tempfile.TemporaryDirectory() as directory:
        source, output = Path(directory) / "source.jpg", Path(directory) / "output.jxl"
        source.write_bytes(jpeg)
        subprocess.run(["cjxl", "--num_threads", "0", str(source), str(output)], check=True, capture_output=True)
        recompressed = output.read_bytes()
    corpus.add(name, recompressed,
               what="JPEG XL container with a jbrd box: a q90 4:2:0 JPEG of a photo (%s) recompressed losslessly"
                    % PHOTOS["friends"][2],
               exercises="recompressed JPEGs decode to pixels like any other JPEG XL (their DC too)",
               expect=DECODES, header=modern_header(1024, 683),
               check=check_reference_close(Image.open(io.BytesIO(jpeg)).convert("RGB"), ".jxl", 40))

    mw, mh = 67, 43
    matrix = Image.frombytes("RGBA", (mw, mh), bytes(c for y in range(mh) for x in range(mw)
                                                     for c in rgb(x, y) + (alpha(x, y),)))
    corpus.add("jxl-lossless-rgba-67x43.jxl", encode_with("cjxl", matrix, ["-d", "0", "--num_threads", "0"], ".jxl"),
               what="JPEG XL lossless (modular) with alpha, 67×43: the PNG matrix's RGB and alpha formulas",
               exercises="a modular image, which has no DC image to stop at: decoded whole, exactly",
               expect=DECODES, header=modern_header(mw, mh, has_alpha=True),
               check=check_reference_close(matrix, ".jxl", math.inf))

    corpus.add("jxl-error-truncated-half.jxl", lossy[:len(lossy) // 2],
               what="jxl-photo-lossy-1024x683.jxl cut at half its %d bytes" % len(lossy),
               exercises="data ends before the image does: truncated", expect=TRUNCATED, header=None)

    # A bare codestream whose size header claims 65535×65535 and whose metadata are all defaults.
    bits = []

    def put(value, count):
        bits.extend((value >> i) & 1 for i in range(count))
    put(0, 1)          # SizeHeader.small: no
    put(2, 2)          # height_minus1 in 18 bits
    put(65534, 18)
    put(0, 3)          # no fixed ratio: the width follows
    put(2, 2)
    put(65534, 18)
    put(1, 1)          # ImageMetadata.all_default
    bits.extend([0] * (-len(bits) % 8))
    header = bytes(sum(bit << i for i, bit in enumerate(bits[n:n + 8])) for n in range(0, len(bits), 8))
    corpus.add("jxl-error-bomb-size-header-65535x65535.jxl", b"\xff\x0a" + header + bytes(64),
               what="a JPEG XL codestream whose size header claims 65535×65535, then zeros",
               exercises="the size from the header is refused before any pixel memory exists", expect=TOO_LARGE,
               header=None)


# ---------------------------------------------------------------------------------------
# Independent decoders
# ---------------------------------------------------------------------------------------

def run_tool(command, data):
    return subprocess.run(command, input=data, capture_output=True, timeout=300)


def parse_pnm(data):
    """Pixel bytes of a binary PPM/PGM (maxval ≤ 255)."""
    fields, position = [], 2
    while len(fields) < 3:
        while data[position:position + 1].isspace():
            position += 1
        start = position
        while not data[position:position + 1].isspace():
            position += 1
        fields.append(int(data[start:position]))
    return data[position + 1:]


def tool_verdict(label, command, data=None, report_stdout=False):
    """Runs command (data on stdin) and summarises its exit code and messages; stdout is
    discarded unless it carries the tool's report."""
    result = subprocess.run(command, input=data, stdout=subprocess.PIPE if report_stdout else subprocess.DEVNULL,
                            stderr=subprocess.PIPE, timeout=300)
    text = result.stderr + (result.stdout or b"")
    message = " / ".join(line.strip() for line in text.decode("utf-8", "replace").splitlines() if line.strip())
    if result.returncode == 0 and (report_stdout or not message):
        return label + ": ok"
    message = message.replace(str(OUT) + "/", "")
    return "%s: exit %d%s" % (label, result.returncode, ": " + message if message else "")


def pillow_verdict(data):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            image = pillow_open(data)
            image.getexif()
            verdict = "Pillow: ok (%s %s %d×%d)" % (image.format, image.mode, *image.size)
        except Exception as error:  # any failure is the verdict being recorded
            verdict = "Pillow: %s: %s" % (type(error).__name__, re.sub(r" object at 0x[0-9a-f]+", "", str(error)))
    notes = sorted({str(warning.message).strip() for warning in caught})
    return verdict + "".join(" (warning: %s)" % note for note in notes)


class PngImage(ctypes.Structure):
    """libpng's png_image (simplified API, PNG_IMAGE_VERSION 1)."""
    _fields_ = [("opaque", ctypes.c_void_p), ("version", ctypes.c_uint32), ("width", ctypes.c_uint32),
                ("height", ctypes.c_uint32), ("format", ctypes.c_uint32), ("flags", ctypes.c_uint32),
                ("colormap_entries", ctypes.c_uint32), ("warning_or_error", ctypes.c_uint32),
                ("message", ctypes.c_char * 64)]


def libpng_verdict(library, data):
    """Reads the whole image to RGBA with the system libpng's png_image API (the library the
    decoder links). Headers over 100 MP are not decoded: that would allocate the full bitmap."""
    image = PngImage(version=1)
    status = library.png_image_begin_read_from_memory(ctypes.byref(image), data, ctypes.c_size_t(len(data)))
    if status and image.width * image.height > 10 ** 8:
        verdict = "header ok, %d×%d not decoded" % (image.width, image.height)
    else:
        if status:
            image.format = 3  # PNG_FORMAT_RGBA
            pixels = ctypes.create_string_buffer(image.width * image.height * 4)
            status = library.png_image_finish_read(ctypes.byref(image), None, pixels, 0, None)
        message = image.message.decode("latin-1")
        verdict = ("ok" if status else "error") + (" (%s: %s)" % ("warning" if status else "message", message)
                                                   if message else "")
    library.png_image_free(ctypes.byref(image))
    return "libpng png_image: " + verdict


def verify(corpus):
    libpng_path = ctypes.util.find_library("png16")
    libpng = ctypes.CDLL(libpng_path) if libpng_path else None
    for entry in corpus.entries:
        data, name = entry["data"], entry["name"]
        verdicts = [pillow_verdict(data)]
        huge = entry["header"] is not None and entry["header"]["width"] * entry["header"]["height"] > 10 ** 8
        if name.endswith(".jpg"):
            # A huge header with no data would make djpeg emit gigabytes of gray; 1/8 keeps it small.
            scale = ["-scale", "1/8"] if huge else []
            verdicts.append(tool_verdict(" ".join(["djpeg", *scale]), ["djpeg", *scale, "-pnm"], data))
        elif name.endswith(".webp") or sniffed_format(data) == "webp":
            path = str(corpus.directory / entry["path"])
            if not huge:  # dwebp would allocate the whole canvas
                verdicts.append(tool_verdict("dwebp", ["dwebp", "-quiet", path, "-pam", "-o", "/dev/null"]))
            verdicts.append(tool_verdict("webpinfo", ["webpinfo", "-quiet", path], report_stdout=True))
        elif name.endswith(".png"):
            if libpng is not None:
                verdicts.append(libpng_verdict(libpng, data))
            if shutil.which("pngtopnm"):
                verdicts.append(tool_verdict("pngtopnm", ["pngtopnm"], data))
            if shutil.which("pngfix"):
                verdicts.append(tool_verdict("pngfix", ["pngfix", "-e", "-w", str(corpus.directory / entry["path"])],
                                             report_stdout=True))
        entry["tools"] = "; ".join(verdicts)
        if entry["check"] is not None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")  # Pillow's EXIF warnings are already in the verdict
                try:
                    entry["note"] = entry["check"](data) or ""
                except AssertionError as failure:
                    raise SystemExit("%s: %s" % (entry["path"], failure))
        print("%-60s %8d  %s" % (entry["path"], len(data), entry["expect"]))


# ---------------------------------------------------------------------------------------
# README and manifest
# ---------------------------------------------------------------------------------------

README_INTRO = """# Test images

**Every file at the top level of `TestImages/` decodes.** The subfolder `invalid/` holds the
files that must be refused, each with the typed error the decoder is expected to report (listed
below, in the tables under Files and as `expect` in manifest.json). A demo or feed can thumbnail
`TestImages/*.jpg`, `*.png`, `*.webp` and `*.gif` without meeting a failure; `feed.json` is a
JSON Feed of exactly those, by relative URL: the built-in default of `thumbnailer warm` and `browse`.

Generated by `scripts/make-test-images.py` (run `/usr/bin/python3 scripts/make-test-images.py`
from the repository root). Do not edit files here by hand: change the script and re-run it. The
script is deterministic; with the same zlib, libjpeg-turbo, Pillow and ImageMagick versions it
reproduces every file byte for byte. `manifest.json` holds the tables below in machine-readable form (`path`
relative to `TestImages/`, e.g. `invalid/png-error-no-idat.png`, expected outcome and header facts
per file) for tests that iterate the corpus.

## Files that must be refused (`invalid/`)

| File | Expected error |
| --- | --- |
{invalid}
"""

README_HEAD = """

## Expected outcomes

`decodes` means `ct_decode_*` returns `CT_OK`; the other values are the Swift error names:
`corrupt`, `truncated`, `tooLarge`, `unsupportedFeature`, `unsupportedFormat`. All expectations
assume `ct_default_decode_options()` (256×256 box, 100 MP, 512 MiB).

`header` in manifest.json is what the file's headers say, in `ct_image_info` terms: size as
stored (a WebP's canvas), components (palette PNGs count as 3; tRNS sets has_alpha), bit depth,
progressive/Adam7, EXIF orientation (1 when absent or out of range), and
`whole_image_bytes_per_pixel`, the buffers as large as the image that the codec library keeps
(4 for lossless WebP; 1, or 5 with a losslessly compressed alpha, for lossy WebP with alpha; 0
otherwise). For a GIF: the logical screen size, has_alpha when the first frame has a transparent
index or does not cover the screen, components 4 with alpha and 3 without, bit depth = bits per
index of the first frame's palette (8 with none) and progressive = an interlaced first frame; the
script reads these facts from the bytes itself. It is null when the headers themselves are
damaged or missing. `ct_probe_memory` reads only headers, so it reports these facts for every
file that decodes and for files whose damage lies in the image data (truncated, bad IDAT CRC,
bad zlib), while it already fails for the `tooLarge` files (the limit check) and, with
libjpeg-turbo 2.x, for the 12-bit JPEG (`unsupportedFeature`). A WebP probe holds the whole
container (its EXIF chunk comes after the image data), so it fails for a truncated WebP as well.

## Pixel formulas

Coordinates: x = column, y = row, both from 0. ⌊ ⌋ is floor. Area-filter results below are
exact real numbers; where one ends in .5 either rounding is correct.

### Reference patterns

* `ref-blocks-256x192.png` (RGB): pixel (x, y) lies in block (bx, by) = (⌊x/8⌋, ⌊y/8⌋),
  bx = 0…31, by = 0…23, colour **(8·bx + 4, 10·by + 5, 255 − 4·(bx + by))**. Exact
  integer results of an area downscale:
  * ×8 to 32×24: pixel (i, j) = the colour of block (i, j);
  * ×16 to 16×12: (16i + 8, 20j + 10, 251 − 8(i + j));
  * ×32 to 8×6: (32i + 16, 40j + 20, 243 − 16(i + j)).
  `ref-blocks-256x192-q100-444.jpg` is the same picture as a q100 4:4:4 JPEG whose blocks sit on
  the DCT grid: decoded at DCT scale 1/8 (box 32×24) every pixel is its block colour ±2.
* `ref-gray-ramp-256x16.png` (gray): value **x** in every row. Downscaling width by an
  integer factor f (f divides 256) gives column k = f·k + (f − 1)/2 (e.g. ×8: 8k + 3.5).
* `ref-checker-1px-256x256.png` (gray): **255 where x + y is odd, 0 where even** (black at
  (0,0)). Any downscale by an even factor gives 127.5 everywhere (127 or 128); a point-sampling
  decoder gives 0 or 255.
* `ref-premultiply-red-clear-green-128x64.png` (RGBA): **even x → (255, 0, 0, 255), odd x →
  (0, 255, 0, 0)**. Filtered premultiplied (as `ct_resampler` does), every output pixel with
  alpha > 0 is exactly RGB (255, 0, 0) at any ratio, and alpha = 255 × the fraction of red
  columns covered: at 2× (box 64×32) the result is (255, 0, 0, 127.5 → 127 or 128). A
  straight-alpha average gives (127.5, 127.5, 0, 127.5): brownish.
* `png-gray-16bit-scale-vs-strip-256x8.png` (gray 16-bit): column x holds **V = 256·x + 255**
  in every row. `png_set_strip_16` (V >> 8) gives **x**; `png_set_scale_16`
  (⌊(V·255 + 32767)/65535⌋, the nearest 8-bit value) gives **x + 1 for x ≤ 126 and x for
  x ≥ 127**. Which one is right depends on the decoder's choice; the two differ in 127 columns.

### PNG colour-type matrix (`png-<type>-<depth>-67x43[-adam7].png`, also 1×1 and 5×3)

All files are 67×43 (not multiples of 8, so every Adam7 pass and sub-byte row has a partial
end) unless named otherwise. Filter types rotate 0, 1, 2, 3, 4 over consecutive scanlines
(counting across Adam7 passes). Stored samples, at the file's bit depth d:

* gray d ≤ 8 and palette indices: **S_d(x, y) = (x + 3y) mod 2^d**; decoded gray =
  S_d · 255 / (2^d − 1) (×255, ×85, ×17, ×1 for d = 1, 2, 4, 8);
* alpha (gray+alpha, RGBA): **A(x, y) = 255 − ((5x + 3y) mod 192)**, 64…255, never 0;
* RGB: **R = (4x + y) mod 256, G = (x + 4y) mod 256, B = (255 − 2x − 2y) mod 256**;
* palette entry i: **((73i + 16) mod 256, (151i + 64) mod 256, (199i + 32) mod 256)**, the
  PLTE has all 2^d entries;
* 16-bit files store every 8-bit value above × 257, so strip and scale both give exactly the
  8-bit twin's output;
* `palette-8bit-trns`: indices as palette-8bit; tRNS has 128 entries, **alpha(i) = 2i for
  i < 128**, indices ≥ 128 are opaque (index 0 is fully transparent);
* `gray-8bit-trns`: 8×8 blocks with (⌊x/8⌋ + ⌊y/8⌋) mod 3 = 0 are gray **250** = the tRNS key
  (alpha 0), all other pixels are S_8 (never 250) and opaque;
* `rgb-8bit-trns`: the same blocks are **(255, 0, 255)** = the tRNS key (alpha 0), all other
  pixels are the RGB formula (never the key) and opaque.

Decoded at full size (the 256×256 default box never downscales these) the RGBA output equals the
formula exactly, and every `-adam7` file must produce byte-identical output to its twin at any
box size. Where alpha is 0 the colour channels of a straight-alpha output are not specified.

### GIF (`gif-*`)

The decoder shows a GIF's first frame at the logical screen size, composited on transparency:
screen pixels outside the frame are **(0, 0, 0, 0)**, whatever the background colour says, and so
is a pixel whose index is the frame's transparent index or **lies beyond its palette**; with **no
palette at all** index i is gray **(i, i, i)**. Frame pixels off the screen are dropped.
Palette **T** is red (255, 0, 0), green (0, 160, 0), blue (0, 0, 255), yellow (255, 255, 0) for
indices 0…3. (fx, fy) are frame coordinates: fx = x − left, fy = y − top.

* `gif-palette[-interlaced]-67x43.gif`: index **(x + 3y) mod 256**, global palette entry i as the
  PNG palette formula below, so both decode exactly like `png-palette-8bit-67x43.png`.
* `gif-transparent-index-48x32.gif`: index **(⌊x/8⌋ + ⌊y/8⌋) mod 4** in palette T; index 1 is the
  transparent index, so green blocks come out (0, 0, 0, 0).
* `gif-blocks[-interlaced]-1200x800.gif`: index **(⌊x/16⌋ + 3⌊y/16⌋) mod 4** in palette T; index 0
  (red) is the transparent index.
* `gif-animated-3-frames-40x30.gif`: first frame **red where ⌊x/4⌋ is even, blue where odd**; the
  later frames (all green, all white) must not show.
* `gif-offset-frame[-interlaced]-64x48.gif`: a 24×16 frame at (30, 20), index
  **(⌊fx/4⌋ + ⌊fy/4⌋) mod 4** in palette T; everything else transparent.
* `gif-frame-beyond-screen[-interlaced]-32x24.gif`: a 40×30 frame at (8, 6) on a 32×24 screen,
  index **(fx + fy) mod 4** in palette T, visible where x ≥ 8 and y ≥ 6; x < 8 or y < 6 transparent.
* `gif-local-palette-32x32.gif` (and `sniff-gif-data-named.jpg`): index **(⌊x/8⌋ + ⌊y/8⌋) mod 4**
  in the frame's local palette T; the global palette (black, white) must not be used.
* `gif-no-palette-16x16.gif`: index **x + 16y**, gray (i, i, i).
* `gif-index-beyond-palette-16x8.gif`: index **x mod 8** with the 4-entry palette T: columns with
  x mod 8 ≥ 4 are transparent.

### JPEG gradient (`jpeg-*-gradient-*`, `jpeg-odd-*`)

For a W×H image: **R = ⌊255x/(W−1)⌋, G = ⌊255y/(H−1)⌋** (0 when that side is 1 px), **B = 255 −
⌊(R + G)/2⌋**. Grayscale files hold **L = ⌊(R + G)/2⌋**. JPEG is lossy: the table gives the
largest channel difference between Pillow's full-size decode and the formula.

### EXIF marker picture (`jpeg-exif-*`)

The upright picture is 96×64 white with three 24×24 blocks: **red (255,0,0) at x < 24, y < 24;
blue (0,0,255) at x ≥ 72, y < 24; green (0,255,0) at x < 24, y ≥ 40**. Each file stores this
picture transformed by the inverse of its orientation, so applying the orientation always gives
the upright picture (96×64); orientations 5–8 are stored 64×96. The table says where the blocks
are in the stored pixels.

### CMYK blocks (`jpeg-cmyk-adobe-blocks-128x64.jpg`)

Four columns × two rows of 32×32 blocks, inks (C, M, Y, K) → expected RGB:

| block | row 0 | row 1 |
| --- | --- | --- |
| column 0 | (255,0,0,0) cyan → (0,255,255) | (0,0,0,0) none → (255,255,255) |
| column 1 | (0,255,0,0) magenta → (255,0,255) | (255,255,0,0) C+M → (0,0,255) |
| column 2 | (0,0,255,0) yellow → (255,255,0) | (0,0,0,128) half K → (127,127,127) |
| column 3 | (0,0,0,255) black → (0,0,0) | (255,0,255,0) C+Y → (0,255,0) |

The file stores Adobe-inverted samples (C' = 255 − C …) with an Adobe APP14 marker, transform 0;
RGB = (C'·K'/255, M'·K'/255, Y'·K'/255).

### Colour-managed files (`icc-*`, `png-gamma-1.0-blocks-128x64.png`)

4 columns × 2 rows of equal blocks, row-major. Colour files: **(255,0,0), (0,255,0), (0,0,255),
(255,255,0) / (255,255,255), (128,128,128), (0,0,0), (200,100,50)**; gray files: levels **0, 32,
64, 96 / 128, 160, 192, 255**; CMYK files: the inks of the CMYK blocks above. The test profiles
are ICC v2, written by the script byte by byte (PCS XYZ, D50 white):

* **red and green swapped** (RGB, matrix/TRC): sRGB's colorants with red and green exchanged and
  sRGB's curve as a 1024-entry table. Converted to sRGB, **(R, G, B) becomes (G, R, B)** (±1).
* **linear gray** (gray, identity curve): a level v becomes **255·sRGB(v/255)**, sRGB(x) being
  the sRGB encoding of linear x: 0, 99, 137, 165 / 188, 208, 225, 255.
* **cyan and magenta swapped** (CMYK, output class, one lut16 A2B0 tag on a 9⁴ grid): inks
  (C, M, Y, K) in 0…1 give the sRGB colour **((1 − M)(1 − K), (1 − C)(1 − K), (1 − Y)(1 − K))**,
  the CMYK blocks' formula with C and M exchanged: cyan ink shows magenta, C+Y red.
* a **broken** profile: 532 bytes starting "not an ICC profile: ", which neither LittleCMS nor
  libpng accepts.

`png-gamma-1.0-blocks-128x64.png` says by gAMA 1.0 that its samples are linear light: in sRGB each
sample v becomes 255·sRGB(v/255) (gray 128 → 188, (200,100,50) → (229,168,122)).

### Photo crops (`jpeg-progressive-*-photo-*`)

No formula: each file encodes the "aitzgorri" photo (see Photo credits) scaled (Lanczos) to the
smallest size that covers W×H, its aspect ratio kept, and cropped to W×H around the centre; the
grayscale files hold Pillow's `convert("L")` of that crop. The CMYK and YCCK files hold inks made
from the crop by full grey-component replacement: **K = 255 − max(R, G, B), C = 255·(max − R)/max**
(M and Y alike from G and B; all 0 for black), so (C'·K'/255, M'·K'/255, Y'·K'/255) with
C' = 255 − C gives the crop back (±1) before compression. The table gives the mean and largest
difference between Pillow's full-size RGB (or L) decode and the crop; the files jpegtran made from
another file of the table (`same_pixels_as` in manifest.json) decode to exactly its pixels instead.

## Files

Sizes are in bytes. "Independent decoders" is what each tool said when the script ran:
Pillow (its own PNG and GIF decoders; libjpeg-turbo for JPEG), djpeg (libjpeg-turbo), the system
libpng through its `png_image` API (reads every row, tolerates a missing IEND), pngtopnm
(netpbm on libpng; calls `png_read_end`, so it needs IEND) and pngfix (libpng's checker).
"exit 2" from djpeg means it only warned and wrote a gray-filled picture. After the verdicts
comes the script's own pixel check where there is one.
"""

README_TAIL = """
## Photo credits

The {photo_count} `photo-*` files and the {crop_count} `jpeg-progressive-*-photo-*` files are
derived from photographs by Aitzol Berasategi in Debian's `lomiri-wallpapers-20.04` package
(`/usr/share/backgrounds/`), which `/usr/share/doc/lomiri-wallpapers-20.04/copyright` lists under
CC-BY-4.0 (the script reads that file and stops unless every source photo is CC-BY-4.0). They
were scaled, cropped (the 640×480 one and the `jpeg-progressive-*-photo-*` files), given an
alpha vignette (the RGBA one) and re-encoded, and each carries its credit in a JPEG COM marker
or PNG tEXt chunk. These files are licensed **CC BY 4.0**
(https://creativecommons.org/licenses/by/4.0/) by their author, not under the project's licence;
keep the credit when redistributing them:

{credits}

## Limits of this corpus

* The 12-bit and lossless JPEGs are assembled by hand; no decoder available here reads those
  processes, so only their headers were exercised (the same construction at 8-bit precision
  decodes to mid-gray). The lossless file decodes (all 128) on libjpeg-turbo 3.x, although it
  sits in `invalid/` (its expectation assumes libjpeg-turbo 2.x, as in Debian 12).
* `jpeg-arithmetic-*` decodes with libjpeg-turbo as Debian builds it; a build without arithmetic
  decoding reports it as unsupportedFeature, which the C header lists as acceptable.
* Photo file sizes: {photo_sizes}; the whole folder stays under 7 MB.
* Byte-for-byte reproduction of the photo files, the photo crops and the CMYK JPEGs needs the
  same Pillow (resize, JPEG decode of the originals) and libjpeg-turbo versions, and the YCCK
  JPEG the same ImageMagick 6; all hand-written PNGs only need the same zlib.
* No progressive file here is large: the 24-megapixel progressive cases are made by the
  benchmark, not kept in the repository.
"""


def markdown_cell(text):
    return str(text).replace("|", "\\|").replace("\n", " ")


def write_readme(corpus):
    invalid = "\n".join("| `%s` | **%s** |" % (e["path"], e["expect"]) for e in corpus.entries
                         if e["expect"] != DECODES)
    lines = [README_INTRO.format(invalid=invalid) + README_HEAD]
    family = None
    for entry in corpus.entries:
        if entry["family"] is not family:
            family = entry["family"]
            lines.append("\n### %s\n" % family["title"])
            if family["intro"]:
                lines.append(family["intro"] + "\n")
            lines.append("| File | Bytes | What it is | Exercises | Expected | Independent decoders |")
            lines.append("| --- | ---: | --- | --- | --- | --- |")
        verdict = entry["tools"] + (". Check: " + entry["note"] if entry["note"] else "")
        lines.append("| `%s` | %d | %s | %s | **%s** | %s |" % (
            entry["path"], len(entry["data"]), markdown_cell(entry["what"]), markdown_cell(entry["exercises"]),
            entry["expect"], markdown_cell(verdict)))
    total = sum(len(entry["data"]) for entry in corpus.entries)
    refused = sum(1 for entry in corpus.entries if entry["expect"] != DECODES)
    lines.append("\n%d files (%d at the top level that decode, %d in `invalid/`), %d bytes in total (%.2f MB), "
                 "plus this README and manifest.json.\n"
                 % (len(corpus.entries), len(corpus.entries) - refused, refused, total, total / 1e6))
    grouped = {}  # credit line → the files carrying it, in corpus order
    for name, credit in corpus.credits:
        grouped.setdefault(credit, []).append(name)
    credits = "\n".join("* %s: %s." % (", ".join("`%s`" % name for name in names), credit)
                         for credit, names in grouped.items())
    photos = [name for name, _ in corpus.credits if name.startswith("photo-")]
    sizes = {name: len((corpus.directory / name).read_bytes()) for name in photos}
    photo_sizes = ", ".join("%.2f MB (`%s`)" % (size / 1e6, name) for name, size in sizes.items())
    lines.append(README_TAIL.format(credits=credits, photo_count=len(photos),
                                    crop_count=len(corpus.credits) - len(photos), photo_sizes=photo_sizes))
    (corpus.directory / "README.md").write_text("\n".join(lines), encoding="utf-8")


def sniffed_format(data):
    if data[:3] == b"\xff\xd8\xff":
        return "jpeg"
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "webp"
    if data[:6] in (b"GIF87a", b"GIF89a"):
        return "gif"
    if data[:2] == b"\xff\x0a" or data[:12] == b"\0\0\0\x0cJXL \r\n\x87\n":
        return "jxl"
    if data[4:8] == b"ftyp":
        brands = {data[i:i + 4] for i in range(8, min(len(data), struct.unpack(">I", data[:4])[0]), 4)}
        if brands & {b"avif", b"avis"}:
            return "avif"
        if brands & {b"heic", b"heix", b"mif1"}:
            return "heic"
    return "png" if data[:8] == PNG_SIGNATURE else "unknown"


def write_manifest(corpus):
    files = [{"path": e["path"], "name": e["name"], "bytes": len(e["data"]), "format": sniffed_format(e["data"]),
              "expect": e["expect"], "header": e["header"], "same_pixels_as": e["same_pixels_as"]}
             for e in corpus.entries]
    text = json.dumps({"generator": "scripts/make-test-images.py", "files": files}, indent=1, ensure_ascii=False)
    (corpus.directory / "manifest.json").write_text(text + "\n", encoding="utf-8")


def write_demo_feed(corpus):
    """TestImages/feed.json: a JSON Feed 1.1 of every image that decodes, by
    relative URL, the built-in default of `thumbnailer warm` and `browse`."""
    items = []
    for entry in sorted(corpus.entries, key=lambda e: (not e["path"].startswith("photo-"), e["path"])):
        path = entry["path"]
        if "/" in path or not path.endswith((".jpg", ".png", ".webp", ".gif", ".avif", ".heic", ".jxl")):
            continue
        title = path.rsplit(".", 1)[0].replace("-", " ")
        items.append({"id": path, "title": title, "image": path})
    feed = {"version": "https://jsonfeed.org/version/1.1",
            "title": "Thumbnailer test images",
            "description": "Every decodable image in TestImages/, by relative URL (made by scripts/make-test-images.py).",
            "items": items}
    (corpus.directory / "feed.json").write_text(json.dumps(feed, indent=2) + "\n", encoding="utf-8")


def main():
    for tool in ("cjpeg", "djpeg", "jpegtran"):
        if shutil.which(tool) is None:
            raise SystemExit("%s not found: install libjpeg-turbo-progs" % tool)
    if shutil.which(IMAGEMAGICK) is None:
        raise SystemExit("%s not found: install imagemagick-6.q16" % IMAGEMAGICK)
    for tool in ("dwebp", "webpinfo"):
        if shutil.which(tool) is None:
            raise SystemExit("%s not found: install webp" % tool)
    for tool, package in MODERN_ENCODERS.items():
        if shutil.which(tool) is None:
            raise SystemExit("%s not found: install %s" % (tool, package))
    OUT.mkdir(exist_ok=True)
    corpus = Corpus(OUT)
    make_reference(corpus)
    make_png_matrix(corpus)
    make_png_special(corpus)
    make_png_errors(corpus)
    produced = make_jpeg_variants(corpus)
    make_jpeg_progressive(corpus)
    make_jpeg_exif(corpus)
    make_jpeg_unsupported(corpus)
    make_jpeg_errors(corpus, produced)
    produced.update(make_webp(corpus))
    make_webp_errors(corpus, produced)
    make_gif(corpus)
    make_avif(corpus)
    make_heic(corpus)
    make_jxl(corpus)
    make_sniffing(corpus, produced)
    make_color(corpus)
    make_photos(corpus)
    verify(corpus)
    write_readme(corpus)
    write_manifest(corpus)
    write_demo_feed(corpus)
    known = {entry["path"] for entry in corpus.entries} | {"README.md", "manifest.json", "feed.json", INVALID}
    for stray in sorted(str(path.relative_to(OUT)) for path in OUT.rglob("*") if str(path.relative_to(OUT)) not in known):
        print("warning: %s is not produced by this script" % stray, file=sys.stderr)
    total = sum(len(entry["data"]) for entry in corpus.entries)
    print("%d files, %d bytes" % (len(corpus.entries), total))


if __name__ == "__main__":
    main()
