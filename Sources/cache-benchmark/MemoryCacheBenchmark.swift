import ThumbnailKit

/// A stand-in for a decoded thumbnail. A small struct rather than a class
/// instance: copying it costs nothing and it has no reference count, which two
/// threads sharing one object would fight over, so the loops time the cache
/// itself (mutex, dictionary, recency list). The cache is told it costs 64 KiB.
struct ThumbnailStub: Sendable {
    var width: Int32 = 128
    var height: Int32 = 128
}

typealias StubCache = MemoryCache<Int, ThumbnailStub>

/// The shape of every MemoryCache case.
enum MemoryShape {
    /// A 128 × 128 RGBA thumbnail's pixel bytes.
    static let entryCost = 64 << 10
    /// A 64 MiB budget: room for ``capacity`` thumbnails.
    static let costLimit = 64 << 20
    static let capacity = costLimit / entryCost
    /// Keys the hit-heavy workload uses: half the budget, so it never evicts.
    /// A power of two, so a key is drawn with a mask instead of a division.
    static let workingSet = 512
}

/// What the threads of a MemoryCache case do.
enum MemoryWorkload: Sendable, CaseIterable {
    /// 90 % gets and 10 % sets (replacing the value), on keys drawn uniformly
    /// from a working set that fits the budget: every get hits, nothing is evicted.
    case hitHeavy
    /// Only sets, each with a key never used before, on a full cache: every set evicts one entry.
    case churn

    var title: String {
        switch self {
        case .hitHeavy: "hit-heavy (90 % get / 10 % set)"
        case .churn: "churn (100 % set, each evicts)"
        }
    }

    /// Fills the cache as the loop expects to find it (the churn loop fills it itself while warming up).
    func prepare(_ cache: StubCache) {
        guard self == .hitHeavy else { return }
        for key in 0..<MemoryShape.workingSet { cache.insert(ThumbnailStub(), forKey: key, cost: MemoryShape.entryCost) }
    }

    /// Thread `thread`'s tight loop of `operations` operations in pass `pass`.
    /// - Returns: the gets that hit.
    func loop(_ cache: StubCache, thread: Int, pass: Int, operations: Int) -> Int {
        switch self {
        case .hitHeavy: Self.hitHeavyLoop(cache, thread: thread, operations: operations)
        case .churn: Self.churnLoop(cache, thread: thread, pass: pass, operations: operations)
        }
    }

    private static func hitHeavyLoop(_ cache: StubCache, thread: Int, operations: Int) -> Int {
        var random = FastRandom(seed: UInt64(thread))
        var hits = 0
        for _ in 0..<operations {
            let draw = random.next()
            let key = Int(truncatingIfNeeded: draw >> 40) & (MemoryShape.workingSet - 1)
            if draw % 10 == 0 {
                cache.insert(ThumbnailStub(), forKey: key, cost: MemoryShape.entryCost)
            } else if cache.value(forKey: key) != nil {
                hits += 1
            }
        }
        return hits
    }

    private static func churnLoop(_ cache: StubCache, thread: Int, pass: Int, operations: Int) -> Int {
        // Keys never repeat across threads and passes, so each set is new and evicts the oldest entry.
        let base = pass << 40 | thread << 32
        for index in 0..<operations {
            cache.insert(ThumbnailStub(), forKey: base | index, cost: MemoryShape.entryCost)
        }
        return 0
    }
}

/// One MemoryCache row: a fresh cache, a warm-up, timed runs, and a check of
/// the cache's counters against what the loops did.
struct MemoryCase {
    let workload: MemoryWorkload
    let threads: Int
    private let cache = StubCache(costLimit: MemoryShape.costLimit)
    private var passes = 0
    private var operations = 0
    private var hits = 0

    init(_ workload: MemoryWorkload, threads: Int) {
        self.workload = workload
        self.threads = threads
        workload.prepare(cache)
    }

    /// Warms up, runs `settings.runs` timed passes sized to `settings`, checks the counters.
    /// - Throws: ``BenchmarkError`` when the counters show the workload did not do what it claims.
    mutating func measure(_ settings: Settings) async throws -> Measurement {
        let perThread = await warmUp(settings)
        var durations: [Duration] = []
        for _ in 0..<settings.runs { durations.append(await pass(perThread: perThread)) }
        try check()
        return Measurement(work: perThread * threads, durations: durations)
    }

    /// Runs ever longer passes until one lasts `settings.memoryWarmUp` (pages
    /// faulted in, pool threads started, caches and branch predictors warm),
    /// and from that pass's rate sizes a timed pass to last `settings.memoryRunTarget`.
    /// - Returns: operations per thread for a timed pass.
    private mutating func warmUp(_ settings: Settings) async -> Int {
        var perThread = 10_000
        var elapsed = await pass(perThread: perThread)
        while elapsed < settings.memoryWarmUp {
            perThread *= 2
            elapsed = await pass(perThread: perThread)
        }
        let perThreadRate = Double(perThread) / elapsed.inSeconds
        let target = Int((perThreadRate * settings.memoryRunTarget.inSeconds).rounded(.up))
        return max(target, settings.memoryMinimumOperations / threads)
    }

    /// Runs the loop on `threads` child tasks at once, `perThread` operations each.
    /// - Returns: the wall time from before the first task starts to after the last one ends.
    private mutating func pass(perThread: Int) async -> Duration {
        let (workload, cache, threads, pass) = (workload, cache, threads, passes)
        let clock = ContinuousClock()
        let start = clock.now
        // Child tasks run on the cooperative pool, one thread per CPU, so two
        // tasks running a synchronous loop each are two threads in parallel.
        let hits = await withTaskGroup(of: Int.self) { group in
            for thread in 0..<threads {
                group.addTask { workload.loop(cache, thread: thread, pass: pass, operations: perThread) }
            }
            return await group.reduce(0, +)
        }
        let elapsed = start.duration(to: clock.now)
        passes += 1
        operations += perThread * threads
        self.hits += hits
        return elapsed
    }

    /// Compares the cache's counters with what the loops did, so a benchmark
    /// of a cache that misbehaves under contention fails instead of printing numbers.
    private func check() throws {
        let actual = cache.statistics
        let expectations: [(counter: String, actual: Int, expected: Int)] = switch workload {
        case .hitHeavy: [
            ("hits", actual.hits, hits), ("misses", actual.misses, 0),
            ("evictions", actual.evictions, 0), ("count", actual.count, MemoryShape.workingSet),
        ]
        case .churn: [
            ("hits", actual.hits, 0), ("evictions", actual.evictions, operations - MemoryShape.capacity),
            ("count", actual.count, MemoryShape.capacity), ("totalCost", actual.totalCost, MemoryShape.costLimit),
        ]
        }
        let wrong = expectations.filter { $0.actual != $0.expected }
        guard wrong.isEmpty else {
            let details = wrong.map { "\($0.counter) \($0.actual), expected \($0.expected)" }
            throw BenchmarkError(description: """
                MemoryCache \(workload.title), \(threads) thread(s): \(details.joined(separator: "; "))
                """)
        }
    }
}
