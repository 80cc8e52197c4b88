extension Duration {
    /// Seconds rounded to a tenth, for messages ("retrying in 0.5 s").
    var secondsToTenths: Double {
        let (seconds, attoseconds) = components
        return ((Double(seconds) + Double(attoseconds) * 1e-18) * 10).rounded() / 10
    }
}
