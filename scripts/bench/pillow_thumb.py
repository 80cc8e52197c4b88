"""The Pillow peer of scripts/bench.sh: one thumbnail per process.

Usage: pillow_thumb.py SIZE INPUT OUTPUT

Image.draft('RGB', (SIZE, SIZE)) lets libjpeg scale by 1/2, 1/4 or 1/8 while
decoding (JPEG only), thumbnail((SIZE, SIZE)) resamples with Pillow's default
filter, and the result is saved as JPEG q85 or, for OUTPUT ending in .png, PNG.
Palette images become RGB(A) first (Pillow resizes 'P' with nearest neighbour);
CMYK, 16-bit and other modes are converted after shrinking.
"""
import sys

from PIL import Image


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    size, src, dst = int(sys.argv[1]), sys.argv[2], sys.argv[3]
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
