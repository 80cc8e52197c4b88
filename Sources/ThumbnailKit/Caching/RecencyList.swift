/// Entries ordered from most to least recently used, with O(1) lookup, move
/// to front, insertion and removal: a dictionary into an array of nodes that
/// form a doubly linked list by index (freed slots are reused), so no node is
/// a separate heap object.
///
/// Not thread-safe; ``MemoryCache`` guards it with a mutex. Inlinable, like
/// MemoryCache's hot path, so callers in other modules get code specialised
/// for their key and value types instead of generic dispatch (measured: about
/// 10× faster per operation).
@usableFromInline
struct RecencyList<Key: Hashable, Value> {
    @usableFromInline
    struct Node {
        @usableFromInline var key: Key
        @usableFromInline var value: Value
        @usableFromInline var cost: Int
        @usableFromInline var newer: Int?
        @usableFromInline var older: Int?

        @inlinable
        init(key: Key, value: Value, cost: Int) {
            self.key = key
            self.value = value
            self.cost = cost
        }
    }

    @usableFromInline var nodes: [Node?] = []
    @usableFromInline var freeSlots: [Int] = []
    @usableFromInline var slots: [Key: Int] = [:]
    @usableFromInline var newest: Int?
    @usableFromInline var oldest: Int?
    /// The sum of the costs of all entries.
    @usableFromInline var totalCost = 0
    /// The highest ``totalCost`` has been, counted as each entry goes in.
    @usableFromInline var peakTotalCost = 0

    @inlinable
    init() {}

    @inlinable
    var count: Int { slots.count }

    /// The value for `key`, marked most recently used.
    @inlinable
    mutating func touch(_ key: Key) -> Value? {
        guard let slot = slots[key] else { return nil }
        unlink(slot)
        linkAsNewest(slot)
        return nodes[slot]!.value
    }

    /// Adds an entry as the most recently used. `key` must not be present.
    @inlinable
    mutating func insert(_ value: Value, forKey key: Key, cost: Int) {
        let node = Node(key: key, value: value, cost: cost)
        let slot: Int
        if let reused = freeSlots.popLast() {
            slot = reused
            nodes[slot] = node
        } else {
            slot = nodes.count
            nodes.append(node)
        }
        slots[key] = slot
        totalCost += cost
        peakTotalCost = max(peakTotalCost, totalCost)
        linkAsNewest(slot)
    }

    /// Removes the entry for `key` and returns its value.
    @inlinable
    mutating func remove(_ key: Key) -> Value? {
        guard let slot = slots[key] else { return nil }
        return release(slot).value
    }

    /// Removes the least recently used entry.
    @inlinable
    mutating func removeOldest() -> (key: Key, value: Value)? {
        guard let oldest else { return nil }
        let node = release(oldest)
        return (node.key, node.value)
    }

    @inlinable
    mutating func removeAll() {
        self = RecencyList()
    }

    /// Keys from most to least recently used.
    @inlinable
    var keysByRecency: [Key] {
        var keys: [Key] = []
        keys.reserveCapacity(count)
        var cursor = newest
        while let slot = cursor {
            keys.append(nodes[slot]!.key)
            cursor = nodes[slot]!.older
        }
        return keys
    }

    @inlinable
    mutating func release(_ slot: Int) -> Node {
        unlink(slot)
        let node = nodes[slot]!
        nodes[slot] = nil
        freeSlots.append(slot)
        slots[node.key] = nil
        totalCost -= node.cost
        if slots.isEmpty {
            // Nothing left: drop the slot arrays so a cleared cache holds no memory.
            nodes.removeAll()
            freeSlots.removeAll()
        }
        return node
    }

    @inlinable
    mutating func unlink(_ slot: Int) {
        let newer = nodes[slot]!.newer, older = nodes[slot]!.older
        if let newer { nodes[newer]!.older = older } else { newest = older }
        if let older { nodes[older]!.newer = newer } else { oldest = newer }
        nodes[slot]!.newer = nil
        nodes[slot]!.older = nil
    }

    @inlinable
    mutating func linkAsNewest(_ slot: Int) {
        nodes[slot]!.older = newest
        if let newest { nodes[newest]!.newer = slot }
        newest = slot
        if oldest == nil { oldest = slot }
    }
}
