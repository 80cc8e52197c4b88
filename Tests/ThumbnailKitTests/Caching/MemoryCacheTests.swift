import Synchronization
import PropertyBased
import Testing
import ThumbnailKit

/// The byte budget, LRU order and counters of MemoryCache.
@Suite struct MemoryCacheTests {
    /// One step of a random workload.
    enum Operation: Sendable, CustomStringConvertible {
        case insert(key: Int, cost: Int)
        case get(key: Int)
        case remove(key: Int)
        case trim(cost: Int)

        var description: String {
            switch self {
            case let .insert(key, cost): "insert(\(key), cost \(cost))"
            case let .get(key): "get(\(key))"
            case let .remove(key): "remove(\(key))"
            case let .trim(cost): "trim(\(cost))"
            }
        }
    }

    /// The obvious model: an array ordered from most to least recently used.
    struct ReferenceCache {
        let costLimit: Int
        let countLimit: Int?
        var entries: [(key: Int, value: Int, cost: Int)] = []
        var hits = 0, misses = 0

        var totalCost: Int { entries.reduce(0) { $0 + $1.cost } }

        mutating func get(_ key: Int) -> Int? {
            guard let index = entries.firstIndex(where: { $0.key == key }) else {
                misses += 1
                return nil
            }
            hits += 1
            let entry = entries.remove(at: index)
            entries.insert(entry, at: 0)
            return entry.value
        }

        mutating func insert(_ value: Int, key: Int, cost: Int) {
            entries.removeAll { $0.key == key }
            guard cost <= costLimit, countLimit != 0 else { return }
            while totalCost + cost > costLimit || (countLimit.map { entries.count + 1 > $0 } ?? false) {
                entries.removeLast()
            }
            entries.insert((key, value, cost), at: 0)
        }

        mutating func remove(_ key: Int) -> Int? {
            guard let index = entries.firstIndex(where: { $0.key == key }) else { return nil }
            return entries.remove(at: index).value
        }

        mutating func trim(_ cost: Int) {
            while totalCost > cost { entries.removeLast() }
        }
    }

    static let operations = zip(Gen.int(in: 0...3), Gen.int(in: 0...12), Gen.int(in: 0...45)).map { kind, key, amount in
        switch kind {
        case 0, 1: Operation.insert(key: key, cost: amount)
        case 2: Operation.get(key: key)
        default: amount % 3 == 0 ? Operation.trim(cost: amount * 2) : Operation.remove(key: key)
        }
    }.array(of: 1...120)

    @Test(arguments: [(100, nil), (40, 3), (7, nil)] as [(Int, Int?)])
    func randomWorkloadsMatchTheReferenceAndNeverExceedTheBudget(costLimit: Int, countLimit: Int?) async {
        await propertyCheck(count: 300, input: Self.operations) { operations in
            let cache = MemoryCache<Int, Int>(costLimit: costLimit, countLimit: countLimit)
            var model = ReferenceCache(costLimit: costLimit, countLimit: countLimit)
            for (step, operation) in operations.enumerated() {
                switch operation {
                case let .insert(key, cost):
                    cache.insert(step, forKey: key, cost: cost)
                    model.insert(step, key: key, cost: cost)
                case let .get(key):
                    #expect(cache.value(forKey: key) == model.get(key), "\(operation) at step \(step)")
                case let .remove(key):
                    #expect(cache.removeValue(forKey: key) == model.remove(key), "\(operation) at step \(step)")
                case let .trim(cost):
                    cache.trim(toCost: cost)
                    model.trim(cost)
                }
                let statistics = cache.statistics
                #expect(statistics.totalCost <= costLimit)
                #expect(statistics.peakTotalCost <= costLimit, "over budget inside \(operation) at step \(step)")
                #expect(countLimit.map { statistics.count <= $0 } ?? true)
                #expect(statistics.totalCost == model.totalCost)
                #expect(cache.keysByRecency == model.entries.map(\.key), "LRU order after \(operation)")
            }
            #expect(cache.statistics.hits == model.hits && cache.statistics.misses == model.misses)
        }
    }

    @Test func insertingEvictsTheLeastRecentlyUsedFirst() {
        let cache = MemoryCache<String, Int>(costLimit: 30)
        cache.insert(1, forKey: "a", cost: 10)
        cache.insert(2, forKey: "b", cost: 10)
        cache.insert(3, forKey: "c", cost: 10)
        _ = cache.value(forKey: "a")
        cache.insert(4, forKey: "d", cost: 10)

        #expect(cache.keysByRecency == ["d", "a", "c"])
        #expect(cache.statistics.evictions == 1)
        #expect(cache.statistics.totalCost == 30)
    }

    @Test func anEntryLargerThanItsShareIsRefusedAndTheStaleValueLeaves() {
        let cache = MemoryCache<String, Int>(costLimit: 100, maximumEntryFraction: 0.25)
        #expect(cache.maximumEntryCost == 25)
        #expect(cache.insert(1, forKey: "photo", cost: 20))
        #expect(!cache.insert(2, forKey: "photo", cost: 26))

        #expect(cache.value(forKey: "photo") == nil, "the old value must not be served for the new request")
        #expect(cache.statistics.rejections == 1)
        #expect(cache.statistics.totalCost == 0)
    }

