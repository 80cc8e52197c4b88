"""The Pillow peer of scripts/bench.sh: one thumbnail per process.

Usage: pillow_thumb.py SIZE INPUT OUTPUT

Image.draft('RGB', (SIZE, SIZE)) lets libjpeg scale by 1/2, 1/4 or 1/8 while
decoding (JPEG only), thumbnail((SIZE, SIZE)) resamples with Pillow's default
filter, and the result is saved as JPEG q85 or, for OUTPUT ending in .png, PNG.
Palette images become RGB(A) first (Pillow resizes 'P' with nearest neighbour);
CMYK, 16-bit and other modes are converted after shrinking. AVIF, HEIC and JPEG XL
open through Pillow's own AVIF or pillow-avif-plugin, pillow-heif and pillow-jxl-plugin,
imported only for those files (their import time is part of what they cost).
"""
import importlib.util
import os
import sys

from PIL import Image, features


def register_plugin(path):
    """Imports the plugin that opens path's format, when it is one Pillow cannot open alone."""
    extension = os.path.splitext(path)[1].lower()
    if extension == ".heic":
        import pillow_heif
        pillow_heif.register_heif_opener()
    elif extension == ".avif" and not features.check("avif") and importlib.util.find_spec("pillow_avif"):
        import pillow_avif  # noqa: F401 (registers itself)
    elif extension == ".jxl":
        import pillow_jxl  # noqa: F401 (registers itself)


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    size, src, dst = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    register_plugin(src)
    with Image.open(src) as im:
        im.draft("RGB", (size, size))
        if im.mode == "P":
            im = im.convert("RGBA" if "transparency" in im.info else "RGB")
        im.thumbnail((size, size))
        png = dst.lower().endswith(".png")
        wanted = ("RGB", "RGBA", "L", "LA") if png else ("RGB", "L")
        if im.mode not in wanted:
            im = im.convert("RGBA" if png and "A" in im.getbands() else "RGB")
        if png:
            im.save(dst, "PNG")
        else:
            im.save(dst, "JPEG", quality=85)


if __name__ == "__main__":
    main()
