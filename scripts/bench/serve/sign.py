#!/usr/bin/env python3
"""Signed `thumbnailer serve` paths for scripts/bench-serve.sh, as imgproxy signs
them: base64url (no padding) of HMAC-SHA256(key, salt + path), key and salt hex
from THUMBNAILER_KEY and THUMBNAILER_SALT.

Usage: sign.py BOX ORIGIN PATH... ; prints /SIGNATURE/BOX/fit/BASE64URL(ORIGIN/PATH) per line."""
import base64
import hashlib
import hmac
import os
import sys


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def main():
    key = bytes.fromhex(os.environ["THUMBNAILER_KEY"])
    salt = bytes.fromhex(os.environ["THUMBNAILER_SALT"])
    box, origin = sys.argv[1], sys.argv[2]
    for path in sys.argv[3:]:
        unsigned = "/%s/fit/%s" % (box, b64(("%s/%s" % (origin, path)).encode()))
        signature = b64(hmac.new(key, salt + unsigned.encode(), hashlib.sha256).digest())
        print("/%s%s" % (signature, unsigned))


if __name__ == "__main__":
    main()
