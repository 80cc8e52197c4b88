extension StringProtocol {
    /// Without the whitespace and line breaks at either end: the characters with Unicode's White_Space
    /// property, the set Foundation calls `whitespacesAndNewlines`.
    func trimmingWhitespace() -> SubSequence {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
