#!/usr/bin/env python3
"""A 6000x4000 (24 MP) JPEG for scripts/bench-serve.sh --giant: gradients and
grain, quality 90, about 11 MB, as a camera's JPEG of that size is. Needs Pillow.

Usage: giant.py PATH"""
import sys

from PIL import Image


def main():
    width, height = 6000, 4000
    across = Image.linear_gradient("L").resize((width, height))
    down = across.transpose(Image.Transpose.ROTATE_90).resize((width, height))
    grain = Image.effect_noise((width, height), 24)
    Image.merge("RGB", (across, grain, down)).save(sys.argv[1], quality=90)


if __name__ == "__main__":
    main()
