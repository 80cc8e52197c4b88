import Synchronization

/// A thread-safe, byte-budgeted LRU cache, typically of decoded thumbnails
/// (cost = pixel bytes).
///
/// The budget is never exceeded, not even for an instant: an insertion first
/// evicts least recently used entries until the new one fits, all under one
/// lock. An entry costing more than `maximumEntryCost` is not stored.
///
/// Guarded by a `Mutex` rather than isolated in an actor: a list row asks the
/// cache synchronously while it is being configured, so a hit must not cost
/// an `await`, and every critical section is O(1).
///
/// The pipeline's memory tier; its operations are `package` (this package's
/// benchmarks and tests use them), and apps read its ``Statistics`` through
/// `ThumbnailPipeline.memoryStatistics`.
///
/// ```swift
/// let cache = MemoryCache<ThumbnailKey, Thumbnail>(costLimit: 32 << 20)
/// cache.insert(thumbnail, forKey: key, cost: thumbnail.byteCount)
/// ```
public final class MemoryCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    /// Counters for status lines and benchmarks.
    public struct Statistics: Sendable, Hashable {
        /// Lookups that found a value.
        public var hits = 0
        /// Lookups that found nothing.
        public var misses = 0
        /// Entries removed to make room (not explicit removals).
        public var evictions = 0
        /// Insertions refused because the entry alone costs more than `MemoryCache/maximumEntryCost`.
        public var rejections = 0
        /// The sum of the stored entries' costs, always ≤ `MemoryCache/costLimit`.
        public var totalCost = 0
        /// The highest the sum has ever been, in the middle of an insertion too:
        /// ≤ `MemoryCache/costLimit` as well, because an insertion evicts
        /// before the new entry goes in. Not reset by `MemoryCache/removeAll()`.
        public var peakTotalCost = 0
        /// The number of stored entries.
        public var count = 0
    }

    @usableFromInline
    struct State {
        @usableFromInline var entries = RecencyList<Key, Value>()
        @usableFromInline var statistics = Statistics()

        @inlinable
        init() {}

        /// Copies the list's totals into the counters after a change.
        @inlinable
        mutating func record() {
            statistics.totalCost = entries.totalCost
            statistics.peakTotalCost = max(statistics.peakTotalCost, entries.peakTotalCost)
            statistics.count = entries.count
        }
    }

    /// The budget in cost units (bytes for thumbnails). The total never exceeds it.
    @usableFromInline package let costLimit: Int
    /// The most entries kept, or `nil` for no count limit.
    @usableFromInline package let countLimit: Int?
    /// The largest cost one entry may have to be stored: `costLimit × maximumEntryFraction`.
    @usableFromInline package let maximumEntryCost: Int
    @usableFromInline let state = Mutex(State())

    /// - Parameters:
    ///   - costLimit: the budget, e.g. bytes of pixels; must be ≥ 0.
    ///   - countLimit: the most entries kept; `nil` (the default) for none.
    ///   - maximumEntryFraction: the largest share of the budget one entry may take
    ///     (default 1: anything that fits at all). A smaller share keeps one huge
    ///     image from flushing the whole cache.
    package init(costLimit: Int, countLimit: Int? = nil, maximumEntryFraction: Double = 1) {
        precondition(costLimit >= 0, "costLimit must not be negative")
        precondition(countLimit.map { $0 >= 0 } ?? true, "countLimit must not be negative")
        precondition(maximumEntryFraction > 0 && maximumEntryFraction <= 1, "maximumEntryFraction must be in (0, 1]")
        self.costLimit = costLimit
        self.countLimit = countLimit
        maximumEntryCost = Int((Double(costLimit) * maximumEntryFraction).rounded(.down))
    }

    /// The value for `key`, which becomes the most recently used; counts a hit or a miss.
    @inlinable
    package func value(forKey key: Key) -> Value? {
        state.withLock { state in
            let value = state.entries.touch(key)
            if value == nil { state.statistics.misses += 1 } else { state.statistics.hits += 1 }
            return value
        }
    }

    /// The value for `key`, which becomes the most recently used, counting a
    /// hit but never a miss: for a caller that shows what is there at once (a
    /// row being configured) and otherwise makes a request, which counts the miss.
    package func peekValue(forKey key: Key) -> Value? {
        state.withLock { state in
            let value = state.entries.touch(key)
            if value != nil { state.statistics.hits += 1 }
            return value
        }
    }

    /// Stores `value` as the most recently used entry, evicting least recently
    /// used ones first until it fits. Replaces any earlier value for `key`.
    /// - Returns: `false` when the entry alone costs more than ``maximumEntryCost``
    ///   (or ``countLimit`` is zero): it is not stored, and any earlier value for
    ///   `key` is removed so a stale one cannot be served.
    @discardableResult
    @inlinable
    package func insert(_ value: Value, forKey key: Key, cost: Int) -> Bool {
        precondition(cost >= 0, "cost must not be negative")
        // Values leaving the cache are released after the lock, not inside it.
        var leaving: [Value] = []
        let stored = state.withLock { state in
            if let previous = state.entries.remove(key) { leaving.append(previous) }
            guard cost <= maximumEntryCost, countLimit != 0 else {
                state.statistics.rejections += 1
                state.record()
                return false
            }
            while state.entries.totalCost + cost > costLimit
                || countLimit.map({ state.entries.count + 1 > $0 }) == true,
                let evicted = state.entries.removeOldest() {
                leaving.append(evicted.value)
                state.statistics.evictions += 1
            }
            state.entries.insert(value, forKey: key, cost: cost)
            state.record()
            return true
        }
        withExtendedLifetime(leaving) {}
        return stored
    }

    /// Removes and returns the value for `key`.
    @discardableResult
    @inlinable
    package func removeValue(forKey key: Key) -> Value? {
        state.withLock { state in
            let value = state.entries.remove(key)
            state.record()
            return value
        }
    }

    /// Removes every entry; the counters of hits, misses and evictions stay.
    package func removeAll() {
        var leaving = state.withLock { state in
            let entries = state.entries
            state.entries.removeAll()
            state.record()
            return entries
        }
        leaving.removeAll()
    }

    /// Evicts least recently used entries until the total cost is at most `cost`
    /// (for memory pressure, or to shrink the budget for a while).
    package func trim(toCost cost: Int) {
        var leaving: [Value] = []
        state.withLock { state in
            while state.entries.totalCost > max(cost, 0), let evicted = state.entries.removeOldest() {
                leaving.append(evicted.value)
                state.statistics.evictions += 1
            }
            state.record()
        }
        withExtendedLifetime(leaving) {}
    }

    /// A snapshot of the counters.
    package var statistics: Statistics {
        state.withLock { $0.statistics }
    }

    /// Keys from most to least recently used (a snapshot, for diagnostics and tests).
    package var keysByRecency: [Key] {
        state.withLock { $0.entries.keysByRecency }
    }
}
