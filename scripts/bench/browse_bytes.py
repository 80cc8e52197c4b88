#!/usr/bin/env python3
"""Bytes a terminal receives while `thumbnailer browse` scrolls, per graphics protocol.

Runs browse in a pseudo-terminal of COLUMNS x ROWS cells of CELL pixels (the window size's pixel
fields set, and the cell-size query answered), plays the terminal's part in detection (DA1 says
sixel; the kitty query is answered OK when kitty is measured), waits for the first screen to load,
moves the selection to the last visible row, then holds j: KEYS presses at RATE per second, each
scrolling the list one row. Everything browse writes from the first press until the screen is
still again is counted (and browse's CPU time meanwhile), and split into frames (writes closer than 12 ms belong to one frame: the cap keeps frames 30 ms apart).

Usage: browse_bytes.py THUMBNAILER FEED_URL CACHE_DIR [--keys N] [--rate R] [--cell WxH]
                       [--size COLSxROWS] [--protocols blocks,kitty,sixel,iterm]
Prints one JSON object per protocol on stdout."""
import argparse
import fcntl
import json
import os
import select
import statistics
import struct
import subprocess
import termios
import time

BEGIN, END = b"\x1b[?2026h", b"\x1b[?2026l"


class Terminal:
    """A pty with browse on its other side; everything browse writes is read and timed."""

    def __init__(self, command, columns, rows, cell, protocol):
        self.master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, columns * cell[0], rows * cell[1]))
        self.cell, self.protocol = cell, protocol
        self.process = subprocess.Popen(command, stdin=slave, stdout=slave, stderr=subprocess.DEVNULL,
                                        env=dict(os.environ, COLORTERM="truecolor", TERM="xterm-256color"),
                                        start_new_session=True)
        os.close(slave)
        self.pending = b""
        self.offset = 0  # bytes read so far
        self.tail = b""  # the last bytes read, for a mark split across reads
        self.restart()

    def restart(self):
        """Counts from here."""
        self.start_offset = self.offset
        self.marks = []  # (time, BEGIN or END, offset of the mark)

    def answer(self, data):
        """Replies to the detection queries, as the terminal measured would."""
        self.pending = (self.pending + data)[-64:]
        replies = b""
        if b"\x1b_Gi=31," in self.pending and self.protocol == "kitty":
            replies += b"\x1b_Gi=31;OK\x1b\\"
        if b"\x1b[16t" in self.pending:
            replies += b"\x1b[6;%d;%dt" % (self.cell[1], self.cell[0])
        if b"\x1b[c" in self.pending:
            replies += b"\x1b[?62;4;22c"
            self.pending = b""
        if replies:
            os.write(self.master, replies)

    def pump(self, seconds):
        """Reads for `seconds`; returns the bytes read."""
        end = time.monotonic() + seconds
        total = 0
        while True:
            left = end - time.monotonic()
            if left <= 0:
                return total
            ready, _, _ = select.select([self.master], [], [], left)
            if not ready:
                continue
            try:
                data = os.read(self.master, 1 << 16)
            except OSError:
                return total
            if not data:
                return total
            now = time.monotonic()
            window = self.tail + data
            for mark in (BEGIN, END):
                index = window.find(mark)
                while index >= 0:
                    self.marks.append((now, mark, self.offset - len(self.tail) + index))
                    index = window.find(mark, index + 1)
            self.offset += len(data)
            self.tail = window[-(len(BEGIN) - 1):]
            self.answer(data)
            total += len(data)

    def settle(self, quiet=1.0, limit=60.0):
        """Reads until nothing arrives for `quiet` seconds (the screen is still), at most `limit`."""
        end = time.monotonic() + limit
        while time.monotonic() < end:
            if self.pump(quiet) == 0:
                return True
        return False

    def press(self, key, count, rate):
        start = time.monotonic()
        for index in range(count):
            os.write(self.master, key)
            self.pump(max(0.0, start + (index + 1) / rate - time.monotonic()))

    def cpu_seconds(self):
        """browse's user + system CPU time so far."""
        fields = open("/proc/%d/stat" % self.process.pid).read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def quit(self):
        os.write(self.master, b"q")
        self.pump(0.5)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        os.close(self.master)
        return self.process.returncode


def frames(marks):
    """The frames between the marks: (began, ended, bytes), in order."""
    result, began = [], None
    for moment, mark, offset in sorted(marks, key=lambda entry: entry[2]):
        if mark == BEGIN:
            began = (moment, offset)
        elif began is not None:
            result.append((began[0], moment, offset + len(END) - began[1]))
            began = None
    return result


def measure(args, protocol):
    command = [args.thumbnailer, "browse", args.feed, "--cache-dir", args.cache_dir, "--graphics", protocol]
    columns, rows = args.size
    terminal = Terminal(command, columns, rows, args.cell, protocol)
    terminal.settle(quiet=1.5)
    terminal.press(b"j", args.lead, 20)  # to the last visible row: from here each j scrolls
    terminal.settle(quiet=1.0)
    terminal.restart()
    cpu_before = terminal.cpu_seconds()
    began = time.monotonic()
    terminal.press(b"j", args.keys, args.rate)
    keys_done = time.monotonic()
    settled = terminal.settle(quiet=1.0)
    total = terminal.offset - terminal.start_offset
    groups = frames(terminal.marks)
    cpu = terminal.cpu_seconds() - cpu_before
    status = terminal.quit()
    while_keys = [group for group in groups if group[0] <= keys_done]
    starts = [group[0] for group in groups]
    intervals = [later - earlier for earlier, later in zip(starts, starts[1:])]
    key_intervals = [later[0] - earlier[0] for earlier, later in zip(while_keys, while_keys[1:])]
    last = groups[-1][1] if groups else began
    return {
        "protocol": protocol,
        "cell": "%dx%d" % tuple(args.cell),
        "terminal": "%dx%d" % tuple(args.size),
        "rows_scrolled": args.keys,
        "keys_per_second": args.rate,
        "bytes": total,
        "bytes_per_row": round(total / args.keys),
        "frames": len(groups),
        "frames_per_second_while_scrolling": round(len(while_keys) / max(keys_done - began, 1e-9), 1),
        "min_frame_interval_ms": round(min(intervals) * 1000, 1) if intervals else None,
        "median_frame_interval_ms": round(statistics.median(key_intervals) * 1000, 1) if key_intervals else None,
        "max_frame_interval_while_scrolling_ms": round(max(key_intervals) * 1000, 1) if key_intervals else None,
        "largest_frame_bytes": max((group[2] for group in groups), default=0),
        "median_frame_transfer_ms": round(statistics.median(g[1] - g[0] for g in groups) * 1000, 1) if groups else None,
        "browse_cpu_ms_per_row": round(cpu * 1000 / args.keys, 2),
        "still_after_last_key_s": round(last - keys_done, 2),
        "settled": settled,
        "exit": status,
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("thumbnailer")
    parser.add_argument("feed")
    parser.add_argument("cache_dir")
    parser.add_argument("--keys", type=int, default=250)
    parser.add_argument("--lead", type=int, default=10)
    parser.add_argument("--rate", type=float, default=30)
    parser.add_argument("--cell", type=lambda s: tuple(map(int, s.split("x"))), default=(10, 20))
    parser.add_argument("--size", type=lambda s: tuple(map(int, s.split("x"))), default=(120, 40))
    parser.add_argument("--protocols", default="blocks,kitty,sixel,iterm")
    args = parser.parse_args()
    for protocol in args.protocols.split(","):
        print(json.dumps(measure(args, protocol)), flush=True)


if __name__ == "__main__":
    main()
