import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import ThumbnailKit

/// One HTTP transfer's state, fed by the session delegate on its serial queue
/// and finished exactly once: by the delegate, or earlier by a refusal of ours
/// (size, status, deadline) that then cancels the task.
final class Transfer: Sendable {
    private struct State {
        var continuation: CheckedContinuation<LoadedData, any Error>?
        var bytes: [UInt8] = []
        var expectedBytes: Int?
        var response = LoadedData(bytes: [])
        /// Why we stopped the transfer, reported instead of URLSession's `cancelled`.
        var refusal: DataLoadingError?
        var result: Result<LoadedData, any Error>?
        /// When the server last gave a sign of life (the start, the response, body bytes).
        var lastActivity = ContinuousClock.now
    }

    /// What ``checkTimeouts(at:)`` found.
    enum TimeoutCheck {
        /// This timeout ran out.
        case expired(Duration)
        /// Nothing ran out; look again at this instant.
        case checkAgain(at: ContinuousClock.Instant)
    }

    let request: DataRequest
    /// The longest silence from the server: connecting, waiting for the response, between body bytes.
    private let idleTimeout: Duration
    /// The longest the whole transfer may take.
    private let transferTimeout: Duration
    private let started = ContinuousClock.now
    private let progress: @Sendable (TransferProgress) -> Void
    private let state = Mutex(State())

    init(request: DataRequest, idleTimeout: Duration, transferTimeout: Duration,
         progress: @escaping @Sendable (TransferProgress) -> Void) {
        self.request = request
        self.idleTimeout = idleTimeout
        self.transferTimeout = transferTimeout
        self.progress = progress
    }

    /// Whether the idle or the whole-transfer timeout has run out at `now`.
    /// (URLSession's own timeouts on Linux count whole seconds only: 0.5 s
    /// fails at once, 1.5 s waits 1 s. These are exact.)
    func checkTimeouts(at now: ContinuousClock.Instant) -> TimeoutCheck {
        let idleDeadline = state.withLock { $0.lastActivity } + idleTimeout
        let transferDeadline = started + transferTimeout
        if now >= transferDeadline { return .expired(transferTimeout) }
        if now >= idleDeadline { return .expired(idleTimeout) }
        return .checkAgain(at: min(idleDeadline, transferDeadline))
    }

    /// Stores the continuation to resume, or resumes it now if the transfer already ended.
    func begin(_ continuation: CheckedContinuation<LoadedData, any Error>) {
        let finished = state.withLock { state -> Result<LoadedData, any Error>? in
            if let result = state.result { return result }
            state.continuation = continuation
            return nil
        }
        if let finished { continuation.resume(with: finished) }
    }

    /// Checks the status and the announced length. `false`: refuse the body.
    func accept(_ response: URLResponse) -> Bool {
        guard let http = response as? HTTPURLResponse else {
            _ = fail(with: .unsupportedURL(request.url))
            return false
        }
        let status = http.statusCode
        let header = { (name: String) in http.value(forHTTPHeaderField: name) }
        if status == 304, request.validators != nil {
            state.withLock { $0.response.notModified = true }
        } else if !(200...299).contains(status) {
            let retryAfter = header("Retry-After").flatMap {
                RetryPolicy.retryAfter(headerValue: $0, now: Int64(Date().timeIntervalSince1970))
            }
            _ = fail(with: .httpStatus(request.url, status: status, retryAfter: retryAfter))
            return false
        }
        let announced = http.expectedContentLength >= 0 ? Int(http.expectedContentLength) : nil
        if let announced, announced > request.maximumBytes {
            _ = fail(with: .tooLarge(request.url, bytes: announced, limit: request.maximumBytes))
            return false
        }
        state.withLock { state in
            state.lastActivity = .now
            state.expectedBytes = announced
            state.response.etag = header("ETag")
            state.response.lastModified = header("Last-Modified")
            state.response.contentType = header("Content-Type")
            if let announced { state.bytes.reserveCapacity(announced) }
        }
        progress(TransferProgress(receivedBytes: 0, expectedBytes: announced))
        return true
    }

    /// Appends body bytes. `false`: the body passed the size limit; stop the transfer.
    func receive(_ data: Data) -> Bool {
        let update = state.withLock { state -> TransferProgress? in
            guard state.result == nil else { return nil }
            state.lastActivity = .now
            state.bytes.append(contentsOf: data)
            return TransferProgress(receivedBytes: state.bytes.count, expectedBytes: state.expectedBytes)
        }
        guard let update else { return false }
        if update.receivedBytes > request.maximumBytes {
            _ = fail(with: .tooLarge(request.url, bytes: update.receivedBytes, limit: request.maximumBytes))
            return false
        }
        progress(update)
        return true
    }

    /// URLSession finished the task, with `error` or not.
    func complete(with error: (any Error)?) {
        let result = state.withLock { state -> Result<LoadedData, any Error> in
            if let refusal = state.refusal { return .failure(refusal) }
            if let error { return .failure(translate(error, received: state.bytes.count, expected: state.expectedBytes)) }
            if let expected = state.expectedBytes, state.bytes.count != expected, !state.response.notModified {
                return .failure(DataLoadingError.truncated(request.url, received: state.bytes.count, expected: expected))
            }
            var data = state.response
            data.bytes = state.bytes
            state.bytes = []
            return .success(data)
        }
        finish(with: result)
    }

    /// Ends the transfer with `error` unless it has ended. `true`: the caller should cancel the task.
    func fail(with error: DataLoadingError) -> Bool {
        let first = state.withLock { state in
            guard state.result == nil, state.refusal == nil else { return false }
            state.refusal = error
            return true
        }
        if first { finish(with: .failure(error)) }
        return first
    }

    /// Ends the transfer with `CancellationError` now, unless it has ended
    /// (the caller cancels the URLSession task too).
    func cancel() {
        finish(with: .failure(CancellationError()))
    }

    private func finish(with result: Result<LoadedData, any Error>) {
        let continuation = state.withLock { state -> CheckedContinuation<LoadedData, any Error>? in
            guard state.result == nil else { return nil }
            state.result = result
            state.bytes = []
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(with: result)
    }

    /// URLSession's errors as ours; its `cancelled` as `CancellationError`.
    private func translate(_ error: any Error, received: Int, expected: Int?) -> any Error {
        let url = request.url
        guard let urlError = error as? URLError else { return DataLoadingError.network(url, reason: "\(error)") }
        switch urlError.code {
        case .cancelled:
            return CancellationError()
        case .timedOut:  // URLSession's backstop, set above ours
            return DataLoadingError.timedOut(url, after: idleTimeout)
        case .unsupportedURL, .badURL:
            return DataLoadingError.unsupportedURL(url)
        default:
            // A body cut short, whatever libcurl calls it ("transfer closed with n bytes remaining").
            if let expected, received < expected {
                return DataLoadingError.truncated(url, received: received, expected: expected)
            }
            return DataLoadingError.network(url, reason: urlError.localizedDescription)
        }
    }
}
