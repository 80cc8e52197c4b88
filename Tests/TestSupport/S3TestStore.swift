import Foundation
import Synchronization

/// A real S3-compatible store on loopback: OpenStack Swift with its s3api
/// middleware, started by `scripts/s3-store.py` in a directory of its own.
/// No mock: requests are signed, objects are written to disk and listed back.
///
/// Tests that only need a bucket share ``shared()`` (one store for the test
/// process, stopped when it exits); tests that stop and restart the store
/// start one of their own. Starting, stopping and making buckets run child
/// processes on a thread of their own (``runBlocking(_:)``), never on the
/// cooperative pool that the tests beside them need.
public final class S3TestStore: Sendable {
    /// Why no store can run here, for a skip message; `nil` when one can.
    public static let unavailableReason: String? = {
        guard let check = try? run(["check"]) else { return "scripts/s3-store.py could not be run" }
        return check.status == 0 ? nil : check.output
    }()

    /// Whether a store can run here (Debian's python3-swift and memcached are installed).
    public static var isAvailable: Bool { unavailableReason == nil }

    private static let sharedStore = Mutex<Task<S3TestStore, any Error>?>(nil)

    /// The store every test that needs only a bucket shares, started on first use
    /// and stopped when the test process exits.
    public static func shared() async throws -> S3TestStore {
        let task = sharedStore.withLock { task in
            if let task { return task }
            let started = Task {
                let store = try await S3TestStore()
                sharedDirectory.withLock { $0 = store.directory.path }
                atexit {
                    if let directory = S3TestStore.sharedDirectory.withLock({ $0 }) { _ = try? S3TestStore.run(["stop", directory]) }
                }
                return store
            }
            task = started
            return started
        }
        return try await task.value
    }

    private static let sharedDirectory = Mutex<String?>(nil)

    public let directory: URL
    /// `AWS_ENDPOINT_URL`, `AWS_REGION`, `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` for this store.
    public let environment: [String: String]
    private let nextBucket = Atomic<Int>(0)

    /// Starts a store in a new temporary directory.
    public init() async throws {
        let directory = try Fixtures.temporaryDirectory()
        let started = try await runBlocking { try Self.run(["start", directory.path]) }
        guard started.status == 0 else { throw StoreError(message: "s3-store start: \(started.output)") }
        self.directory = directory
        environment = Dictionary(uniqueKeysWithValues: started.output.split(separator: "\n").compactMap { line in
            line.firstIndex(of: "=").map { (String(line[..<$0]), String(line[line.index(after: $0)...])) }
        })
    }

    deinit {
        _ = try? Self.run(["stop", directory.path])
    }

    /// The endpoint, `http://127.0.0.1:PORT`.
    public var endpoint: String { environment["AWS_ENDPOINT_URL"] ?? "" }

    /// Creates a bucket no other test uses, and returns its name.
    public func makeBucket(_ label: String = "test") async throws -> String {
        let name = "\(label.lowercased())-\(getpid())-\(nextBucket.add(1, ordering: .relaxed).newValue)"
        let created = try await runBlocking { [directory] in try Self.run(["bucket", directory.path, name]) }
        guard created.status == 0 else { throw StoreError(message: "s3-store bucket: \(created.output)") }
        return name
    }

    /// Stops the store's servers; its objects stay in ``directory``.
    public func stop() async throws {
        _ = try await runBlocking { [directory] in try Self.run(["stop", directory.path]) }
    }

    /// Starts the store again on the same ports, with the objects it had.
    public func restart() async throws {
        let started = try await runBlocking { [directory] in try Self.run(["start", directory.path]) }
        guard started.status == 0 else { throw StoreError(message: "s3-store start: \(started.output)") }
    }

    struct StoreError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    private static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = Fixtures.packageRoot.appendingPathComponent("scripts/s3-store.py")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
