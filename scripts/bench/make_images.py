#!/usr/bin/python3
"""Builds the benchmark's image set from freely licensed wallpaper photos.

Usage: make_images.py OUT_DIR [--magick PATH] [--force]

Sources are Debian's lomiri-wallpapers-16.04 photos in /usr/share/backgrounds.
Only files whose stanza in the package's copyright file says CC0 or CC-BY
(not -SA/-NC/-ND) are used; the script refuses anything else. The images are
cropped to the target aspect ratio and resampled with Pillow (LANCZOS); the
CMYK JPEG, the 16-bit PNG and the Adam7 PNG go through ImageMagick because
Pillow cannot write those; the WebPs are Pillow's (libwebp, method 4). The newer formats come
from their own encoders: avifenc (8-bit 4:2:0), a HEIC laid out as an iPhone writes one (a grid of
512 px HEVC tiles from heif-enc with a 320×240 thumbnail item, by scripts/make-test-images.py's
iphone_like_heic), cjxl lossy and cjxl's lossless recompression of a JPEG of the set.
OUT_DIR/manifest.json lists what was made (format details read back from the files) plus the
attribution of every source.

The set is cached: a second run with the same generator source does nothing.
"""
import argparse
import hashlib
import importlib.util
import json
import os
import re
import struct
import subprocess
import sys

from PIL import Image, JpegImagePlugin

BACKGROUNDS = "/usr/share/backgrounds"
COPYRIGHT_FILES = [
    "/usr/share/doc/lomiri-wallpapers-16.04/copyright",
    "/usr/share/doc/lomiri-wallpapers-20.04/copyright",
    "/usr/share/doc/lomiri-wallpapers/copyright",
]
ALLOWED_LICENSES = ("CC0-", "CC-BY-")  # CC-BY-SA etc. are filtered out below
MANIFEST_VERSION = 1

