import Foundation
import Testing
import TestSupport

/// `thumbnailer serve --feed`'s web list in real Chromium: Debian's `chromium` and
/// `chromium-driver`, driven through python3-selenium by `Tests/WebListDriver/drive_web_list.py`,
/// which measures and reports; this test judges. The feed has 10,000 items on a loopback origin,
/// and each image carries its number in its colour (``NumberedImage/coarsePNG(_:width:height:)``),
/// so a row's pixels say which item it shows.
@Suite(.serialized, .enabled(if: SeleniumChromium.unavailableReason == nil, "\(SeleniumChromium.unavailableReason ?? "")"))
struct WebListBrowserTests {
    static let itemCount = 10_000
    /// The item whose source fails (and the one after it) until the test lets it recover.
    static let failing = 5_000
    /// Items whose origin responses wait behind a gate, so that their rows are scrolled away mid-load.
    static let held = 7_000..<7_040
    static let driver = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../WebListDriver/drive_web_list.py").standardized.path

    let temporary: TemporaryDirectory
    let origin: TestHTTPServer
    let gate = ResponseGate()

    init() throws {
        temporary = try TemporaryDirectory()
        origin = try TestHTTPServer()
        var urls: [String] = []
        for number in 0..<Self.itemCount {
            let path = "/images/\(number).png"
            urls.append(origin.url(path))
            origin.route(path, try Self.image(number, gate: Self.held.contains(number) ? gate : nil))
        }
        for number in [Self.failing, Self.failing + 1] { origin.route("/images/\(number).png", .init(status: 500)) }
        origin.route("/feed.json", .init(body: JSONFeed.listing(urls), headers: ["Content-Type": "application/feed+json"]))
    }

    /// Item `number`'s image, landscape or portrait by turns, a tenth of a second in coming.
    static func image(_ number: Int, gate: ResponseGate? = nil) throws -> TestHTTPServer.Behavior {
        let (width, height) = number.isMultiple(of: 2) ? (64, 48) : (48, 64)
        var behavior = TestHTTPServer.Behavior(body: try NumberedImage.coarsePNG(number, width: width, height: height),
                                               headers: ["Content-Type": "image/png"])
        behavior.headerDelay = .milliseconds(100)
        behavior.gate = gate
        return behavior
    }

