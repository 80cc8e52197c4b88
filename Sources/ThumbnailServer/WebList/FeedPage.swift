import HTTPTypes
import Hummingbird
import ThumbnailKit

/// A web page that lists a feed, the web counterpart of `thumbnailer browse`: `GET /` (the page,
/// its `list.js` and `list.css`) and `GET /feed.json?offset=&limit=&view=list|grid` (a window of
/// the items, with the URLs of their thumbnails for that view, which ``ThumbnailServer`` signed),
/// routes an app adds beside the thumbnails'.
///
/// The page is a virtualised list (or a grid of `fill` squares, `?view=grid`): only the rows on
/// screen and a few beyond are in the DOM, and each row owns its load: it asks for its thumbnail
/// once it has stayed on screen for a moment, aborts the request when it scrolls away or is reused
/// (the server then cancels the work), and shows `loading`, the image, or `failed` with a retry.
/// A completion for an item a row no longer shows never lands in it. Keys: `j`/`k`, `g`/`G`, `r`.
///
/// ```swift
/// let page = FeedPage(items: items, title: "Photos", thumbnails: thumbnails)
/// page.addRoutes(to: router)
/// thumbnails.addRoutes(to: router)
/// ```
public struct FeedPage: Sendable {
    /// The sizes the page shows thumbnails at, in CSS pixels; its URLs ask for 1× and 2× of each.
    public struct Layout: Sendable {
        /// The side of a list row's box, which the thumbnail fits in.
        public var listBox: Int
        /// The side of a grid cell, which its square fills.
        public var gridBox: Int

        /// A layout; a precondition failure unless both boxes are at least 1.
        /// - Parameters:
        ///   - listBox: The side of a list row's box, in CSS pixels. Default: 96.
        ///   - gridBox: The side of a grid cell, in CSS pixels. Default: 160.
        public init(listBox: Int = 96, gridBox: Int = 160) {
            precondition(listBox >= 1 && gridBox >= 1, "boxes must be at least 1 pixel")
            self.listBox = listBox
            self.gridBox = gridBox
        }
    }

    /// The items listed.
    public let items: any ListedItems
    /// The page's heading; the feed's title when it has one.
    public let title: String?
    /// The sizes of the list's and the grid's thumbnails.
    public let layout: Layout
    private let signing: SigningPolicy
    private let pipeline: ThumbnailPipeline
    private let thumbnailPrefix: String

    /// Items a `/feed.json` request gets when it names no `limit`, and the most it may name.
    public static let defaultLimit = 100
    /// The largest `limit` a `/feed.json` request may name; more is answered 400.
    public static let maximumLimit = 500

    /// A page listing `items`.
    /// - Parameters:
    ///   - items: the items listed.
    ///   - title: the page's heading, or `nil` for none.
    ///   - thumbnails: the server whose URLs the page shows: its signing policy signs them, and its
    ///     pipeline's disk tier tells the sources' sizes it knows.
    ///   - thumbnailPrefix: the path the thumbnails' routes are mounted under (`/thumbnails`), or `""` at the root.
    ///   - layout: the sizes the page shows thumbnails at. Default: a 96-pixel list box, a 160-pixel grid cell.
    public init(items: any ListedItems, title: String?, thumbnails: ThumbnailServer,
                thumbnailPrefix: String = "", layout: Layout = Layout()) {
        self.items = items
        self.title = title
        self.layout = layout
        signing = thumbnails.signing
        pipeline = thumbnails.pipeline
        self.thumbnailPrefix = thumbnailPrefix
    }

    /// Adds `GET` and `HEAD` for `/`, `/list.js` and `/list.css`, and `GET /feed.json`, under `router`.
    public func addRoutes<Context: RequestContext>(to router: some RouterMethods<Context>) {
        for (path, asset) in [("/", PageAsset.html), ("/list.js", .script), ("/list.css", .style)] {
            router.get(RouterPath(path)) { request, _ in asset.response(to: request) }
            router.head(RouterPath(path)) { request, _ in asset.response(to: request) }
        }
        router.get("/feed.json") { request, context -> Response in
            let parameters = request.uri.queryParameters
            guard let window = window(offset: parameters["offset"], limit: parameters["limit"]),
                  let view = ListView(rawValue: String(parameters["view"] ?? "list"))
            else {
                return Response(status: .badRequest, headers: [.contentType: "text/plain; charset=utf-8"],
                                body: ResponseBody(byteBuffer: ByteBuffer(
                                    string: "offset must be 0 or more, limit 1 to \(Self.maximumLimit), view list or grid\n")))
            }
            var response = try await listing(of: window, for: view).response(from: request, context: context)
            response.headers[.cacheControl] = "no-cache"
            return response
        }
    }

    /// The items `offset` and `limit` ask for, cut to the feed's end; `nil` when either is malformed.
    private func window(offset: Substring?, limit: Substring?) -> Range<Int>? {
        let offset = offset.map { Int($0) } ?? 0
        let limit = limit.map { Int($0) } ?? Self.defaultLimit
        guard let offset, let limit, offset >= 0, (1...Self.maximumLimit).contains(limit) else { return nil }
        let start = min(offset, items.count)
        return start..<min(items.count, start + limit)
    }

    /// What the page lays out: rows whose thumbnails fit a box, or a grid of squares.
    private enum ListView: String, CaseIterable {
        case list, grid
    }

    private func listing(of window: Range<Int>, for view: ListView) async -> FeedListing {
        let listed = window.map { items.item(at: $0) }
        // Any stored thumbnail of an item, in either view, records its source's size.
        let sources = await pipeline.storedSources(of: listed.map { item in
            ListView.allCases.flatMap { thumbnails(of: item.imageURL, in: $0) }
                .map { ThumbnailKey(url: item.imageURL, size: $0.requestedSize) }
        })
        let entries = zip(listed, sources).map { item, source in
            FeedListing.Item(title: item.title, source: item.imageURL,
                             width: source?.orientedWidth, height: source?.orientedHeight,
                             thumbnails: thumbnails(of: item.imageURL, in: view).map { thumbnailPrefix + $0.path(signing: signing) })
        }
        return FeedListing(title: title, count: items.count, offset: window.lowerBound, view: view.rawValue,
                           box: box(of: view), items: entries)
    }

    /// `source`'s thumbnails for `view`, at 1× and 2× its box: fitted in a list, filled in a grid.
    private func thumbnails(of source: String, in view: ListView) -> [ThumbnailURL] {
        [1, 2].map { ThumbnailURL(size: .fit(box(of: view) * $0), mode: view == .list ? .fit : .fill, source: source) }
    }

    private func box(of view: ListView) -> Int {
        view == .list ? layout.listBox : layout.gridBox
    }
}