# id, file name, kind, source photo, width, height, how, description, groups
JPEGS = [
    ("j1", "j1_baseline420_q90_6000x4000.jpg", "sunset_by_Aitzol_Berasategi.jpg", 6000, 4000,
     dict(tool="pillow", mode="RGB", quality=90, subsampling=2),
     "baseline 4:2:0 q90, 24 MP", ["jpeg", "single_jpeg_big"]),
    ("j2", "j2_baseline444_q90_3300x2200.jpg", "life_by_Aitzol_Berasategi.jpg", 3300, 2200,
     dict(tool="pillow", mode="RGB", quality=90, subsampling=0),
     "baseline 4:4:4 q90", ["jpeg"]),
    ("j3", "j3_progressive420_q90_4000x3000.jpg", "picosdeeuropa_by_Aitzol_Berasategi.jpg", 4000, 3000,
     dict(tool="pillow", mode="RGB", quality=90, subsampling=2, progressive=True),
     "progressive 4:2:0 q90 (standard 10-scan script)", ["jpeg", "single_progressive"]),
    ("j4", "j4_gray_q90_4000x3000.jpg", "Picture_0B_by_freespace.jpg", 4000, 3000,
     dict(tool="pillow", mode="L", quality=90),
     "grayscale q90", ["jpeg"]),
    ("j5", "j5_cmyk_adobe_q90_3000x2000.jpg", "seeding_by_Clements_Engelhardt.jpg", 3000, 2000,
     dict(tool="magick", args=["-colorspace", "CMYK", "-sampling-factor", "1x1", "-quality", "90"], fmt="JPG"),
     "CMYK (Adobe, inverted) q90, ImageMagick", ["jpeg"]),
    ("j6", "j6_baseline420_q85_4000x3000.jpg", "aitzgorri_by_Aitzol_Berasategi.jpg", 4000, 3000,
     dict(tool="pillow", mode="RGB", quality=85, subsampling=2),
     "baseline 4:2:0 q85", ["jpeg"]),
    ("j7", "j7_progressive420_q90_6000x4000.jpg", "aitzgorri_by_Aitzol_Berasategi.jpg", 6000, 4000,
     dict(tool="pillow", mode="RGB", quality=90, subsampling=2, progressive=True),
     "progressive 4:2:0 q90, 24 MP", ["single_progressive_big_420"]),
    ("j8", "j8_progressive444_q90_6000x4000.jpg", "life_by_Aitzol_Berasategi.jpg", 6000, 4000,
     dict(tool="pillow", mode="RGB", quality=90, subsampling=0, progressive=True),
     "progressive 4:4:4 q90, 24 MP", ["single_progressive_big_444"]),
]
PNGS = [
    ("p1", "p1_rgb8_1000x1500.png", "friends_by_Aitzol_Berasategi.jpg", 1000, 1500,
     dict(tool="pillow", mode="RGB"), "RGB 8-bit", ["png"]),
    ("p2", "p2_rgba8_1500x1000.png", "sunset_by_Aitzol_Berasategi.jpg", 1500, 1000,
     dict(tool="pillow", mode="RGBA"), "RGBA 8-bit, alpha gradient", ["png"]),
    ("p3", "p3_gray8_1728x1152.png", "life_by_Aitzol_Berasategi.jpg", 1728, 1152,
     dict(tool="pillow", mode="L"), "gray 8-bit", ["png"]),
    ("p4", "p4_palette_1632x1224.png", "picosdeeuropa_by_Aitzol_Berasategi.jpg", 1632, 1224,
     dict(tool="pillow", mode="P"), "palette, 256 colours", ["png"]),
    ("p5", "p5_rgb16_1500x1000.png", "seeding_by_Clements_Engelhardt.jpg", 1500, 1000,
     dict(tool="magick", args=["-depth", "16"], fmt="PNG48"),
     "RGB 16-bit (8-bit values widened x257 by ImageMagick)", ["png"]),
    ("p6", "p6_adam7_rgb8_1365x1074.png", "Picture_1A_by_freespace.jpg", 1365, 1074,
     dict(tool="magick", args=["-interlace", "PNG"], fmt="PNG24"),
     "RGB 8-bit Adam7-interlaced (ImageMagick), photo at native size", ["png"]),
    ("p7", "p7_rgb8_4000x3000.png", "umang_by_Abhishek_Mudgal.jpg", 4000, 3000,
     dict(tool="pillow", mode="RGB"), "RGB 8-bit, 12 MP (RSS check)", ["single_png_big"]),
]
WEBPS = [
    ("w1", "w1_lossy_q80_4000x3000.webp", "picosdeeuropa_by_Aitzol_Berasategi.jpg", 4000, 3000,
     dict(tool="pillow", mode="RGB", quality=80), "lossy q80", ["webp"]),
    ("w2", "w2_lossy_q80_3300x2200.webp", "life_by_Aitzol_Berasategi.jpg", 3300, 2200,
     dict(tool="pillow", mode="RGB", quality=80), "lossy q80", ["webp"]),
    ("w3", "w3_lossy_alpha_q80_3000x2000.webp", "sunset_by_Aitzol_Berasategi.jpg", 3000, 2000,
     dict(tool="pillow", mode="RGBA", quality=80), "lossy q80 with a lossless alpha gradient", ["webp"]),
    ("w4", "w4_lossless_1000x1500.webp", "friends_by_Aitzol_Berasategi.jpg", 1000, 1500,
     dict(tool="pillow", mode="RGB", lossless=True), "lossless", ["webp"]),
    ("w5", "w5_lossy_q80_6000x4000.webp", "aitzgorri_by_Aitzol_Berasategi.jpg", 6000, 4000,
     dict(tool="pillow", mode="RGB", quality=80), "lossy q80, 24 MP (RSS check)", ["single_webp_big"]),
]
# The newer formats, 24 MP each: the whole-process figures issue 7/7 asks for.
MODERN = [
    ("a1", "a1_avif420_q60_6000x4000.avif", "aitzgorri_by_Aitzol_Berasategi.jpg", 6000, 4000,
     dict(tool="avifenc", args=["-s", "6", "-j", "2", "-d", "8", "-y", "420", "--min", "20", "--max", "30"]),
     "AVIF 8-bit 4:2:0 (avifenc speed 6), 24 MP", ["single_avif_big"]),
    ("h1", "h1_heic_iphone_5712x4284.heic", "picosdeeuropa_by_Aitzol_Berasategi.jpg", 5712, 4284,
     dict(tool="heic_iphone", quality=60),
     "HEIC as an iPhone writes it: 12×9 grid of 512 px tiles, 320×240 thumbnail item, 24 MP", ["single_heic_big"]),
    ("x1", "x1_jxl_lossy_d1_6000x4000.jxl", "sunset_by_Aitzol_Berasategi.jpg", 6000, 4000,
     dict(tool="cjxl", args=["-d", "1"]), "JPEG XL lossy (cjxl -d 1), 24 MP", ["single_jxl_lossy_big"]),
    ("x2", "x2_jxl_recompressed_6000x4000.jxl", "sunset_by_Aitzol_Berasategi.jpg", 6000, 4000,
     dict(tool="cjxl_jpeg", jpeg="j1_baseline420_q90_6000x4000.jpg"),
     "JPEG XL: j1 recompressed losslessly (cjxl, jbrd), 24 MP", ["single_jxl_recompressed_big"]),
]


