import TestSupport
import Testing
import ThumbnailKit
import ThumbnailServer

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `thumbnailer serve` under load: renders bounded and the rest refused at
/// once, a client that hangs up or a deadline that passes cancels the work
/// (the origin sees its transfer closed).
extension ServeCommandTests {
    /// An origin path whose body stops after 1,000 bytes until `gate` opens; a client hanging up meanwhile is counted.
    func routeHeld(_ originPath: String, at gate: ResponseGate) throws {
        var held = TestHTTPServer.Behavior(body: try Fixtures.bytes(ofTestImage: Self.portrait))
        held.holdAfter = (bytes: 1000, gate: gate)
        origin.route(originPath, held)
    }

    @Test func aClientThatHangsUpCancelsItsRender() async throws {
        let gate = ResponseGate()
        defer { gate.open() }
        try routeHeld("/slow.jpg", at: gate)
        // The transport's own stall timeout far off, so only the hang-up can close the transfer in time.
        let server = try await startServer(["--private-addresses", "--low-speed-time", "600"])
        let socket = try TestHTTPClient.connect(port: server.port)
        try TestHTTPClient.send(Array("GET \(path("/slow.jpg")) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8), on: socket)
        let fetching = try await eventually { origin.heldResponses == 1 }
        #expect(fetching)
        close(socket)
        let closed = try await eventually(within: .seconds(90)) { origin.earlyCloseCount("/slow.jpg") == 1 }
        #expect(closed, "the origin's transfer stayed open after the client hung up")
        #expect(try await server.get(path("/portrait.jpg")).status == 200)
        #expect(try await server.stop().status == 0)
    }

    @Test func aRequestPastItsDeadlineIsAnswered504AndItsWorkCancelled() async throws {
        let gate = ResponseGate()
        defer { gate.open() }
        try routeHeld("/stuck.jpg", at: gate)
        let server = try await startServer(["--private-addresses", "--deadline", "0.5"])
        let response = try await server.get(path("/stuck.jpg"))
        #expect(response.status == 504)
        #expect(String(decoding: response.body, as: UTF8.self) == "deadline exceeded\n")
        let closed = try await eventually(within: .seconds(10)) { origin.earlyCloseCount("/stuck.jpg") == 1 }
        #expect(closed)
        #expect(try await server.stop().status == 0)
    }

    @Test func pastTheQueueRequestsAreRefusedAtOnceAndRendersStayBounded() async throws {
        let gate = ResponseGate()
        defer { gate.open() }
        let names = (0..<5).map { "/busy-\($0).jpg" }
        for name in names { try routeHeld(name, at: gate) }
        // No stall timeout in reach: a held transfer retried on a loaded machine would be a third origin request.
        let server = try await startServer(["--private-addresses", "--max-renders", "1", "--max-queue", "1", "--low-speed-time", "600"])
        let paths = names.map { path($0) }
        let statuses = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
            group.addTask { try await server.get(paths[0]).statusAndRetryAfter }
            _ = try await eventually { origin.heldResponses == 1 }
            for wanted in paths.dropFirst() { group.addTask { try await server.get(wanted).statusAndRetryAfter } }
            // Three are refused while the first render is held and the second waits for its slot.
            var answered: [(Int, String?)] = []
            while answered.count < 3, let next = try await group.next() { answered.append(next) }
            gate.open()
            while let next = try await group.next() { answered.append(next) }
            return answered
        }
        #expect(statuses.prefix(3).allSatisfy { $0 == (503, "1") }, "\(statuses)")
        #expect(statuses.dropFirst(3).allSatisfy { $0.0 == 200 }, "\(statuses)")
        #expect(origin.peakHeldResponses == 1)
        #expect(names.map { origin.requestCount($0) }.reduce(0, +) == 2)
        #expect(try await server.stop().status == 0)
    }
}

extension TestHTTPClient.Response {
    var statusAndRetryAfter: (Int, String?) { (status, headers["retry-after"]) }
}
