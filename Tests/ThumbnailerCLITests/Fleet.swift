import Foundation
import Synchronization
import TestSupport
import ThumbnailKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `thumbnailer serve` replicas on loopback ports sharing one store, behind nginx run from the
/// shipped `scripts/fleet/nginx.conf` with its placeholders filled in, as `scripts/fleet.sh` does.
final class Fleet: Sendable {
    static let nginx = "/usr/sbin/nginx"

    /// Why a fleet cannot run here, or `nil` when it can.
    static let unavailableReason: String? = {
        guard FileManager.default.isExecutableFile(atPath: nginx) else { return "the fleet tests need nginx (Debian: nginx)" }
        return S3TestStore.unavailableReason.map { "the fleet tests need the loopback S3 store: \($0)" }
    }()

    let replicas: [Replica]
    let port: Int
    private let balancer: ChildProcess.Running
    /// Replicas started again, stopped with the fleet.
    private let restarted = Mutex<[Replica]>([])

    private init(replicas: [Replica], port: Int, balancer: ChildProcess.Running) {
        self.replicas = replicas
        self.port = port
        self.balancer = balancer
    }

    /// Starts `count` replicas with `--store location` and nginx in front, and waits until nginx answers.
    static func start(replicas count: Int, store: S3TestStore, location: String, in temporary: TemporaryDirectory) async throws -> Fleet {
        var replicas: [Replica] = []
        for index in 0..<count {
            replicas.append(try await Replica.start(port: try freePort(), store: store, location: location,
                                                    cacheDirectory: temporary.path("replica-\(index)")))
        }
        let prefix = temporary.path("nginx")
        try FileManager.default.createDirectory(atPath: prefix, withIntermediateDirectories: true)
        let port = try freePort()
        let template = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("scripts/fleet/nginx.conf"), encoding: .utf8)
        let configuration = template
            .replacingOccurrences(of: "@PREFIX@", with: prefix)
            .replacingOccurrences(of: "@USER@", with: String(cString: getpwuid(geteuid()).pointee.pw_name))
            .replacingOccurrences(of: "@LISTEN@", with: "127.0.0.1:\(port)")
            .replacingOccurrences(of: "@REPLICAS@", with: replicas.map { "server 127.0.0.1:\($0.port) max_fails=1 fail_timeout=10s;" }
                .joined(separator: " "))
        try configuration.write(toFile: "\(prefix)/nginx.conf", atomically: true, encoding: .utf8)
        let balancer = try ChildProcess.start(["-p", prefix, "-c", "\(prefix)/nginx.conf", "-e", "\(prefix)/error.log",
                                               "-g", "daemon off;"], executable: nginx, newProcessGroup: true)
        let fleet = Fleet(replicas: replicas, port: port, balancer: balancer)
        guard try await eventually(within: .seconds(30), { (try? TestHTTPClient.request(port: port, path: "/healthz"))?.status == 200 }) else {
            fleet.stop()
            throw TestHTTPClient.Failure(description: "nginx never answered: \(balancer.standardErrorSoFar) "
                + ((try? String(contentsOfFile: "\(prefix)/error.log", encoding: .utf8)) ?? ""))
        }
        return fleet
    }

    /// Starts a replica again on `replica`'s port, on an empty disk if asked.
    func restart(_ replica: Replica, emptyDisk: Bool) async throws -> Replica {
        replica.kill()
        let started = try await Replica.start(port: replica.port, store: replica.store, location: replica.location,
                                              cacheDirectory: replica.cacheDirectory + (emptyDisk ? "-empty" : ""))
        restarted.withLock { $0.append(started) }
        return started
    }

    /// Stops nginx with its workers and cache manager (killed with the master alone, they outlived
    /// the tests) and the replicas.
    func stop() {
        _ = balancer.killProcessGroup()
        for replica in replicas + restarted.withLock({ $0 }) { replica.kill() }
    }

    /// `GET` each path through nginx, `concurrency` at a time; the responses in the paths' order.
    func getAll(_ paths: [String], headers: [String: String] = [:], concurrency: Int = 16) async throws -> [TestHTTPClient.Response] {
        try await withThrowingTaskGroup(of: (Int, TestHTTPClient.Response).self) { group in
            var responses = [TestHTTPClient.Response?](repeating: nil, count: paths.count)
            var next = 0
            func add() {
                let (index, path, port) = (next, paths[next], port)
                group.addTask { (index, try await runBlocking { try TestHTTPClient.request(port: port, path: path, headers: headers) }) }
                next += 1
            }
            while next < min(concurrency, paths.count) { add() }
            while let (index, response) = try await group.next() {
                responses[index] = response
                if next < paths.count { add() }
            }
            return responses.map { $0! }
        }
    }

    /// Thumbnails the replicas rendered, in all.
    func renders() async throws -> Int {
        var total = 0
        for replica in replicas { total += try await replica.metric("thumbnailer_renders_total") }
        return total
    }

    /// Requests each replica has answered so far (its access log's lines).
    func replicaRequestCounts() -> [Int] { replicas.map { $0.accessLogPaths().count } }

    /// The number a thumbnail of a numbered image shows, from its centre pixel.
    static func number(in response: TestHTTPClient.Response) async -> Int? {
        guard response.status == 200, let thumbnail = try? await ThumbnailDecoder(size: .original).decode(response.body) else { return nil }
        let (r, g, b, _) = thumbnail.pixel(x: thumbnail.width / 2, y: thumbnail.height / 2)
        return NumberedImage.coarseNumber(red: Int(r), green: Int(g), blue: Int(b))
    }

    /// The image number in a thumbnail path's source (`…/images/N.png`), base64url-decoded.
    static func sourceNumber(ofPath path: String) -> Int? {
        guard let segment = path.split(separator: "/").last,
              let source = Base64URL.decodedText(segment.split(separator: ".").first ?? segment),
              let name = source.split(separator: "/").last, name.hasSuffix(".png") else { return nil }
        return Int(name.dropLast(4))
    }

    /// A free loopback port: bound to port 0, read, released.
    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let found = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard found else { throw POSIXError(.EADDRINUSE) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

/// One `thumbnailer serve --store` replica on a fixed loopback port.
final class Replica: Sendable {
    let port: Int
    let store: S3TestStore
    let location: String
    let cacheDirectory: String
    private let process: ChildProcess.Running

    private init(port: Int, store: S3TestStore, location: String, cacheDirectory: String, process: ChildProcess.Running) {
        self.port = port
        self.store = store
        self.location = location
        self.cacheDirectory = cacheDirectory
        self.process = process
    }

    static func start(port: Int, store: S3TestStore, location: String, cacheDirectory: String) async throws -> Replica {
        let process = try ChildProcess.start(
            ["serve", "--port", String(port), "--insecure-unsigned", "--private-addresses", "--store", location,
             "--cache-dir", cacheDirectory, "--max-renders", "64", "--deadline", "unlimited",
             // A transfer the origin holds is never retried as stalled: one origin request per render.
             "--low-speed-time", "600"],
            environment: store.environment)
        guard try await eventually(within: .seconds(60), { process.standardOutputSoFar.contains("listening on") }) else {
            let outcome = process.kill()
            throw TestHTTPClient.Failure(description: "replica on \(port) did not start: \(outcome.summary)")
        }
        return Replica(port: port, store: store, location: location, cacheDirectory: cacheDirectory, process: process)
    }

    func get(_ path: String) async throws -> TestHTTPClient.Response {
        try await runBlocking { [port] in try TestHTTPClient.request(port: port, path: path) }
    }

    /// SIGKILL: no drain, no goodbye.
    func kill() { _ = process.kill() }

    /// The paths of the requests in its access log so far.
    func accessLogPaths() -> [String] { accessLogEntries().map(\.path) }

    /// The requests in its access log so far: path, status and tier.
    func accessLogEntries() -> [(path: String, status: String, tier: String)] {
        process.standardOutputSoFar.split(separator: "\n").dropFirst().compactMap { line in
            guard let entry = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let path = entry["path"] as? String else { return nil }
            return (path, "\(entry["status"] ?? "")", "\(entry["tier"] ?? "")")
        }
    }

    /// Requests it holds now: renders running and waiting for a slot.
    func inFlight() async throws -> Int {
        try await metric("thumbnailer_renders_in_flight") + metric("thumbnailer_queue_length")
    }

    /// A counter or gauge from its `/metrics` (0 when absent).
    func metric(_ name: String) async throws -> Int {
        let text = String(decoding: try await get("/metrics").body, as: UTF8.self)
        let line = text.split(separator: "\n").first { $0.hasPrefix(name + " ") }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") }.map { Int($0) } ?? 0
    }
}
