/// The timed runs of one row, each doing the same amount of work.
struct Measurement {
    /// Operations or entries per run.
    let work: Int
    let durations: [Duration]

    /// The median run: robust against one run disturbed by something else on the machine.
    var median: Duration { durations.sorted()[durations.count / 2] }

    /// Work per second in the median run.
    var rate: Double { Double(work) / median.inSeconds }

    /// Nanoseconds of wall time per unit of work in the median run.
    var nanosecondsPerUnit: Double { median.inSeconds * 1e9 / Double(work) }

    /// (slowest − fastest) / median: how far the runs disagreed, a hint of a busy machine.
    var spread: Double {
        let sorted = durations.sorted()
        return (sorted.last! - sorted.first!).inSeconds / median.inSeconds
    }
}

/// Wall time of `body`.
func time(_ body: () throws -> Void) rethrows -> Duration {
    try ContinuousClock().measure(body)
}

/// xorshift64*: a handful of cycles per number, so drawing keys or filling
/// payloads costs next to nothing beside the caches themselves.
struct FastRandom {
    private var state: UInt64

    /// Every seed, 0 included, gives a usable generator: the state is made odd,
    /// because the all-zero state would stay zero.
    init(seed: UInt64) {
        state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
    }

    mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 0x2545_F491_4F6C_DD1D
    }
}

/// A cache that did not do what the benchmark relies on (a miss where a hit was
/// due, an eviction that should not have happened), or a file operation that failed.
struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
}