    @Test(.timeLimit(.minutes(10)))
    func tenThousandRowsScrollWithoutAWrongImageAndCancelWhatTheyLeave() async throws {
        let server = try await ServeProcess.start(
            ["--insecure-unsigned", "--private-addresses", "--retries", "1", "--max-renders", "8", "--feed", origin.url("/feed.json"),
             "--cache-dir", temporary.path("cache")], environment: [:])
        defer { _ = server.process.kill() }
        let driver = try ChildProcess.start(
            [Self.driver, "http://127.0.0.1:\(server.port)/", temporary.url.path, "--failing", String(Self.failing),
             "--held", String(Self.held.lowerBound), String(Self.held.count)],
            executable: SeleniumChromium.python, newProcessGroup: true)
        // The driver's Chromium and chromedriver go with it, whatever stopped the test.
        defer { _ = driver.killProcessGroup() }
        var phases = DriverPhases(driver: driver, workdir: temporary.url.path)

        let first = try await phases.next("first-screen")
        let geometry = try #require(first["geometry"] as? [String: Any])
        let firstRows = first["rows"] as? [[String: Any]] ?? []
        #expect(firstRows.count(where: { $0["shown"] as? Bool == true }) >= 5)
        for row in firstRows where row["shown"] as? Bool == true {
            #expect(row["state"] as? String == "loaded" && shownNumber(row) == row["index"] as? Int, "\(row)")
        }

        let scrolled = try await phases.next("scrolled")
        let originItemsWhileScrolling = requestedItems().subtracting(Self.held).subtracting([Self.failing, Self.failing + 1])
        try checkScroll(scrolled, geometry: geometry, firstHeap: first["heap"] as? Double ?? 0,
                        originItems: originItemsWhileScrolling)

        // Rows scrolled away while the origin held their images: each whose request reached the
        // origin ends as 499 in the server's log, and the origin sees the transfers closed.
        #expect(try await eventually(within: .seconds(60)) { origin.heldResponses >= 2 }, "the held rows never reached the origin")
        try await phases.say("held")
        let movedAway = try await phases.next("moved-away")
        let leftRows = Set(movedAway["left"] as? [Int] ?? [])
        let leftAtOrigin = leftRows.intersection(Self.held).intersection(requestedItems())
        #expect(!leftAtOrigin.isEmpty, "no row left was held at the origin: \(leftRows)")
        #expect(try await eventually(within: .seconds(60)) { leftAtOrigin.isSubset(of: cancelledHeldItems(in: server)) },
                "rows left \(leftAtOrigin.sorted()), 499s for \(cancelledHeldItems(in: server).sorted())")
        gate.open()
        #expect(try await eventually(within: .seconds(60)) {
            Self.held.reduce(0) { $0 + origin.earlyCloseCount("/images/\($1).png") } >= 1
        })

        // A failing source shows `failed`; once it recovers, `r` brings it, and the retry button the next.
        try await phases.say("cancelled")
        let failed = try await phases.next("failed")
        for row in failed["rows"] as? [[String: Any]] ?? [] {
            #expect(row["state"] as? String == "failed" && (row["meta"] as? String ?? "").contains("source could not be fetched"),
                    "\(row)")
        }
        origin.route("/images/\(Self.failing).png", try Self.image(Self.failing))
        try await phases.say("first-recovered")
        let byKey = try await phases.next("retried-by-key")
        let keyed = byKey["rows"] as? [[String: Any]] ?? []
        #expect(keyed.first.map(shownNumber) == Self.failing && keyed.last?["state"] as? String == "failed", "\(keyed)")
        #expect(origin.requestCount("/images/\(Self.failing + 1).png") >= 2, "r retried every failed row on screen")
        origin.route("/images/\(Self.failing + 1).png", try Self.image(Self.failing + 1))
        try await phases.say("second-recovered")
        let byButton = try await phases.next("retried-by-button")
        #expect((byButton["rows"] as? [[String: Any]])?.last.map(shownNumber) == Self.failing + 1, "\(byButton)")

        // The grid on a 2x screen: every cell a square of its own item, asked for at twice the box.
        let grid = try await phases.next("grid")
        let cells = (grid["rows"] as? [[String: Any]] ?? []).filter { $0["shown"] as? Bool == true }
        #expect(grid["density"] as? Int == 2 && cells.count >= 20, "\(grid)")
        for cell in cells {
            #expect(cell["state"] as? String == "loaded" && shownNumber(cell) == cell["index"] as? Int
                    && cell["imageWidth"] as? Int == cell["imageHeight"] as? Int, "\(cell)")
        }
        let paths = accessLog(of: server).compactMap { $0["path"] as? String }
        #expect(paths.contains { $0.contains("/320/fill/") } && !paths.contains { $0.contains("/160/fill/") })
        #expect(paths.contains { $0.contains("/96/fit/") } && !paths.contains { $0.contains("/192/fit/") })

        let outcome = try await runBlocking { driver.wait(within: .init(duration: .seconds(60))) }
        #expect(outcome.status == 0, "\(outcome.summary)")
    }

    /// The scroll down and back: every image each row showed at every frame was its own item's,
    /// the DOM held no more rows than the screen and its overscan, nothing shifted, the JS heap
    /// stayed within twice its first screen's, and the origin saw only rows that stayed long enough.
    private func checkScroll(_ scrolled: [String: Any], geometry: [String: Any], firstHeap: Double,
                             originItems: Set<Int>) throws {
        let viewportHeight = try #require(geometry["viewportHeight"] as? Int)
        let rowHeight = try #require(geometry["rowHeight"] as? Int)
        let overscan = try #require(geometry["overscan"] as? Int)
        let dwell = try #require(geometry["dwell"] as? Int)
        // The most rows that can show at once, part-rows at both edges included.
        let mostShown = (viewportHeight + rowHeight - 1) / rowHeight + 1
        var longEnough = Set<Int>()
        var checked = Set<Int>()
        var frames = 0
        var mostRows = 0
        for name in ["down", "up"] {
            let pass = try #require(scrolled[name] as? [String: Any])
            let samples = pass["samples"] as? [[Int]] ?? []
            let wrong = samples.filter { NumberedImage.coarseNumber(red: $0[1], green: $0[2], blue: $0[3]) != $0[0] }
            #expect(wrong.isEmpty, "\(name): rows showing another item's image (index r g b frames): \(wrong.prefix(20))")
            let loaded = Set(samples.map { $0[0] })
            checked.formUnion(loaded)
            #expect(loaded.count >= 150, "\(name): only \(loaded.count) items were seen loaded")
            frames += pass["frames"] as? Int ?? 0
            mostRows = max(mostRows, pass["maxRows"] as? Int ?? 0)
            #expect((pass["frames"] as? Int ?? 0) >= 100, "\(name): \(pass["frames"] ?? 0) frames")
            #expect((pass["maxRows"] as? Int ?? .max) <= mostShown + 2 * overscan,
                    "\(name): \(pass["maxRows"] ?? 0) rows in the DOM, for \(mostShown) on screen and \(overscan) beyond each edge")
            let bound = pass["longestBound"] as? [[Int]] ?? []
            let indices = bound.map { $0[0] }
            #expect(indices.max() == Self.itemCount - 1 && indices.min() == 0, "\(name) did not cover the list")
            // Two frames of slack: a stretch is measured between the frames that saw it.
            longEnough.formUnion(bound.filter { $0[1] >= dwell - 34 }.map { $0[0] })
        }
        #expect(scrolled["layoutShift"] as? Double == 0,
                "layout shift \(scrolled["layoutShift"] ?? "none"): \(scrolled["layoutShiftSources"] ?? "")")
        // After garbage collection: at the bottom, and back at the top.
        let heap = scrolled["heap"] as? Double ?? .infinity
        let heapAtBottom = scrolled["heapAtBottom"] as? Double ?? .infinity
        #expect(firstHeap > 0 && max(heap, heapAtBottom) <= 2 * firstHeap,
                "JS heap \(heapAtBottom) at the bottom, \(heap) back at the top, \(firstHeap) after the first screen")
        let prefetches = (scrolled["stats"] as? [String: Any])?["prefetches"] as? Int ?? 0
        #expect(originItems.count <= longEnough.count + prefetches + mostShown + 2 * overscan,
                "the origin saw \(originItems.count) images; \(longEnough.count) rows stayed \(dwell) ms, \(prefetches) prefetches")
        #expect(originItems.count < Self.itemCount / 4, "flicks fetched \(originItems.count) of \(Self.itemCount) images")
        print("web list: \(checked.count) items checked by their pixels in \(frames) frames; at most \(mostRows) rows in the DOM "
              + "for \(mostShown) on screen; origin saw \(originItems.count) images; "
              + "\(longEnough.count) rows stayed long enough; \(prefetches) prefetches; heap \(firstHeap) → \(heapAtBottom) → \(heap) bytes")
    }

    /// The numbers of the items whose images the origin was asked for.
    private func requestedItems() -> Set<Int> {
        Set(origin.receivedRequests.compactMap { request -> Int? in
            guard request.path.hasPrefix("/images/"), request.path.hasSuffix(".png") else { return nil }
            return Int(request.path.dropFirst("/images/".count).dropLast(".png".count))
        })
    }

    /// The server's access log so far, one object per request.
    private func accessLog(of server: ServeProcess) -> [[String: Any]] {
        server.process.standardOutputSoFar.split(separator: "\n").dropFirst().compactMap { line in
            try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        }
    }

    /// The held items whose thumbnail requests the server's access log shows ending as 499.
    private func cancelledHeldItems(in server: ServeProcess) -> Set<Int> {
        Set(accessLog(of: server).compactMap { entry -> Int? in
            guard "\(entry["status"] ?? "")" == "499", let path = entry["path"] as? String,
                  let encoded = path.split(separator: "/").last,
                  let source = Base64URL.decodedText(encoded),
                  let number = Int(source.split(separator: "/").last?.dropLast(".png".count) ?? ""),
                  Self.held.contains(number)
            else { return nil }
            return number
        })
    }
}

