extension String {
    /// The text of a fixed-size C `char` array (which Swift imports as a tuple), up to its first NUL.
    init<Characters>(cCharacters characters: Characters) {
        var copy = characters
        self = withUnsafeBytes(of: &copy) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
    }
}
