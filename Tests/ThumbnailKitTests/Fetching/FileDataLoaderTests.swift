import Foundation
import Synchronization
import TestSupport
import Testing
import ThumbnailKit

/// Local files through the DataLoading role: paths, file URLs, progress, limits, errors.
@Suite struct FileDataLoaderTests {
    let temporary: TemporaryDirectory
    var directory: URL { temporary.url }

    init() throws {
        temporary = try TemporaryDirectory()
    }

    private func write(_ name: String, bytes count: Int) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try Data((0..<count).map { UInt8(truncatingIfNeeded: $0) }).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test func loadsAPathWithProgressInOrderEndingAtOneHundred() async throws {
        let path = try write("photo.jpg", bytes: 1_000_000)
        let reports = Mutex([TransferProgress]())
        let loaded = try await FileDataLoader(chunkSize: 64 * 1024).loadBytes(DataRequest(url: path)) { progress in
            reports.withLock { $0.append(progress) }
        }
        #expect(loaded.count == 1_000_000 && loaded[999_999] == UInt8(truncatingIfNeeded: 999_999))
        let received = reports.withLock { $0.map(\.receivedBytes) }
        #expect(received == received.sorted() && received.first == 0)
        #expect(reports.withLock { $0.last?.percent } == 100)
        #expect(received.count == 17, "one report up front, then one per 64 KiB chunk")
    }

    @Test func fileURLsWithEscapesNameTheSameFile() async throws {
        let path = try write("with space.png", bytes: 10)
        let url = "file://" + path.replacingOccurrences(of: " ", with: "%20")
        #expect(FileDataLoader.path(for: url) == path)
        #expect(FileDataLoader.path(for: "file://localhost" + path.replacingOccurrences(of: " ", with: "%20")) == path)
        #expect(try await FileDataLoader().loadBytes(DataRequest(url: url)).count == 10)
    }

    @Test func otherSchemesAreNotFiles() async throws {
        #expect(FileDataLoader.path(for: "https://example.com/a.jpg") == nil)
        #expect(FileDataLoader.path(for: "relative/a.jpg") == "relative/a.jpg")
        await #expect(throws: DataLoadingError.unsupportedURL("http://127.0.0.1/a.jpg")) {
            try await FileDataLoader().loadBytes(DataRequest(url: "http://127.0.0.1/a.jpg"))
        }
    }

    @Test func missingFilesDirectoriesAndOversizedFilesAreTypedErrors() async throws {
        let missing = directory.appendingPathComponent("nope.jpg").path
        await #expect(throws: DataLoadingError.notFound(missing)) {
            try await FileDataLoader().loadBytes(DataRequest(url: missing))
        }
        await #expect(throws: DataLoadingError.unreadable(directory.path, reason: "not a regular file")) {
            try await FileDataLoader().loadBytes(DataRequest(url: self.directory.path))
        }
        let big = try write("big.png", bytes: 5_000)
        let progressCalls = Mutex(0)
        await #expect(throws: DataLoadingError.tooLarge(big, bytes: 5_000, limit: 4_999)) {
            try await FileDataLoader().loadBytes(DataRequest(url: big, maximumBytes: 4_999)) { _ in
                progressCalls.withLock { $0 += 1 }
            }
        }
        #expect(progressCalls.withLock { $0 } == 0, "refused before reading")
    }

    @Test func aCancelledTaskStopsReading() async throws {
        let path = try write("slow.jpg", bytes: 2_000_000)
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await FileDataLoader(chunkSize: 1024).loadBytes(DataRequest(url: path))
        }
        await #expect(throws: CancellationError.self) { try await task.value }
    }
}
