#!/usr/bin/env python3
"""Checks the relative links of README.md and docs/*.md: each must name a file that exists and,
with a #fragment (`file.md#anchor`, or `#anchor` in the same file), a heading of that Markdown file,
by GitHub's slugs. Links with a scheme (https:, mailto:) are not checked.

Usage: scripts/check-docs-links.py [ROOT]   (default: the package root)
Exit status 0 when every link resolves, 1 with one line per broken link on stderr."""

import re
import sys
import unicodedata
from pathlib import Path

# [text](target) and ![alt](target); the target ends at whitespace (a title may follow) or ")".
LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE = re.compile(r"(`+)(.+?)\1")


def slug(heading):
    """GitHub's anchor for a heading's text: Markdown marks and punctuation dropped, lower case,
    spaces to hyphens (hyphens and underscores kept)."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link keeps its text
    text = text.replace("`", "").lower()
    kept = []
    for character in text:
        if character in " -_":
            kept.append("-" if character == " " else character)
        elif unicodedata.category(character)[0] in "LNM":
            kept.append(character)
    return "".join(kept)


def prose_lines(path):
    """The lines of a Markdown file with its fenced code blocks blanked, numbered from 1."""
    fenced = False
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            yield number, ""
        else:
            yield number, "" if fenced else line


def anchors(path, cache={}):
    """Every heading anchor of a Markdown file; a repeated heading gets -1, -2… as on GitHub."""
    if path not in cache:
        seen = {}
        found = set()
        for _, line in prose_lines(path):
            match = HEADING.match(line)
            if not match:
                continue
            base = slug(match.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
        cache[path] = found
    return cache[path]


def broken_links(root):
    documents = [root / "README.md"] + sorted((root / "docs").glob("*.md"))
    problems = []
    for document in documents:
        if not document.exists():
            problems.append(f"{document.relative_to(root)}: missing")
            continue
        # A link's text may run over lines: look at the whole prose, code spans taken out.
        text = "\n".join(INLINE_CODE.sub("", line) for _, line in prose_lines(document))
        for match in LINK.finditer(text):
            target = match.group(1)
            number = text.count("\n", 0, match.start()) + 1
            if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
                continue  # https:, mailto: …: not a relative link
            file_part, _, fragment = target.partition("#")
            linked = (document.parent / file_part).resolve() if file_part else document
            where = f"{document.relative_to(root)}:{number}: ({target})"
            if not linked.exists():
                problems.append(f"{where} names {file_part}, which does not exist")
            elif fragment:
                if linked.suffix != ".md" or linked.is_dir():
                    problems.append(f"{where} has an anchor, but {file_part} is no Markdown file")
                elif fragment not in anchors(linked):
                    problems.append(f"{where}: no heading with the anchor #{fragment} in {linked.name}")
    return problems


def main():
    root = Path(sys.argv[1] if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent).resolve()
    problems = broken_links(root)
    for problem in problems:
        print(f"check-docs-links: {problem}", file=sys.stderr)
    if problems:
        print(f"check-docs-links: {len(problems)} broken link(s)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