/// Debian's Chromium, its driver, and the Python that has Selenium.
enum SeleniumChromium {
    /// Debian's own Python, which python3-selenium installs into (a `python3` earlier on `PATH` may lack it).
    static let python = "/usr/bin/python3"

    /// Why the browser cannot be driven here, or `nil` when it can.
    static let unavailableReason: String? = {
        for (path, package) in [("/usr/bin/chromium", "chromium"), ("/usr/bin/chromedriver", "chromium-driver"),
                                (python, "python3")]
        where !FileManager.default.isExecutableFile(atPath: path) {
            return "the web list's browser tests need \(package) (\(path)); scripts/test.sh installs it"
        }
        let selenium = try? ChildProcess.run(["-c", "import selenium"], executable: python, limits: .init(duration: .seconds(60)))
        return selenium?.status == 0 ? nil : "the web list's browser tests need python3-selenium; scripts/test.sh installs it"
    }()
}

/// The number a reported row's centre pixel shows, if it shows an image.
private func shownNumber(_ row: [String: Any]) -> Int? {
    guard let pixel = row["pixel"] as? [Int], pixel.count == 3 else { return nil }
    return NumberedImage.coarseNumber(red: pixel[0], green: pixel[1], blue: pixel[2])
}

/// The driver's report lines, read as they come, and the files that tell it to go on.
private struct DriverPhases {
    let driver: ChildProcess.Running
    let workdir: String
    private var consumed = 0