    @Test func anEntryLargerThanTheWholeBudgetEvictsNothing() {
        let cache = MemoryCache<Int, Int>(costLimit: 50)
        cache.insert(1, forKey: 1, cost: 30)
        #expect(!cache.insert(2, forKey: 2, cost: 51))
        #expect(cache.keysByRecency == [1])
        #expect(cache.statistics.evictions == 0)
    }

    @Test func trimAndRemoveAllFreeTheBudget() {
        let cache = MemoryCache<Int, Int>(costLimit: 100)
        for key in 0..<10 { cache.insert(key, forKey: key, cost: 10) }
        cache.trim(toCost: 35)
        #expect(cache.keysByRecency == [9, 8, 7])
        cache.removeAll()
        #expect(cache.statistics.count == 0 && cache.statistics.totalCost == 0)
        #expect(cache.statistics.evictions == 7)
    }

    @Test func aZeroBudgetStoresNothingButZeroCostEntries() {
        let cache = MemoryCache<Int, Int>(costLimit: 0)
        #expect(!cache.insert(1, forKey: 1, cost: 1))
        #expect(cache.insert(2, forKey: 2, cost: 0))
        #expect(cache.statistics.totalCost == 0)
    }

    /// Bytes standing in for a thumbnail's pixels: `cost` is their real size,
    /// and the ledger counts them while they are alive.
    final class Pixels: Sendable {
        let key: Int
        let bytes: [UInt8]
        private let ledger: Ledger

        init(key: Int, count: Int, ledger: Ledger) {
            self.key = key
            bytes = [UInt8](repeating: UInt8(truncatingIfNeeded: key), count: count)
            self.ledger = ledger
            ledger.record(objects: 1, bytes: count)
        }

        deinit { ledger.record(objects: -1, bytes: -bytes.count) }
    }

    /// The pixels alive now, wherever they are held.
    final class Ledger: Sendable {
        private let live = Mutex((objects: 0, bytes: 0))
        var objects: Int { live.withLock { $0.objects } }
        var bytes: Int { live.withLock { $0.bytes } }
        func record(objects: Int, bytes: Int) { live.withLock { $0.objects += objects; $0.bytes += bytes } }
    }

    @Test func manyTasksAtOnceNeverPushItOverBudgetAndLetGoOfEverythingItDrops() async {
        let costLimit = 10_000
        let ledger = Ledger()
        let cache = MemoryCache<Int, Pixels>(costLimit: costLimit, countLimit: 64)
        let wrongValues = await withTaskGroup(of: Int.self) { group in
            for task in 0..<16 {
                group.addTask {
                    var generator = SystemRandomNumberGenerator()
                    var wrong = 0
                    for step in 0..<2_000 {
                        let key = Int.random(in: 0..<200, using: &generator)
                        switch (task + step) % 4 {
                        case 0, 1:
                            let count = Int.random(in: 0...900, using: &generator)
                            cache.insert(Pixels(key: key, count: count, ledger: ledger), forKey: key, cost: count)
                        case 2:
                            if let value = cache.value(forKey: key), value.key != key { wrong += 1 }
                        default:
                            if let value = cache.removeValue(forKey: key), value.key != key { wrong += 1 }
                        }
                    }
                    return wrong
                }
            }
            return await group.reduce(0, +)
        }
        #expect(wrongValues == 0, "every key answered with its own pixels")
        let statistics = cache.statistics
        #expect(statistics.peakTotalCost <= costLimit, "never over budget, not even inside an insertion")
        #expect(statistics.peakTotalCost > costLimit - 900, "the workload filled the budget")
        #expect(statistics.count <= 64)
        #expect(statistics.hits + statistics.misses == 16 * 500)
        // What the cache dropped (evicted, replaced, removed) is gone; what it holds is all that is left.
        #expect(ledger.objects == statistics.count && ledger.bytes == statistics.totalCost)
        cache.removeAll()
        #expect(ledger.objects == 0 && ledger.bytes == 0)
    }

    /// A peek that finds a value makes it the most recent, as a lookup does: a
    /// row shown from memory is the last to be evicted, not the first.
    @Test func aPeekHitBecomesTheMostRecentlyUsed() {
        let cache = MemoryCache<String, Int>(costLimit: 3)
        for (value, key) in ["a", "b", "c"].enumerated() { cache.insert(value, forKey: key, cost: 1) }

        #expect(cache.peekValue(forKey: "a") == 0)
        #expect(cache.keysByRecency == ["a", "c", "b"])
        cache.insert(3, forKey: "d", cost: 1)
        #expect(cache.peekValue(forKey: "a") == 0, "the peeked row survived the insertion")
        #expect(cache.peekValue(forKey: "b") == nil, "the least recently used went instead")
    }

    /// A peek counts a hit, never a miss.
    @Test func aPeekCountsHitsButNotMisses() {
        let cache = MemoryCache<String, Int>(costLimit: 3)
        cache.insert(1, forKey: "a", cost: 1)
        _ = cache.peekValue(forKey: "a")
        _ = cache.peekValue(forKey: "z")
        #expect(cache.statistics.hits == 1 && cache.statistics.misses == 0)
    }
}
