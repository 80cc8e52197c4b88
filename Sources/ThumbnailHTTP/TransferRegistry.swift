import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// The session's delegate: Linux's URLSession has no per-task delegates, so
/// this one routes each callback to the ``Transfer`` of its task.
final class TransferRegistry: NSObject, URLSessionDataDelegate, Sendable {
    private let transfers = Mutex<[Int: Transfer]>([:])

    func register(_ transfer: Transfer, for taskIdentifier: Int) {
        transfers.withLock { $0[taskIdentifier] = transfer }
    }

    /// Forgets a task that will never run.
    func unregister(_ taskIdentifier: Int) {
        _ = transfers.withLock { $0.removeValue(forKey: taskIdentifier) }
    }

    private func transfer(for task: URLSessionTask) -> Transfer? {
        transfers.withLock { $0[task.taskIdentifier] }
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                    completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        let accepted = transfer(for: dataTask)?.accept(response) ?? false
        completionHandler(accepted ? .allow : .cancel)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        guard let transfer = transfer(for: dataTask) else { return }
        // Deadlines are checked here too, on the session's queue: the watchdog
        // task runs on the cooperative pool, which a busy process can hold up
        // long enough for a trickling body to outlast its deadline.
        if case let .expired(timeout) = transfer.checkTimeouts(at: .now) {
            if transfer.fail(with: .timedOut(transfer.request.url, after: timeout)) { dataTask.cancel() }
            return
        }
        if !transfer.receive(data) { dataTask.cancel() }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let transfer = transfers.withLock { $0.removeValue(forKey: task.taskIdentifier) }
        transfer?.complete(with: error)
    }
}
