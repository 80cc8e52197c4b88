#!/usr/bin/env python3
"""Draws a terminal capture (`tmux capture-pane -p -e`: text with SGR colour
sequences) as an SVG: one 8×16 cell per character, half blocks (▀) as two
rectangles so thumbnails stay crisp. Reads stdin, writes stdout."""
import html
import re
import sys

CELL_W, CELL_H = 8, 16
DEFAULT_FG, DEFAULT_BG = (204, 204, 204), (24, 24, 24)


def palette(index):
    """The xterm 256-colour palette."""
    base = [(0, 0, 0), (205, 0, 0), (0, 205, 0), (205, 205, 0), (0, 0, 238), (205, 0, 205), (0, 205, 205), (229, 229, 229),
            (127, 127, 127), (255, 0, 0), (0, 255, 0), (255, 255, 0), (92, 92, 255), (255, 0, 255), (0, 255, 255), (255, 255, 255)]
    if index < 16:
        return base[index]
    if index < 232:
        index -= 16
        levels = [0, 95, 135, 175, 215, 255]
        return (levels[index // 36], levels[index // 6 % 6], levels[index % 6])
    grey = 8 + 10 * (index - 232)
    return (grey, grey, grey)


def apply_sgr(params, state):
    codes = [int(p) if p else 0 for p in params.split(";")] if params else [0]
    i = 0
    while i < len(codes):
        code = codes[i]
        if code == 0:
            state.update(fg=None, bg=None, bold=False)
        elif code == 1:
            state["bold"] = True
        elif code in (38, 48) and i + 1 < len(codes):
            key = "fg" if code == 38 else "bg"
            if codes[i + 1] == 2 and i + 4 < len(codes):
                state[key] = tuple(codes[i + 2:i + 5])
                i += 4
            elif codes[i + 1] == 5 and i + 2 < len(codes):
                state[key] = palette(codes[i + 2])
                i += 2
        elif code == 39:
            state["fg"] = None
        elif code == 49:
            state["bg"] = None
        elif 30 <= code <= 37 or 90 <= code <= 97:
            state["fg"] = palette(code - 30 if code < 90 else code - 82)
        elif 40 <= code <= 47 or 100 <= code <= 107:
            state["bg"] = palette(code - 40 if code < 100 else code - 92)
        i += 1


def main():
    lines = sys.stdin.read().rstrip("\n").split("\n")
    state = {"fg": None, "bg": None, "bold": False}
    cells = []
    for line in lines:
        row = []
        for token in re.split(r"(\x1b\[[0-9;]*m)", line):
            if token.startswith("\x1b["):
                apply_sgr(token[2:-1], state)
            else:
                row.extend((ch, state["fg"], state["bg"], state["bold"]) for ch in token)
        cells.append(row)
    columns = max((len(r) for r in cells), default=0)
    width, height = columns * CELL_W, len(cells) * CELL_H
    rgb = lambda c: "rgb(%d,%d,%d)" % c
    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d">' % (width, height, width, height),
           '<rect width="100%%" height="100%%" fill="%s"/>' % rgb(DEFAULT_BG),
           '<g font-family="DejaVu Sans Mono, monospace" font-size="13">']
    for y, row in enumerate(cells):
        for x, (ch, fg, bg, bold) in enumerate(row):
            px, py = x * CELL_W, y * CELL_H
            if ch == "▀":
                out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/>' % (px, py, CELL_W, CELL_H // 2, rgb(fg or DEFAULT_FG)))
                out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/>' % (px, py + CELL_H // 2, CELL_W, CELL_H // 2, rgb(bg or DEFAULT_BG)))
                continue
            if bg:
                out.append('<rect x="%d" y="%d" width="%d" height="%d" fill="%s"/>' % (px, py, CELL_W, CELL_H, rgb(bg)))
            if ch != " ":
                out.append('<text x="%d" y="%d" fill="%s"%s>%s</text>' % (
                    px, py + 12, rgb(fg or DEFAULT_FG), ' font-weight="bold"' if bold else "", html.escape(ch)))
    out.append("</g></svg>")
    print("\n".join(out))


if __name__ == "__main__":
    main()
