/// What a ``FeedPage`` lists, by index: a feed parsed to disk (`thumbnailer serve --feed`), or an array.
/// Only the items of the page of the list a browser asks for are read.
public protocol ListedItems: Sendable {
    /// How many items there are.
    var count: Int { get }
    /// The item at `index`, in `0..<count`.
    func item(at index: Int) -> ListedItem
}

/// One item of a listed feed: its title and the URL of its image.
public struct ListedItem: Sendable, Hashable {
    /// The text shown with its thumbnail.
    public var title: String
    /// The image's `http(s)` URL, which the page's thumbnail URLs name as their source.
    public var imageURL: String

    /// An item titled `title` showing the image at `imageURL`.
    public init(title: String, imageURL: String) {
        self.title = title
        self.imageURL = imageURL
    }
}

extension Array: ListedItems where Element == ListedItem {
    public func item(at index: Int) -> ListedItem { self[index] }
}
