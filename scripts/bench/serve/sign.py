#!/usr/bin/env python3
"""`thumbnailer serve` paths for scripts/bench-serve.sh. Signed as imgproxy signs
them when THUMBNAILER_KEY and THUMBNAILER_SALT (hex) are set: base64url (no
padding) of HMAC-SHA256(key, salt + path); else unsigned (signature segment `_`,
for `serve --insecure-unsigned`).

Usage: sign.py BOX ORIGIN PATH... ; prints /SIGNATURE/BOX/fit/BASE64URL(ORIGIN/PATH) per line."""
import base64
import hashlib
import hmac
import os
import sys


def b64(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def main():
    key, salt = os.environ.get("THUMBNAILER_KEY"), os.environ.get("THUMBNAILER_SALT")
    box, origin = sys.argv[1], sys.argv[2]
    for path in sys.argv[3:]:
        unsigned = "/%s/fit/%s" % (box, b64(("%s/%s" % (origin, path)).encode()))
        if key and salt:
            signature = b64(hmac.new(bytes.fromhex(key), bytes.fromhex(salt) + unsigned.encode(), hashlib.sha256).digest())
        else:
            signature = "_"
        print("/%s%s" % (signature, unsigned))


if __name__ == "__main__":
    main()
