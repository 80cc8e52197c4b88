/// Screen lines whose content moves as one when a list scrolls: its rows.
/// A terminal can move them itself (scrolling inside margins), so a frame
/// that only scrolled writes the lines that came into view, not all of them.
package struct ScrollingLines: Sendable, Hashable {
    /// The screen lines, from the top (from 0).
    package var lines: Range<Int>
    /// Which line of the content the first of them shows: scrolling three lines down adds three.
    package var offset: Int

    package init(lines: Range<Int>, offset: Int) {
        self.lines = lines
        self.offset = offset
    }

    /// How far the content moved from `previous` to this, when the terminal can move it: the same
    /// lines, moved by at least one and less than their count; `nil` otherwise.
    package func distance(from previous: ScrollingLines?) -> Int? {
        guard let previous, previous.lines == lines else { return nil }
        let distance = offset - previous.offset
        return distance != 0 && abs(distance) < lines.count ? distance : nil
    }

    /// What makes the terminal move these lines' content up by `distance` (down when negative):
    /// plain attributes (the lines scrolled in are blank, in the terminal's own background), the
    /// margins around them, `CSI n S` or `CSI n T`, and the margins back to the whole screen.
    package func scrollSequence(distance: Int) -> String {
        "\u{1B}[0m\u{1B}[\(lines.lowerBound + 1);\(lines.upperBound)r"
            + (distance > 0 ? "\u{1B}[\(distance)S" : "\u{1B}[\(-distance)T") + "\u{1B}[r"
    }
}
