#!/usr/bin/env python3
"""Loopback HTTP server for scripts/bench-warm.sh and scripts/memprofile.sh: serves the test photos
repeated under distinct URLs (/img/N.jpg is photo N mod k), so nothing is
cached by accident, and JSON Feeds of them at /feed-COUNT.json.

Usage: warm_server.py PHOTO... ; prints the port on its first line."""
import http.server
import json
import re
import sys


def main():
    photos = [(path, open(path, "rb").read()) for path in sys.argv[1:]]

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_GET(self):
            feed = re.fullmatch(r"/feed-(\d+)\.json", self.path)
            image = re.fullmatch(r"/img/(\d+)\.(jpg|png)", self.path)
            if feed:
                count = int(feed.group(1))
                items = [{"id": str(n), "title": "photo %d" % n,
                          "image": "/img/%d.%s" % (n, "png" if photos[n % len(photos)][0].endswith(".png") else "jpg")}
                         for n in range(count)]
                body = json.dumps({"version": "https://jsonfeed.org/version/1.1", "title": "bench", "items": items}).encode()
                kind = "application/feed+json"
            elif image:
                path, body = photos[int(image.group(1)) % len(photos)]
                kind = "image/png" if path.endswith(".png") else "image/jpeg"
            else:
                self.send_error(404)
                return
            self.send_response(200)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    class Server(http.server.ThreadingHTTPServer):
        daemon_threads = True

        def handle_error(self, request, client_address):
            pass  # clients hang up mid-transfer whenever a row scrolls away: expected

    server = Server(("127.0.0.1", 0), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
