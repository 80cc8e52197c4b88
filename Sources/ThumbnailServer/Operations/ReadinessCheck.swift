import ThumbnailHTTP
import ThumbnailKit

/// Something a server needs in order to answer, and a cheap way to ask whether it
/// can now: what `/readyz` runs (``OperationsRoutes``). A load balancer then sends no
/// traffic to a replica whose disk went away or whose store is down.
public struct ReadinessCheck: Sendable {
    /// What is checked, as `/readyz` names it when not ready ("disk cache", "store").
    public let name: String
    private let check: @Sendable () async throws -> Void

    /// A check that passes when `check` returns and fails with what it throws.
    public init(name: String, check: @escaping @Sendable () async throws -> Void) {
        self.name = name
        self.check = check
    }

    /// The disk tier can be written: a probe file is made and removed in its
    /// directory (no data written), which fails once the directory is deleted or its
    /// file system is read-only.
    public static func diskCache(_ cache: DiskCache) -> ReadinessCheck {
        ReadinessCheck(name: "disk cache") { try cache.checkWritable() }
    }

    /// The object store answers and the credentials may use it: one HEAD of its
    /// bucket (``/ThumbnailHTTP/S3ObjectStore/checkAccess()``), bounded by the store's transport timeouts.
    public static func objectStore(_ store: S3ObjectStore) -> ReadinessCheck {
        ReadinessCheck(name: "store") { try await store.checkAccess() }
    }

    /// `nil` when the check passes, else what it threw.
    func failure() async -> (any Error)? {
        do {
            try await check()
            return nil
        } catch {
            return error
        }
    }
}
