#!/usr/bin/python3
"""Every public symbol of the library products has a doc comment.

    scripts/check-doc-coverage.py

Reads the symbol graphs `swift package dump-symbol-graph --minimum-access-level public` writes
(run it first; scripts/test.sh does) and lists, for ThumbnailKit, ThumbnailHTTP and
ThumbnailServer, each public symbol declared in this package's Sources/ without a doc comment.
A symbol declared elsewhere (a default implementation from Hummingbird, say) is not ours to
document. Exits 1 when it lists any, 0 when there are none.
"""
import json
import os
import subprocess
import sys

MODULES = ("ThumbnailKit", "ThumbnailHTTP", "ThumbnailServer")


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    binaries = subprocess.run(["swift", "build", "--show-bin-path"], cwd=root, capture_output=True, text=True,
                              check=True).stdout.strip()
    folder = os.path.join(binaries, "..", "symbolgraph")
    sources = os.path.join(root, "Sources") + os.sep
    missing = []
    for module in MODULES:
        path = os.path.join(folder, module + ".symbols.json")
        if not os.path.exists(path):
            sys.exit(f"check-doc-coverage: no symbol graph for {module} in {folder}: "
                     "run `swift package dump-symbol-graph --minimum-access-level public` first")
        with open(path) as f:
            symbols = json.load(f)["symbols"]
        for symbol in symbols:
            location = symbol.get("location", {})
            file = location.get("uri", "").removeprefix("file://")
            if not file.startswith(sources) or symbol.get("docComment"):
                continue
            line = location.get("position", {}).get("line", 0) + 1
            missing.append(f"{os.path.relpath(file, root)}:{line}: {module}."
                           f"{'.'.join(symbol['pathComponents'])} has no doc comment")
    for entry in sorted(missing):
        print(entry)
    if missing:
        sys.exit(f"check-doc-coverage: {len(missing)} public symbols without a doc comment")
    print(f"check-doc-coverage: every public symbol of {', '.join(MODULES)} has a doc comment")


if __name__ == "__main__":
    main()
