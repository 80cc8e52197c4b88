/// Fills a cell with a row's content, as `UITableViewDataSource`'s
/// `cellForRowAt` does: the one role every row has.
@MainActor public protocol RowDataSource {
    /// Puts the row's content into `cell` (text now, its thumbnail loading).
    func configure(_ cell: ListCell)
}

/// Hears when a row's cell appears and disappears, as `UITableViewDelegate`'s
/// `willDisplay`/`didEndDisplaying`. Both have empty defaults: these are the
/// optional methods of that protocol.
@MainActor public protocol RowDelegate {
    /// The row's cell has just been configured and is on screen.
    func willDisplay(_ cell: ListCell)
    /// The row's cell has left the screen; it is reset for reuse right after.
    func didEndDisplaying(_ cell: ListCell)
}

extension RowDelegate {
    public func willDisplay(_ cell: ListCell) {}
    public func didEndDisplaying(_ cell: ListCell) {}
}

/// Starts and stops work for a row that may appear soon, as
/// `UITableViewDataSourcePrefetching` does for a table.
@MainActor public protocol RowPrefetching {
    /// The row may appear soon: start its work at prefetch priority.
    func prefetch()
    /// The row is no longer expected: stop its work unless something else needs it.
    func cancelPrefetch()
}

/// One row's roles, composed: each row type implements only the roles it
/// needs (a text row has no prefetching), instead of one protocol with empty
/// methods for the rest.
@MainActor public struct RowController {
    /// Fills the row's cell.
    public var dataSource: any RowDataSource
    /// Hears when the row's cell shows and leaves, if the row cares.
    public var delegate: (any RowDelegate)?
    /// Starts and stops the row's work ahead of display, if it has any.
    public var prefetching: (any RowPrefetching)?

    /// A row made of separate role objects.
    /// - Parameters:
    ///   - dataSource: Fills the row's cell.
    ///   - delegate: Hears when the cell shows and leaves. Default: `nil`, none.
    ///   - prefetching: Starts and stops the row's work ahead of display. Default: `nil`, none.
    public init(dataSource: any RowDataSource, delegate: (any RowDelegate)? = nil,
                prefetching: (any RowPrefetching)? = nil) {
        self.dataSource = dataSource
        self.delegate = delegate
        self.prefetching = prefetching
    }

    /// A row whose one object plays all three roles.
    public init(_ row: some RowDataSource & RowDelegate & RowPrefetching) {
        self.init(dataSource: row, delegate: row, prefetching: row)
    }

    /// A row whose one object is its data source and prefetches (a thumbnail row).
    public init(_ row: some RowDataSource & RowPrefetching) {
        self.init(dataSource: row, prefetching: row)
    }

    /// A row whose one object is its data source and hears when it shows.
    public init(_ row: some RowDataSource & RowDelegate) {
        self.init(dataSource: row, delegate: row)
    }

    /// A row with only a data source (a text row).
    public init(_ row: some RowDataSource) {
        self.init(dataSource: row)
    }
}
