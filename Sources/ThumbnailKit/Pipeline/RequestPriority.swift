/// How urgently a request is wanted: rows on screen before rows about to scroll in.
public enum RequestPriority: Int, Comparable, Sendable, CaseIterable {
    /// Work for rows that may appear soon.
    case prefetch = 0
    /// Work nobody is looking at yet but somebody asked for (e.g. `warm`).
    case normal = 1
    /// Work for rows on screen now.
    case visible = 2

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