def make_test_images_module():
    """scripts/make-test-images.py as a module, for its HEIF box writer."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "make-test-images.py")
    spec = importlib.util.spec_from_file_location("make_test_images", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def parse_copyright():
    """Maps a wallpaper's base name to (copyright holder, license) from the Debian copyright file."""
    for path in COPYRIGHT_FILES:
        if os.path.exists(path):
            break
    else:
        sys.exit("make_images: no lomiri-wallpapers copyright file found (install lomiri-wallpapers-16.04)")
    entries = {}
    with open(path, encoding="utf-8") as f:
        stanzas = f.read().split("\n\n")
    for stanza in stanzas:
        fields, key = {}, None
        for line in stanza.splitlines():
            if line[:1] in (" ", "\t") and key:
                fields[key] += " " + line.strip()
            elif ":" in line:
                key, value = line.split(":", 1)
                fields[key] = value.strip()
        if "Files" in fields and "License" in fields:
            for name in fields["Files"].split():
                entries[os.path.basename(name)] = (fields.get("Copyright", "?"), fields["License"])
    return path, entries


def fitted(src, width, height):
    """The source photo, centre-cropped to width:height and resampled to exactly that size."""
    im = Image.open(os.path.join(BACKGROUNDS, src))
    im = im.convert("RGB")
    sw, sh = im.size
    if sw * height > sh * width:
        cw = sh * width // height
        box = ((sw - cw) // 2, 0, (sw - cw) // 2 + cw, sh)
    else:
        ch = sw * height // width
        box = (0, (sh - ch) // 2, sw, (sh - ch) // 2 + ch)
    im = im.crop(box)
    if im.size != (width, height):
        im = im.resize((width, height), Image.LANCZOS)
    return im


def alpha_gradient(width, height):
    """Alpha falling from opaque (left) to 25 % (right)."""
    ramp = Image.linear_gradient("L").rotate(90, expand=True)  # 255 left .. 0 right
    ramp = ramp.point(lambda v: 64 + v * 191 // 255)
    return ramp.resize((width, height), Image.BILINEAR)


def png_header(path):
    with open(path, "rb") as f:
        head = f.read(33)
    if head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        raise ValueError(f"{path} is not a PNG")
    w, h, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", head[16:29])
    names = {0: "gray", 2: "RGB", 3: "palette", 4: "gray+alpha", 6: "RGBA"}
    return dict(width=w, height=h, format=f"PNG {names.get(ctype, ctype)} {depth}-bit"
                + (", Adam7" if interlace else ""), has_alpha=ctype in (4, 6))


def jpeg_header(path):
    with Image.open(path) as im:
        sampling = {0: "4:4:4", 1: "4:2:2", 2: "4:2:0"}.get(JpegImagePlugin.get_sampling(im), "n/a")
        kind = "progressive" if im.info.get("progressive") else "baseline"
        extra = ", Adobe" if "adobe" in im.info else ""
        if im.mode in ("L", "CMYK"):
            sampling = "1x1"
        return dict(width=im.size[0], height=im.size[1],
                    format=f"JPEG {kind} {im.mode} {sampling}{extra}", has_alpha=False)


def webp_header(path):
    with open(path, "rb") as f:
        data = f.read()
    chunks, offset = [], 12  # the RIFF container's chunk names, in order
    while offset + 8 <= len(data):
        size = struct.unpack("<I", data[offset + 4:offset + 8])[0]
        chunks.append(data[offset:offset + 4])
        offset += 8 + size + (size & 1)
    kind = "lossless" if b"VP8L" in chunks else "lossy"
    with Image.open(path) as im:
        return dict(width=im.size[0], height=im.size[1], format=f"WebP {kind} {im.mode}",
                    has_alpha=im.mode == "RGBA")


def modern_header(path):
    """Size and kind of an AVIF, HEIC or JPEG XL file, as its own tools report them."""
    kind = os.path.splitext(path)[1][1:]
    argv = {"avif": ["avifdec", "--info", path], "heic": ["heif-info", path], "jxl": ["jxlinfo", path]}[kind]
    text = subprocess.run(argv, check=True, capture_output=True, text=True).stdout
    width, height = map(int, re.search(r"(\d+)\s*x\s*(\d+)", text).groups())
    names = {"avif": "AVIF", "heic": "HEIC", "jxl": "JPEG XL"}
    return dict(width=width, height=height, format=names[kind], has_alpha=False)


def make(spec, out_dir, magick, tmp_dir):
    ident, name, src, width, height, how, desc, groups = spec
    final = os.path.join(out_dir, name)
    tmp = os.path.join(tmp_dir, name)
    if how["tool"] == "cjxl_jpeg":
        subprocess.run(["cjxl", os.path.join(out_dir, how["jpeg"]), tmp, "--lossless_jpeg=1"], check=True,
                       capture_output=True)
        os.replace(tmp, final)
        return
    im = fitted(src, width, height)
    if how["tool"] in ("avifenc", "cjxl"):
        png = os.path.join(tmp_dir, ident + ".png")
        im.save(png, "PNG", compress_level=1)
        subprocess.run([how["tool"], *how["args"], png, tmp] if how["tool"] == "avifenc"
                       else [how["tool"], png, tmp, *how["args"]], check=True, capture_output=True)
        os.unlink(png)
    elif how["tool"] == "heic_iphone":
        module = make_test_images_module()
        data = module.iphone_like_heic(im, im.resize((320, 240), Image.BOX), quality=how["quality"])
        with open(tmp, "wb") as f:
            f.write(data)
    elif how["tool"] == "pillow":
        mode = how["mode"]
        if mode == "RGBA":
            im.putalpha(alpha_gradient(width, height))
        elif mode == "L":
            im = im.convert("L")
        elif mode == "P":
            im = im.quantize(256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.FLOYDSTEINBERG)
        if name.endswith(".webp"):
            im.save(tmp, "WEBP", quality=how.get("quality", 80), lossless=how.get("lossless", False), method=4)
        elif name.endswith(".jpg"):
            im.save(tmp, "JPEG", quality=how["quality"], subsampling=how.get("subsampling", 0),
                    progressive=how.get("progressive", False), optimize=how.get("progressive", False))
        else:
            im.save(tmp, "PNG", compress_level=6)
    else:
        ppm = os.path.join(tmp_dir, ident + ".ppm")
        im.save(ppm, "PPM")
        cmd = [magick, ppm, "-strip", *how["args"], f"{how['fmt']}:{tmp}"]
        subprocess.run(cmd, check=True)
        os.unlink(ppm)
    os.replace(tmp, final)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir")
    ap.add_argument("--magick", default="convert-im6.q16", help="ImageMagick 6 convert binary")
    ap.add_argument("--force", action="store_true", help="regenerate even when cached")
    args = ap.parse_args()

    out_dir = os.path.abspath(args.out_dir)
    os.makedirs(out_dir, exist_ok=True)
    manifest_path = os.path.join(out_dir, "manifest.json")
    with open(__file__, "rb") as f:
        generator = hashlib.sha256(f.read()).hexdigest()[:16]

    if not args.force and os.path.exists(manifest_path):
        with open(manifest_path) as f:
            old = json.load(f)
        if old.get("generator") == generator and all(
                os.path.exists(os.path.join(out_dir, i["file"])) and
                os.path.getsize(os.path.join(out_dir, i["file"])) == i["bytes"] for i in old["images"]):
            print(f"images: cached in {out_dir}", file=sys.stderr)
            return

    copyright_path, licenses = parse_copyright()
    specs = JPEGS + PNGS + WEBPS + MODERN
    for spec in specs:
        src = spec[2]
        if src not in licenses:
            sys.exit(f"make_images: {src} has no entry in {copyright_path}")
        lic = licenses[src][1]
        if not lic.startswith(ALLOWED_LICENSES) or lic.startswith(("CC-BY-SA", "CC-BY-NC", "CC-BY-ND")):
            sys.exit(f"make_images: {src} is {lic}; only CC0 and CC-BY sources are used")
        if not os.path.exists(os.path.join(BACKGROUNDS, src)):
            sys.exit(f"make_images: {BACKGROUNDS}/{src} is missing (install lomiri-wallpapers-16.04)")

    tmp_dir = os.path.join(out_dir, ".tmp")
    os.makedirs(tmp_dir, exist_ok=True)
    images = []
    for spec in specs:
        ident, name, src, width, height, how, desc, groups = spec
        print(f"images: making {name} from {src}", file=sys.stderr)
        make(spec, out_dir, args.magick, tmp_dir)
        path = os.path.join(out_dir, name)
        kind = os.path.splitext(name)[1][1:].replace("jpg", "jpeg")
        info = {"png": png_header, "jpeg": jpeg_header, "webp": webp_header, "avif": modern_header,
                "heic": modern_header, "jxl": modern_header}[kind](path)
        if (info["width"], info["height"]) != (width, height):
            sys.exit(f"make_images: {name} came out {info['width']}x{info['height']}")
        holder, lic = licenses[src]
        images.append(dict(id=ident, file=name, kind=kind,
                           description=desc, groups=groups, bytes=os.path.getsize(path),
                           megapixels=round(width * height / 1e6, 2), source=src,
                           copyright=holder, license=lic, **info))
    os.rmdir(tmp_dir)
    manifest = dict(version=MANIFEST_VERSION, generator=generator, copyright_file=copyright_path,
                    images=images)
    with open(manifest_path + ".tmp", "w") as f:
        json.dump(manifest, f, indent=1)
    os.replace(manifest_path + ".tmp", manifest_path)
    print(f"images: wrote {len(images)} images to {out_dir}", file=sys.stderr)


if __name__ == "__main__":
    main()
