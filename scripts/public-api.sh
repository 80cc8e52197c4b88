#!/usr/bin/env bash
# Counts the library modules' public API from their symbol graphs: symbols and
# types per module, and every public extension on another module's types
# (the standard library's included). Usage: scripts/public-api.sh [--list]
# (--list also prints each public type).
set -euo pipefail
cd "$(dirname "$0")/.."
# libxml2's headers: the build finds them through unsafeFlags (libxml2Headers in Package.swift), which
# the symbol graph extractor is not given, and it loads ThumbnailFeeds' internal imports.
sdk=$(xcrun --show-sdk-path 2>/dev/null || true)
export CPATH="$sdk/usr/include/libxml2${CPATH:+:$CPATH}"
log=$(swift package dump-symbol-graph --minimum-access-level public 2>&1) || { echo "$log" >&2; exit 1; }
python3 - "$(swift build --show-bin-path 2>/dev/null)/../symbolgraph" "$@" <<'PY'
import glob, json, os, sys
folder, listing = sys.argv[1], "--list" in sys.argv[2:]
modules = ["ThumbnailKit", "ThumbnailHTTP", "ThumbnailFeeds", "ThumbnailTerminal"]
type_kinds = {"swift.class", "swift.struct", "swift.enum", "swift.protocol", "swift.typealias"}
print("| module | public symbols | public types | symbols in extensions of other modules' types |")
print("| --- | ---: | ---: | ---: |")
for module in modules:
    path = os.path.join(folder, module + ".symbols.json")
    if not os.path.exists(path):
        continue
    symbols = json.load(open(path))["symbols"]
    types = sorted(".".join(s["pathComponents"]) for s in symbols if s["kind"]["identifier"] in type_kinds)
    foreign = []
    for other in sorted(glob.glob(os.path.join(folder, module + "@*.symbols.json"))):
        foreign += [".".join(s["pathComponents"]) for s in json.load(open(other))["symbols"]]
    print("| %s | %d | %d | %d%s |" % (module, len(symbols), len(types), len(foreign),
                                       (": " + ", ".join(sorted(foreign))) if foreign else ""))
    if listing:
        print("|  | types: " + ", ".join(types) + " | | |")
PY