    init(driver: ChildProcess.Running, workdir: String) {
        self.driver = driver
        self.workdir = workdir
    }

    /// The next report, which must be `phase` (an error report or the driver's exit fails the test).
    mutating func next(_ phase: String, within timeout: Duration = .seconds(300)) async throws -> [String: Any] {
        let driver = driver
        let consumed = consumed
        var line: Substring?
        _ = try await eventually(within: timeout) {
            let output = driver.standardOutputSoFar
            let lines = output.split(separator: "\n", omittingEmptySubsequences: true)
            // Only whole lines: the last one may still be being written.
            let whole = output.hasSuffix("\n") ? lines.count : lines.count - 1
            if whole > consumed { line = lines[consumed] }
            return line != nil
        }
        guard let line else {
            throw DriverFailure("no \(phase) report: \(driver.standardOutputSoFar.suffix(2000)) \(driver.standardErrorSoFar.suffix(4000))")
        }
        self.consumed += 1
        let report = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] ?? [:]
        guard report["phase"] as? String == phase else {
            throw DriverFailure("expected \(phase), got \(line.prefix(2000)) \(driver.standardErrorSoFar.suffix(4000))")
        }
        return report
    }

    /// Lets the driver go on past its wait for `name`, once it waits for it.
    mutating func say(_ name: String) async throws {
        let waiting = try await next("waiting")
        guard waiting["for"] as? String == name else { throw DriverFailure("the driver waits for \(waiting), not \(name)") }
        guard FileManager.default.createFile(atPath: "\(workdir)/go-\(name)", contents: Data()) else {
            throw DriverFailure("cannot write \(workdir)/go-\(name)")
        }
    }
}

private struct DriverFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
