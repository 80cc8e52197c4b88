extension Substring {
    /// Without leading and trailing spaces and tabs: a header list's item (Foundation-free).
    var trimmingSpacesAndTabs: Substring {
        var trimmed = drop { $0 == " " || $0 == "\t" }
        while trimmed.last == " " || trimmed.last == "\t" { trimmed.removeLast() }
        return trimmed
    }
}
