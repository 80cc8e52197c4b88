import Hummingbird
import NIOCore
import Synchronization

/// The requests in progress on each client connection, so that a client that
/// hangs up cancels its own requests' work (a render's origin transfer is
/// then closed, unless another request shares it). ``ClientHangUpHandler``
/// reports hang-ups from the connection's channel pipeline.
final class ClientHangUps: Sendable {
    private struct State {
        var nextID: UInt64 = 0
        var requests: [ObjectIdentifier: [UInt64: @Sendable () -> Void]] = [:]
    }

    private let state = Mutex(State())

    /// Runs `work` in its own task, cancelled when the client on `connection`
    /// hangs up (or the caller's task is cancelled). The request is registered
    /// before its work starts, so a hang-up while it runs cannot be missed, and
    /// a connection that closed before that cancels it at once.
    func run<Result: Sendable>(on connection: (any Channel)?,
                               _ work: @escaping @Sendable () async -> Result) async -> Result {
        guard let connection else {
            let task = Task { await work() }
            return await withTaskCancellationHandler { await task.value } onCancel: { task.cancel() }
        }
        let request = CancellableRequest()
        let key = ObjectIdentifier(connection)
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            state.requests[key, default: [:]][state.nextID] = { request.cancel() }
            return state.nextID
        }
        defer {
            state.withLock { state in
                state.requests[key]?[id] = nil
                if state.requests[key]?.isEmpty == true { state.requests[key] = nil }
            }
        }
        let task = Task { await work() }
        request.started { task.cancel() }
        if !connection.isActive { request.cancel() }
        return await withTaskCancellationHandler { await task.value } onCancel: { request.cancel() }
    }

    /// Cancels every request in progress on `connection`.
    func hangUp(_ connection: any Channel) {
        let cancels = state.withLock { $0.requests.removeValue(forKey: ObjectIdentifier(connection)) }
        for cancel in (cancels ?? [:]).values { cancel() }
    }
}

/// One request's cancellation, which may come before its task exists: it is
/// then passed on as soon as the task is handed over.
private final class CancellableRequest: Sendable {
    private struct State {
        var cancelTask: (@Sendable () -> Void)?
        var cancelled = false
    }

    private let state = Mutex(State())

    /// Hands over what cancels the request's task, called at once when the request already was cancelled.
    func started(_ cancelTask: @escaping @Sendable () -> Void) {
        let cancelled = state.withLock { state -> Bool in
            state.cancelTask = cancelTask
            return state.cancelled
        }
        if cancelled { cancelTask() }
    }

    /// Cancels the task now, or as soon as it is handed over.
    func cancel() {
        let cancelTask = state.withLock { state -> (@Sendable () -> Void)? in
            state.cancelled = true
            return state.cancelTask
        }
        cancelTask?()
    }
}

/// Tells ``ClientHangUps`` when a client closes its side of the connection
/// (the server's channels allow half-closure, so that alone does not close
/// them) or the connection drops. Added to each connection's pipeline, after
/// HTTP decoding: `ThumbnailServer/hangUpHandler()`.
final class ClientHangUpHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let hangUps: ClientHangUps

    init(_ hangUps: ClientHangUps) {
        self.hangUps = hangUps
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, event == .inputClosed { hangUps.hangUp(context.channel) }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        hangUps.hangUp(context.channel)
        context.fireChannelInactive()
    }
}
