import CFetch
import Synchronization
import ThumbnailKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One transfer between the I/O thread, which feeds it (the response head,
/// body bytes, the end), and the task that drains it into the sink.
///
/// The bytes it holds, queued or being written, never pass `capacity`: a
/// piece of body that does not fit is refused with `CF_BODY_PAUSE`, libcurl
/// stops reading that socket, and the consumer resumes it once it has written
/// what it took. That is the backpressure; nothing else bounds a fast server.
final class HTTPTransfer: Sendable {
    /// What the consumer gets next, in order: the head (unless the response
    /// was refused), body bytes, the end.
    enum Event {
        case head(ResponseHead)
        case bytes([UInt8])
        case end(Result<ResponseHead, any Error>)
    }

    private struct State {
        var head: ResponseHead?
        var headTaken = false
        var pending: [UInt8] = []
        /// Bytes queued plus bytes the consumer took and is still writing.
        var held = 0
        var paused = false
        var end: Result<ResponseHead, any Error>?
        /// Why we refused the response (its status), or why the consumer stopped (the sink failed).
        var refusal: (any Error)?
        var waiter: CheckedContinuation<Event, Never>?
    }

    let request: DataRequest
    private let configuration: HTTPDataLoader.Configuration
    private let usage: BufferUsageMeter
    private let state = Mutex(State())

    init(request: DataRequest, configuration: HTTPDataLoader.Configuration, usage: BufferUsageMeter) {
        self.request = request
        self.configuration = configuration
        self.usage = usage
    }

    // MARK: - The consumer's side

    /// The next event, waiting for it if there is none yet.
    func next() async -> Event {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Event? in
                if let event = Self.takeEvent(from: &state) { return event }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// The consumer has written `count` bytes it took. `true`: the transfer was
    /// paused for room and should be resumed.
    func written(_ count: Int) -> Bool {
        usage.release(count)
        return state.withLock { state in
            state.held -= count
            defer { state.paused = false }
            return state.paused
        }
    }

    /// The consumer gave up (its sink failed): this error wins over the cancellation that follows.
    func abandon(because error: any Error) {
        state.withLock { state in
            if state.refusal == nil { state.refusal = error }
        }
    }

    // MARK: - The I/O thread's side

    /// The final response's head. Returns nonzero to refuse the body.
    func receive(_ response: cf_response) -> Int32 {
        let text = { (pointer: UnsafePointer<CChar>?) in pointer.map { String(cString: $0) } }
        let status = Int(response.status)
        var head = ResponseHead(etag: text(response.etag), lastModified: text(response.last_modified),
                                contentType: text(response.content_type),
                                expectedBytes: response.content_length >= 0 ? Int(response.content_length) : nil)
        if status == 304, request.validators != nil {
            head.notModified = true
        } else if !(200...299).contains(status) {
            let retryAfter = text(response.retry_after).flatMap {
                RetryPolicy.retryAfter(headerValue: $0, now: Int64(time(nil)))
            }
            state.withLock { $0.refusal = DataLoadingError.httpStatus(request.url, status: status, retryAfter: retryAfter) }
            return 1
        }
        deliver { $0.head = head }
        return 0
    }

    /// Body bytes: taken (`CF_BODY_CONTINUE`) or, when they do not fit, refused for now (`CF_BODY_PAUSE`).
    func receive(_ bytes: UnsafeRawBufferPointer) -> Int32 {
        var accepted = true
        deliver { state in
            if state.held > 0, state.held + bytes.count > configuration.bufferCapacity {
                state.paused = true
                accepted = false
                return
            }
            state.pending.append(contentsOf: bytes)
            state.held += bytes.count
            usage.hold(bytes.count)
        }
        return Int32(accepted ? CF_BODY_CONTINUE : CF_BODY_PAUSE)
    }

    /// How the transfer ended, in our terms.
    func complete(_ result: cf_result) {
        deliver { state in
            if let refusal = state.refusal {
                state.end = .failure(refusal)
            } else if result.outcome == CF_DONE {
                state.end = .success(state.head ?? ResponseHead())
            } else {
                state.end = .failure(error(for: result))
            }
        }
    }

    /// Changes the state, then hands the consumer its next event if it is waiting.
    private func deliver(_ change: (inout State) -> Void) {
        let wakeUp = state.withLock { state -> (CheckedContinuation<Event, Never>, Event)? in
            change(&state)
            guard let waiter = state.waiter, let event = Self.takeEvent(from: &state) else { return nil }
            state.waiter = nil
            return (waiter, event)
        }
        if let (waiter, event) = wakeUp { waiter.resume(returning: event) }
    }

    private static func takeEvent(from state: inout State) -> Event? {
        if let head = state.head, !state.headTaken {
            state.headTaken = true
            return .head(head)
        }
        if !state.pending.isEmpty {
            defer { state.pending = [] }
            return .bytes(state.pending)
        }
        return state.end.map { .end($0) }
    }

    private func error(for result: cf_result) -> any Error {
        let url = request.url
        let message = String(cString: result.message)
        switch result.outcome {
        case CF_CANCELLED:
            return CancellationError()
        case CF_TOO_LARGE:
            return DataLoadingError.tooLarge(url, bytes: Int(max(result.received, result.expected)),
                                             limit: request.maximumBytes)
        case CF_REDIRECT_REFUSED:
            return DataLoadingError.redirectRefused(url, target: result.redirect_target.map { String(cString: $0) } ?? "?")
        case CF_TOO_MANY_REDIRECTS:
            return DataLoadingError.tooManyRedirects(url, limit: configuration.maximumRedirects)
        case CF_ADDRESS_REFUSED:
            return DataLoadingError.privateAddressRefused(url, address: result.refused_address.map { String(cString: $0) } ?? "?")
        case CF_STALLED:
            return DataLoadingError.stalled(url, bytesPerSecond: configuration.lowSpeedLimit,
                                            duration: configuration.lowSpeedTime)
        case CF_TIMED_OUT:
            // The speed floor ends a silent or trickling transfer first, so running out of the
            // whole-transfer time means a body that kept coming, just too slowly to finish.
            if message.contains("Operation timed out"), let transferTimeout = configuration.transferTimeout {
                return DataLoadingError.transferTimedOut(url, after: transferTimeout)
            }
            return DataLoadingError.timedOut(url, after: configuration.connectTimeout)
        case CF_TRUNCATED:
            return DataLoadingError.truncated(url, received: Int(result.received), expected: Int(result.expected))
        case CF_UNSUPPORTED_URL:
            return DataLoadingError.unsupportedURL(url)
        case CF_HEADERS_TOO_LARGE, CF_INVALID_RESPONSE:
            return DataLoadingError.invalidResponse(url, reason: message)
        case CF_UNSUPPORTED_ENCODING:
            let encoding = result.content_encoding.map { String(cString: $0) } ?? "?"
            return DataLoadingError.unsupportedContentEncoding(url, encoding: encoding.count > 64 ? encoding.prefix(64) + "…" : encoding)
        default:
            return DataLoadingError.network(url, reason: message)
        }
    }
}

/// The body bytes all transfers of one loader hold in memory: now, and at most so far.
final class BufferUsageMeter: Sendable {
    private let bytes = Mutex<(current: Int, peak: Int)>((0, 0))

    var current: Int { bytes.withLock { $0.current } }
    var peak: Int { bytes.withLock { $0.peak } }

    func hold(_ count: Int) {
        bytes.withLock {
            $0.current += count
            $0.peak = max($0.peak, $0.current)
        }
    }

    func release(_ count: Int) {
        bytes.withLock { $0.current -= count }
    }
}
