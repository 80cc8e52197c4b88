/// The rows of a ``ListBrowser``, by index: an array, or a store that reads each row from disk when the
/// list shows it, so that a feed of millions of items is browsed in the memory of a few pages.
///
/// The list asks for a row when it becomes visible or starts prefetching, on the main actor.
package protocol BrowserItems: Sendable {
    /// How many rows there are.
    var count: Int { get }
    /// The row at `index`, in `0..<count`.
    subscript(index: Int) -> ListBrowser.Item { get }
}

extension Array: BrowserItems where Element == ListBrowser.Item {}
