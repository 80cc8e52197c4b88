#!/usr/bin/env bash
# Installs the `thumbnailer` command where shells look for it: the binary, its man page (made by
# swift-argument-parser's generate-manual plugin from the command's own help) and its completion
# scripts for bash, zsh and fish.
#
#   scripts/install.sh [--prefix DIR] [--configuration release|debug] [--static-swift-stdlib]
#
#   --prefix DIR              where to install (default /usr/local): DIR/bin/thumbnailer,
#                             DIR/share/man/man1/thumbnailer.1, DIR/share/bash-completion/completions/thumbnailer,
#                             DIR/share/zsh/site-functions/_thumbnailer, DIR/share/fish/vendor_completions.d/thumbnailer.fish
#   --configuration           the build to install (default release; the tests install the debug build
#                             they already have, to check this script without a release build)
#   --static-swift-stdlib     link the Swift runtime into the binary, for a machine without the
#                             toolchain (by default the binary finds the runtime of the toolchain that
#                             built it, through its RUNPATH)
#
# $DESTDIR is put before the prefix, for packaging. The build's system libraries (scripts/setup.sh)
# must be installed where the command runs.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=/usr/local configuration=release static=()
usage() { sed -n '6p' "$0" | sed 's/^#   /usage: /' >&2; }
while [ $# -gt 0 ]; do
    case $1 in
        --prefix) prefix=${2:?--prefix needs a directory}; shift 2 ;;
        --prefix=*) prefix=${1#*=}; shift ;;
        --configuration) configuration=${2:?--configuration needs release or debug}; shift 2 ;;
        --configuration=*) configuration=${1#*=}; shift ;;
        --static-swift-stdlib) static=(--static-swift-stdlib); shift ;;
        -h | --help) usage; exit 0 ;;
        *) usage; exit 64 ;;
    esac
done
case $configuration in release | debug) ;; *) usage; exit 64 ;; esac
root="${DESTDIR:-}$prefix"

scripts/setup.sh >&2
swift build -c "$configuration" "${static[@]}" --product thumbnailer >&2
binary="$(swift build -c "$configuration" "${static[@]}" --show-bin-path)/thumbnailer"

# The plugin builds the package's executables in this configuration (already built: the same
# flags) and runs `thumbnailer --experimental-dump-help` to write the page.
swift package plugin generate-manual --configuration "$configuration" >&2
manual=$(find .build/plugins/GenerateManual -name thumbnailer.1 -newer "$binary" | head -1)
[ -n "$manual" ] || { echo "install: the generate-manual plugin wrote no thumbnailer.1" >&2; exit 1; }

install -d "$root/bin" "$root/share/man/man1" "$root/share/bash-completion/completions" \
    "$root/share/zsh/site-functions" "$root/share/fish/vendor_completions.d"
install -m 755 "$binary" "$root/bin/thumbnailer"
# The generator keeps the blank line between two paragraphs of a discussion, which mdoc warns about:
# it is mdoc's paragraph macro.
sed 's/^$/.Pp/' "$manual" > "$root/share/man/man1/thumbnailer.1"
chmod 644 "$root/share/man/man1/thumbnailer.1"
"$binary" --generate-completion-script bash > "$root/share/bash-completion/completions/thumbnailer"
"$binary" --generate-completion-script zsh > "$root/share/zsh/site-functions/_thumbnailer"
"$binary" --generate-completion-script fish > "$root/share/fish/vendor_completions.d/thumbnailer.fish"
echo "installed thumbnailer $("$root/bin/thumbnailer" --version) in $root" >&2
