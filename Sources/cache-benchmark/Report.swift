#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A Markdown table whose columns are padded to line up in a terminal too.
struct MarkdownTable {
    enum Alignment {
        case left, right
    }

    let titles: [String]
    let alignments: [Alignment]
    private var rows: [[String]] = []

    /// `columns`: each column's title and alignment (numbers go right).
    init(_ columns: [(String, Alignment)]) {
        titles = columns.map(\.0)
        alignments = columns.map(\.1)
    }

    mutating func append(_ row: [String]) {
        precondition(row.count == titles.count, "a row needs one cell per column")
        rows.append(row)
    }

    var rendered: String {
        let widths = titles.indices.map { column in
            ([titles] + rows).map { $0[column].count }.max()!
        }
        func line(_ cells: [String]) -> String {
            let padded = cells.indices.map { column in
                let gap = String(repeating: " ", count: widths[column] - cells[column].count)
                return alignments[column] == .left ? cells[column] + gap : gap + cells[column]
            }
            return "| " + padded.joined(separator: " | ") + " |"
        }
        let rule = titles.indices.map { column in
            let dashes = String(repeating: "-", count: max(widths[column] - 1, 2))
            return alignments[column] == .left ? dashes + "-" : dashes + ":"
        }
        return ([line(titles), "|" + rule.map { " \($0) " }.joined(separator: "|") + "|"] + rows.map(line))
            .joined(separator: "\n")
    }
}

/// `1234567` → `"1,234,567"` (for counts, which are never negative).
func grouped(_ value: Int) -> String {
    let digits = Array(String(value))
    var text = ""
    for (index, digit) in digits.enumerated() {
        if index > 0, (digits.count - index) % 3 == 0 { text.append(",") }
        text.append(digit)
    }
    return text
}

/// `value` (≥ 0) rounded to `places` decimals, the whole part grouped: `1234.56` → `"1,234.6"`.
func decimal(_ value: Double, places: Int) -> String {
    var scale = 1
    for _ in 0..<places { scale *= 10 }
    let scaled = Int((value * Double(scale)).rounded())
    let whole = grouped(scaled / scale)
    guard places > 0 else { return whole }
    let fraction = String(scaled % scale)
    return whole + "." + String(repeating: "0", count: places - fraction.count) + fraction
}

/// A rate: whole numbers when large, one decimal when small enough for it to matter.
func rate(_ value: Double) -> String {
    value >= 100 ? decimal(value, places: 0) : decimal(value, places: 1)
}

/// A spread as a whole percentage.
func percent(_ fraction: Double) -> String {
    decimal(fraction * 100, places: 0) + " %"
}

/// Writes a progress line to stderr at once, so stdout stays the bare report.
func progress(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
}
