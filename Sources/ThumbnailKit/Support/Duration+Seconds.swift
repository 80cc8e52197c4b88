extension Duration {
    /// The duration in seconds, as a `Double` (for rates, timeouts and reports).
    package var inSeconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) + Double(attoseconds) * 1e-18
    }

    /// Seconds rounded to a tenth, for messages ("retrying in 0.5 s").
    var secondsToTenths: Double { (inSeconds * 10).rounded() / 10 }
}
