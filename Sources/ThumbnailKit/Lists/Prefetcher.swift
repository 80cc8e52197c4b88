/// Which rows are being prefetched, as `UITableViewDataSourcePrefetching`
/// sees it: told to prefetch and to stop for sets of rows, it starts and stops
/// each row's ``RowPrefetching`` role once, however often a row is named.
@MainActor public final class Prefetcher {
    private let role: (Int) -> (any RowPrefetching)?

    /// Rows asked to prefetch and not cancelled since.
    public private(set) var prefetchingRows: Set<Int> = []

    /// - Parameter role: the prefetching role of a row, `nil` for rows without one.
    public init(role: @escaping (Int) -> (any RowPrefetching)?) {
        self.role = role
    }

    /// Starts prefetching the rows not already prefetching.
    public func prefetch(rows: some Sequence<Int>) {
        for row in rows where prefetchingRows.insert(row).inserted {
            role(row)?.prefetch()
        }
    }

    /// Stops prefetching these rows.
    public func cancelPrefetching(rows: some Sequence<Int>) {
        for row in rows where prefetchingRows.remove(row) != nil {
            role(row)?.cancelPrefetch()
        }
    }

}
