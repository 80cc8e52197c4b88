import CFetch
import ThumbnailKit

/// One cfetch client: a libcurl multi handle and the I/O thread that drives it.
/// Transfers are started, cancelled and resumed from any thread.
final class CurlClient: @unchecked Sendable {
    // @unchecked Sendable is safe: the only stored property is the cf_client
    // pointer, set once in init and freed in deinit; cfetch's start, cancel and
    // resume are thread-safe (they post to the client's locked command queue,
    // and only its I/O thread touches libcurl's multi handle).
    private let client: OpaquePointer

    /// Starts the I/O thread.
    /// - Throws: ``DataLoadingError/network(_:reason:)`` when libcurl or the thread cannot start.
    init(refusesPrivateAddresses: Bool, receiveBufferBytes: Int) throws {
        var options = cf_client_options(refuse_private_addresses: refusesPrivateAddresses ? 1 : 0,
                                        receive_buffer_bytes: receiveBufferBytes)
        var message = [CChar](repeating: 0, count: 256)
        guard let client = cf_client_create(&options, &message, message.count) else {
            let reason = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw DataLoadingError.network("libcurl", reason: reason)
        }
        self.client = client
    }

    deinit { cf_client_destroy(client) }

    /// Starts a GET; `callbacks` run on the I/O thread. `0` when it could not start
    /// (no callback will run).
    func start(_ request: inout cf_request, _ callbacks: inout cf_callbacks) -> UInt64 {
        cf_client_start(client, &request, &callbacks)
    }

    /// Ends a transfer with `CF_CANCELLED` at once, unless it has ended.
    func cancel(_ id: UInt64) { cf_client_cancel(client, id) }

    /// Offers a paused transfer's bytes again.
    func resume(_ id: UInt64) { cf_client_resume(client, id) }
}
