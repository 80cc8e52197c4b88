import Hummingbird

/// `/feed.json`: a window of a listed feed, with each item's thumbnail URLs
/// already signed, so a page can show them without the signing key.
struct FeedListing: ResponseEncodable {
    /// The feed's title, when it has one.
    let title: String?
    /// Items in the whole feed.
    let count: Int
    /// The index of ``items``' first.
    let offset: Int
    /// `list` or `grid`: what the thumbnails' URLs are for.
    let view: String
    /// The side of a list row's thumbnail box, or of a grid cell, in CSS pixels: what the URLs fit
    /// into (a list's) or fill (a grid's).
    let box: Int
    let items: [Item]

    struct Item: Encodable {
        let title: String
        /// The image's URL.
        let source: String
        /// The source's size after its orientation, when a stored thumbnail of it records it.
        let width: Int?
        let height: Int?
        /// The thumbnail's URLs at 1× and 2× the box.
        let thumbnails: [String]
    }
}
