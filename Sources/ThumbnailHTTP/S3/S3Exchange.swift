import CFetch
import Synchronization

/// One S3 request and its whole answer: status, `x-amz-meta-*` headers, and a
/// body of at most `maximumBytes` (libcurl refuses more, announced or counted).
/// The I/O thread fills it; the awaiting task gets it once, at the end.
final class S3Exchange: Sendable {
    /// What came back.
    struct Response: Sendable {
        var status = 0
        /// `x-amz-meta-` headers by the name after that prefix, lower-cased.
        var metadata: [String: String] = [:]
        var contentLength: Int?
        var body: [UInt8] = []
    }

    private struct State {
        var response = Response()
        var continuation: CheckedContinuation<Result<Response, S3Error>, Never>?
        var result: Result<Response, S3Error>?
    }

    static let metadataPrefix = "x-amz-meta-"

    /// What the request was, for errors: `GET s3://bucket/key`.
    let label: String
    private let state = Mutex(State())

    init(label: String) {
        self.label = label
    }

    /// Waits for the end of the exchange.
    func response() async -> Result<Response, S3Error> {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state -> Result<Response, S3Error>? in
                if let result = state.result { return result }
                state.continuation = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    // MARK: - The I/O thread's side

    func receive(_ head: cf_response) {
        var metadata: [String: String] = [:]
        for index in 0..<head.kept_header_count {
            guard let pointer = head.kept_headers[index] else { continue }
            let line = String(cString: pointer)
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].dropFirst(Self.metadataPrefix.count).lowercased()
            let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            metadata[name] = String(value)
        }
        state.withLock { state in
            state.response.status = Int(head.status)
            state.response.metadata = metadata
            state.response.contentLength = head.content_length >= 0 ? Int(head.content_length) : nil
        }
    }

    func receive(_ bytes: UnsafeRawBufferPointer) {
        state.withLock { $0.response.body.append(contentsOf: bytes) }
    }

    func complete(_ result: cf_result) {
        let continuation = state.withLock { state -> CheckedContinuation<Result<Response, S3Error>, Never>? in
            if result.outcome == CF_DONE {
                if state.response.status == 0 { state.response.status = Int(result.status) }
                state.result = .success(state.response)
            } else {
                let reason = result.outcome == CF_TOO_LARGE
                    ? "the answer is larger than this client accepts (\(result.received) bytes or more)"
                    : String(cString: result.message)
                state.result = .failure(.unreachable(label, reason: reason))
            }
            defer { state.continuation = nil }
            return state.continuation
        }
        if let continuation, let result = state.withLock({ $0.result }) { continuation.resume(returning: result) }
    }
}
