/// How `browse` draws thumbnails.
package enum GraphicsProtocol: String, Sendable, Hashable, CaseIterable {
    /// Ask the terminal (``GraphicsDetection``), and take the best it offers.
    case auto
    /// The kitty graphics protocol: pixels sent once per image, placed by id.
    case kitty
    /// Sixel images, one per visible thumbnail.
    case sixel
    /// iTerm2's inline images (PNG), one per visible thumbnail; asked for by name only.
    case iterm
    /// Two pixels a cell in half blocks: every terminal with colour.
    case blocks
}

/// What a terminal said it can draw.
package struct TerminalCapabilities: Sendable, Hashable {
    /// It answered the kitty graphics query with `OK`.
    package var kittyGraphics = false
    /// Its primary device attributes (DA1) include 4: sixel graphics.
    package var sixel = false
    /// One cell's size in pixels, when it said (`CSI 6 ; height ; width t`).
    package var cellSize: CellPixelSize?
    /// It answered at all (DA1, which every terminal answers) before the timeout.
    package var answered = false

    package init(kittyGraphics: Bool = false, sixel: Bool = false, cellSize: CellPixelSize? = nil, answered: Bool = false) {
        self.kittyGraphics = kittyGraphics
        self.sixel = sixel
        self.cellSize = cellSize
        self.answered = answered
    }

    /// The protocol `requested` means here: itself, unless it is ``GraphicsProtocol/auto``,
    /// which takes kitty graphics, else sixel, else half blocks. A protocol needs the cell
    /// size to make thumbnails at the size drawn: without it, half blocks.
    package func resolve(_ requested: GraphicsProtocol) -> GraphicsProtocol {
        guard requested == .auto else { return requested }
        guard cellSize != nil else { return .blocks }
        if kittyGraphics { return .kitty }
        if sixel { return .sixel }
        return .blocks
    }

    /// How thumbnails are drawn for `requested`: ``resolve(_:)``'s protocol at this
    /// terminal's cell size, or `fallbackCell` when it did not say (a protocol asked
    /// for by name is used even then).
    package func graphics(for requested: GraphicsProtocol, fallbackCell: CellPixelSize = CellPixelSize(width: 8, height: 16))
        -> TerminalGraphics {
        let cell = cellSize ?? fallbackCell
        return switch resolve(requested) {
        case .kitty: .kitty(cell: cell)
        case .sixel: .sixel(cell: cell)
        case .iterm: .iTerm(cell: cell)
        case .auto, .blocks: .halfBlocks
        }
    }
}

/// A terminal cell's size in pixels.
package struct CellPixelSize: Sendable, Hashable {
    package var width: Int
    package var height: Int

    package init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }
}

/// Asks the terminal what it can draw: a kitty graphics query, the cell size
/// in pixels (`CSI 16 t`), and the primary device attributes (`CSI c`, DA1)
/// last. Every terminal answers DA1, and answers in order, so DA1's reply
/// means the others that did not come will not: the wait ends there, or at the
/// timeout when nothing answers at all (then: half blocks).
package enum GraphicsDetection {
    /// The three queries, in the order that makes DA1's reply the last.
    package static let queries: [UInt8] = KittyGraphics.query + Array("\u{1B}[16t\u{1B}[c".utf8)

    /// Reads replies until DA1's, or until `timeout` has passed.
    /// - Parameters:
    ///   - read: the bytes that arrive within the time it is given (empty when none did).
    ///   - now: a clock, for the deadline.
    /// - Returns: what the terminal said, and the bytes that were not replies
    ///   (keys typed meanwhile), in order, for the key decoder.
    package static func detect(timeout: Duration, now: () -> ContinuousClock.Instant = { .now },
                              read: (Duration) -> [UInt8]) -> (capabilities: TerminalCapabilities, other: [UInt8]) {
        var parser = ReplyParser()
        let deadline = now() + timeout
        while !parser.capabilities.answered {
            let remaining = deadline - now()
            guard remaining > .zero else { break }
            let bytes = read(remaining)
            if bytes.isEmpty, now() >= deadline { break }
            parser.feed(bytes)
        }
        return (parser.capabilities, parser.finish())
    }

    /// Picks the replies out of a byte stream.
    struct ReplyParser {
        private(set) var capabilities = TerminalCapabilities()
        private var pending: [UInt8] = []
        private var other: [UInt8] = []

        mutating func feed(_ bytes: [UInt8]) {
            pending += bytes
            while let start = pending.firstIndex(of: 0x1B) {
                other += pending[..<start]
                guard let length = consumeReply(at: start) else {
                    // Incomplete: wait for more, unless it cannot be a reply at all.
                    pending.removeFirst(start)
                    return
                }
                pending.removeFirst(start + length)
            }
            other += pending
            pending = []
        }

        /// Whatever was not a reply; an unfinished escape at the end goes with it.
        mutating func finish() -> [UInt8] {
            other + pending
        }

        /// The length of the reply at `start` after recording it; `nil` when it is incomplete.
        /// An escape that is no reply this parser knows is passed on as other input.
        private mutating func consumeReply(at start: Int) -> Int? {
            let bytes = Array(pending[start...])
            guard bytes.count >= 2 else { return nil }
            switch bytes[1] {
            case UInt8(ascii: "_"):  // APC: ESC _ G … ESC \
                guard let end = terminator(in: bytes) else { return nil }
                let body = String(decoding: bytes[2..<end], as: UTF8.self)
                if body.hasPrefix("Gi=31"), body.hasSuffix(";OK") { capabilities.kittyGraphics = true }
                return end + 2
            case UInt8(ascii: "["):  // CSI: parameters, then a final byte in @…~
                guard let final = bytes.dropFirst(2).firstIndex(where: { (0x40...0x7E).contains($0) }) else { return nil }
                let parameters = String(decoding: bytes[2..<final], as: UTF8.self)
                switch bytes[final] {
                case UInt8(ascii: "c") where parameters.hasPrefix("?"):
                    capabilities.answered = true
                    capabilities.sixel = parameters.dropFirst().split(separator: ";").contains("4")
                case UInt8(ascii: "t"):
                    let fields = parameters.split(separator: ";").compactMap { Int($0) }
                    if fields.count == 3, fields[0] == 6, fields[1] > 0, fields[2] > 0 {
                        capabilities.cellSize = CellPixelSize(width: fields[2], height: fields[1])
                    }
                default:
                    other += bytes[...final]  // a key (an arrow), not a reply
                }
                return final + 1
            default:
                other += bytes[...1]
                return 2
            }
        }

        /// The index of the `ESC \` that ends a string command.
        private func terminator(in bytes: [UInt8]) -> Int? {
            var index = 2
            while index + 1 < bytes.count {
                if bytes[index] == 0x1B, bytes[index + 1] == UInt8(ascii: "\\") { return index }
                index += 1
            }
            return nil
        }
    }
}
