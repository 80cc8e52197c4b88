import Synchronization
import Testing
import ThumbnailKit

/// An in-memory ``ThumbnailProviding`` for row and list tests: every request
/// parks until the test answers it, by URL, in any order; the test can send
/// a waiting request progress, fail it, or put a thumbnail "in memory".
///
/// A cancelled request is recorded. By default it then throws
/// `CancellationError` at once, as the pipeline does; a spy made
/// `ignoringCancellation` keeps it waiting for the test's answer instead,
/// like work that cannot stop early (a memory cache answers without looking
/// at cancellation), so a stale completion can be delivered on purpose.
final class SpyThumbnailProvider: ThumbnailProviding {
    private struct Call {
        let id: UInt64
        let url: String
        let progress: (@Sendable (ThumbnailProgress) -> Void)?
        let continuation: CheckedContinuation<Thumbnail, any Error>
    }

    private struct State {
        var requested: [ThumbnailRequest] = []
        var cancelled: [String] = []
        var cancelledIDs: Set<UInt64> = []
        var waiting: [Call] = []
        var cached: [ThumbnailKey: Thumbnail] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())
    private let ignoresCancellation: Bool

    init(ignoringCancellation: Bool = false) {
        ignoresCancellation = ignoringCancellation
    }

    deinit {
        // Ends what a test left waiting, so no continuation leaks.
        for call in state.withLock({ $0.waiting }) { call.continuation.resume(throwing: CancellationError()) }
    }

    // MARK: ThumbnailProviding

    func cachedThumbnail(for request: ThumbnailRequest) -> Thumbnail? {
        state.withLock { $0.cached[request.key] }
    }

    func thumbnail(for request: ThumbnailRequest,
                   progress: (@Sendable (ThumbnailProgress) -> Void)?) async throws -> Thumbnail {
        let id = state.withLock { state in
            state.nextID += 1
            state.requested.append(request)
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                state.withLock {
                    $0.waiting.append(Call(id: id, url: request.url, progress: progress, continuation: continuation))
                }
                // A cancellation before the call was parked found nothing to answer.
                if Task.isCancelled { cancel(id, url: request.url) }
            }
        } onCancel: {
            cancel(id, url: request.url)
        }
    }

    // MARK: What the test sees

    /// The URLs asked for, in order, cancelled or not.
    var requestedURLs: [String] { state.withLock { $0.requested.map(\.url) } }
    /// The requests asked for, in order.
    var requests: [ThumbnailRequest] { state.withLock { $0.requested } }
    /// The URLs whose requests were cancelled, in order.
    var cancelledURLs: [String] { state.withLock { $0.cancelled } }
    /// The URLs of the requests waiting for an answer, oldest first.
    var waitingURLs: [String] { state.withLock { $0.waiting.map(\.url) } }

    // MARK: What the test does

    /// Puts `thumbnail` where ``cachedThumbnail(for:)`` finds it for `request`.
    func cache(_ thumbnail: Thumbnail, for request: ThumbnailRequest) {
        state.withLock { $0.cached[request.key] = thumbnail }
    }

    /// Answers the oldest waiting request for `url` with `thumbnail`.
    func complete(_ url: String, with thumbnail: Thumbnail) {
        take(url)?.continuation.resume(returning: thumbnail)
    }

    /// Answers the oldest waiting request for `url` with `error`.
    func fail(_ url: String, with error: any Error) {
        take(url)?.continuation.resume(throwing: error)
    }

    /// Reports `progress` to the oldest waiting request for `url`.
    func sendProgress(_ url: String, _ progress: ThumbnailProgress) {
        guard let call = state.withLock({ $0.waiting.first { $0.url == url } }) else {
            Issue.record("no request for \(url) is waiting")
            return
        }
        call.progress?(progress)
    }

    private func take(_ url: String) -> Call? {
        let call = state.withLock { state in
            state.waiting.firstIndex { $0.url == url }.map { state.waiting.remove(at: $0) }
        }
        if call == nil { Issue.record("no request for \(url) is waiting") }
        return call
    }

    private func cancel(_ id: UInt64, url: String) {
        let call = state.withLock { state -> Call? in
            // Both the handler and the check after parking may call this: record it once.
            if state.cancelledIDs.insert(id).inserted { state.cancelled.append(url) }
            guard !ignoresCancellation else { return nil }
            return state.waiting.firstIndex { $0.id == id }.map { state.waiting.remove(at: $0) }
        }
        call?.continuation.resume(throwing: CancellationError())
    }
}
