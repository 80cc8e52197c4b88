/// Entries ordered from most to least recently used, with O(1) lookup, move
/// to front, insertion and removal: a dictionary into an array of nodes that
/// form a doubly linked list by index (freed slots are reused), so no node is
/// a separate heap object.
///
/// Not thread-safe; ``MemoryCache`` guards it with a mutex.
struct RecencyList<Key: Hashable, Value> {
    private struct Node {
        var key: Key
        var value: Value
        var cost: Int
        var newer: Int?
        var older: Int?
    }

    private var nodes: [Node?] = []
    private var freeSlots: [Int] = []
    private var slots: [Key: Int] = [:]
    private var newest: Int?
    private var oldest: Int?
    /// The sum of the costs of all entries.
    private(set) var totalCost = 0

    var count: Int { slots.count }
    var isEmpty: Bool { slots.isEmpty }

    /// The value for `key`, marked most recently used.
    mutating func touch(_ key: Key) -> Value? {
        guard let slot = slots[key] else { return nil }
        unlink(slot)
        linkAsNewest(slot)
        return nodes[slot]!.value
    }

    /// Adds an entry as the most recently used. `key` must not be present.
    mutating func insert(_ value: Value, forKey key: Key, cost: Int) {
        let node = Node(key: key, value: value, cost: cost, newer: nil, older: nil)
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
        linkAsNewest(slot)
    }

    /// Removes the entry for `key` and returns its value.
    mutating func remove(_ key: Key) -> Value? {
        guard let slot = slots[key] else { return nil }
        return release(slot).value
    }

    /// Removes the least recently used entry.
    mutating func removeOldest() -> (key: Key, value: Value)? {
        guard let oldest else { return nil }
        let node = release(oldest)
        return (node.key, node.value)
    }

    mutating func removeAll() {
        self = RecencyList()
    }

    /// Keys from most to least recently used.
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

    private mutating func release(_ slot: Int) -> Node {
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

    private mutating func unlink(_ slot: Int) {
        let newer = nodes[slot]!.newer, older = nodes[slot]!.older
        if let newer { nodes[newer]!.older = older } else { newest = older }
        if let older { nodes[older]!.newer = newer } else { oldest = newer }
        nodes[slot]!.newer = nil
        nodes[slot]!.older = nil
    }

    private mutating func linkAsNewest(_ slot: Int) {
        nodes[slot]!.older = newest
        if let newest { nodes[newest]!.newer = slot }
        newest = slot
        if oldest == nil { oldest = slot }
    }
}
