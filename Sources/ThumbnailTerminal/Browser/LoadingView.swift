import ThumbnailKit

/// Draws a ``Loadable``'s state into a region of a ``ScreenBuffer``: the
/// terminal's counterpart of a SwiftUI loading view.
///
/// The caller supplies what a loaded value looks like; the other three
/// states have default views, each replaceable:
///
/// - `idle`: nothing (``emptyView(_:)`` replaces it).
/// - `loading`: the spinner, the percent when known and the message (a
///   retry's "retrying in 0.5 s (attempt 2 of 3)"), or "cancelled"
///   (``progressView(_:)``). Unlike the seed's SwiftUI view, the spinner
///   shows even without progress: a terminal has no other sign of work.
/// - `failure`: `✗`, the retry hint if there is one, then the reason
///   (``errorView(_:)``).
///
/// A view is a description, as in SwiftUI: cheap to make, made again for
/// every frame with the spinner's frame of the moment.
///
/// ```swift
/// LoadingView(spinner: spinner, retryHint: "r: retry") { feed, region, screen in
///     screen.put("\(feed.count) items", line: 0, of: region, foreground: nil)
/// }
/// .draw(loader, in: region, on: &screen)
/// ```
package struct LoadingView<Value: Sendable> {
    /// Draws a loaded value.
    package typealias ContentView = (Value, ScreenRegion, inout ScreenBuffer) -> Void
    /// Draws the `idle` state.
    package typealias EmptyView = (ScreenRegion, inout ScreenBuffer) -> Void
    /// Draws a load under way, with its progress if any and the spinner's frame.
    package typealias ProgressView = (LoadingProgress?, Spinner, ScreenRegion, inout ScreenBuffer) -> Void
    /// Draws a failure.
    package typealias ErrorView = (any Error, ScreenRegion, inout ScreenBuffer) -> Void

    /// The spinner frame the progress view shows.
    package var spinner: Spinner
    private let content: ContentView
    private var empty: EmptyView = { _, _ in }
    private var progress: ProgressView
    private var failure: ErrorView

    /// - Parameters:
    ///   - spinner: the frame to show while loading; the owner advances it on its clock.
    ///   - retryHint: how to retry, shown by the default error view before the reason
    ///     (e.g. `r: retry`); `nil` when a failure cannot be retried.
    ///   - content: draws a loaded value.
    package init(spinner: Spinner = Spinner(), retryHint: String? = nil, content: @escaping ContentView) {
        self.spinner = spinner
        self.content = content
        progress = Self.defaultProgressView
        failure = Self.defaultErrorView(retryHint: retryHint)
    }

    /// This view with `view` for the `idle` state.
    package func emptyView(_ view: @escaping EmptyView) -> Self {
        var copy = self
        copy.empty = view
        return copy
    }

    /// This view with `view` for the `loading` state.
    package func progressView(_ view: @escaping ProgressView) -> Self {
        var copy = self
        copy.progress = view
        return copy
    }

    /// This view with `view` for the `failure` state.
    package func errorView(_ view: @escaping ErrorView) -> Self {
        var copy = self
        copy.failure = view
        return copy
    }

    /// Draws `state` in `region`.
    package func draw(_ state: LoadingState<Value>, in region: ScreenRegion, on screen: inout ScreenBuffer) {
        switch state {
        case .idle: empty(region, &screen)
        case let .loading(progress): self.progress(progress, spinner, region, &screen)
        case let .loaded(value): content(value, region, &screen)
        case let .failure(error): failure(error, region, &screen)
        }
    }

    /// Draws `loader`'s current state in `region`.
    @MainActor package func draw(_ loader: some Loadable<Value>, in region: ScreenRegion, on screen: inout ScreenBuffer) {
        draw(loader.currentState, in: region, on: &screen)
    }

    /// The default progress view: on the region's first line, the spinner (or
    /// "cancelled"), the percent when known, the message when there is one.
    package static func defaultProgressView(_ progress: LoadingProgress?, spinner: Spinner, in region: ScreenRegion,
                                           on screen: inout ScreenBuffer) {
        let text: String
        if progress?.isCanceled == true {
            text = "cancelled"
        } else {
            let percent = progress?.percent.map { " \($0)%" } ?? ""
            let message = progress?.message.map { "  \($0)" } ?? ""
            text = "\(spinner.symbol)\(percent)\(message)"
        }
        screen.put(text, line: 0, of: region, foreground: Palette.dim)
    }

    /// The default error view: on the region's first line, `✗`, the retry
    /// hint if any, and the reason, cut at the region's edge (the hint comes
    /// first so that it is never the part cut).
    package static func defaultErrorView(retryHint: String?) -> ErrorView {
        { error, region, screen in
            let hint = retryHint.map { "\($0) · " } ?? ""
            screen.put("✗ \(hint)\(error)", line: 0, of: region, foreground: Palette.alert)
        }
    }
}
