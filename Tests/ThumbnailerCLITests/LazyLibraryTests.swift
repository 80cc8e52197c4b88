import Foundation
import TestSupport
import Testing

/// libcurl, libxml2 and the newer formats' codec libraries are opened when a command first needs
/// them, not when the process starts: `thumb` of a JPEG and `cache` map none of them (nor the TLS,
/// Kerberos, LDAP, ICU, AV1, HEVC and other libraries they bring), `warm` maps libcurl and libxml2
/// when it fetches and parses, `thumb` of an AVIF, HEIC or JPEG XL file maps that format's library
/// alone, and a library that cannot be loaded fails the command with a message, not a crash.
///
/// What the process maps is read from the dynamic loader's own report: with `LD_DEBUG=libs` it writes
/// to standard error a line for every library it looks for, opens and initialises.
@Suite final class LazyLibraryTests: Sendable {
    let server: TestHTTPServer
    let temporary: TemporaryDirectory

    static let image = "jpeg-baseline-420-gradient-256x192.jpg"
    static let networkLibraries = ["libcurl", "libxml2"]
    static let codecLibraries = ["libavif", "libheif", "libjxl"]
    static let libraries = networkLibraries + codecLibraries

    init() throws {
        server = try TestHTTPServer()
        temporary = try TemporaryDirectory()
    }

    deinit { server.stop() }

    /// The environment in which the dynamic loader reports what it maps.
    static let reportingLibraries = ["LD_DEBUG": "libs"]

    /// The lines of the loader's report that name `library`.
    static func lines(naming library: String, in report: String) -> [Substring] {
        report.split(separator: "\n").filter { $0.contains(library) }
    }

    /// Whether the loader reported initialising `library` (it does so for each library it maps).
    static func initialised(_ library: String, in report: String) -> Bool {
        lines(naming: library, in: report).contains { $0.contains("calling init:") }
    }

    /// An RSS feed naming `image`.
    static func rssFeed(naming image: String) -> [UInt8] {
        Array("""
            <?xml version="1.0"?>
            <rss version="2.0"><channel><title>Test</title>
            <item><title>One</title><enclosure url="\(image)" type="image/jpeg" length="1"/></item>
            </channel></rss>
            """.utf8)
    }

    @Test func thumbOfAJPEGMapsNoneOfThem() async throws {
        let run = try await ChildProcess.run(["thumb", Fixtures.testImage(Self.image), "-o", temporary.path("out.jpg")],
                                       environment: Self.reportingLibraries)

        #expect(run.status == 0, "\(run.standardError.suffix(2000))")
        #expect(FileManager.default.fileExists(atPath: temporary.path("out.jpg")))
        #expect(Self.initialised("libjpeg", in: run.standardError), "the loader's report is there: it names libjpeg")
        for library in Self.libraries {
            #expect(Self.lines(naming: library, in: run.standardError).isEmpty, "thumb mapped \(library)")
        }
    }

    @Test func cacheMapsNoneOfThem() async throws {
        let run = try await ChildProcess.run(["cache", "stats", "--cache-dir", temporary.path("cache")],
                                       environment: Self.reportingLibraries)

        #expect(run.status == 0, "\(run.standardError.suffix(2000))")
        #expect(Self.initialised("libnettle", in: run.standardError), "the loader's report is there: it names libnettle")
        for library in Self.libraries {
            #expect(Self.lines(naming: library, in: run.standardError).isEmpty, "cache mapped \(library)")
        }
    }

    @Test func warmMapsBothWhenItFetchesAndParsesAnRSSFeed() async throws {
        server.route("/images/\(Self.image)", .init(body: try Fixtures.bytes(ofTestImage: Self.image)))
        server.route("/feed.rss", .init(body: Self.rssFeed(naming: "images/\(Self.image)")))

        let arguments = ["warm", server.url("/feed.rss"), "--cache-dir", temporary.path("cache"), "--json"]
        let run = try await runBlocking { try ChildProcess.run(arguments, environment: Self.reportingLibraries) }

        #expect(run.status == 0, "\(run.standardError.suffix(2000))")
        #expect(run.jsonObject["fetched"] as? Int == 1)
        for library in Self.networkLibraries {
            #expect(Self.initialised(library, in: run.standardError), "warm did not map \(library)")
        }
    }

    @Test(arguments: [("avif-photo-420-1024x683.avif", "libavif"), ("heic-photo-1024x683.heic", "libheif"),
                      ("jxl-photo-lossy-1024x683.jxl", "libjxl")])
    func thumbOfANewerFormatMapsItsLibraryAlone(image: String, library: String) async throws {
        let arguments = ["thumb", Fixtures.testImage(image), "-o", temporary.path("\(library).png")]
        let run = try await runBlocking { try ChildProcess.run(arguments, environment: Self.reportingLibraries) }

        #expect(run.status == 0, "\(run.standardError.suffix(2000))")
        #expect(Self.initialised(library, in: run.standardError), "thumb did not map \(library)")
        for other in Self.libraries where other != library {
            #expect(Self.lines(naming: other, in: run.standardError).isEmpty, "thumb of \(image) mapped \(other)")
        }
    }

    /// `thumb` of a JPEG XL file where an empty file covers libjxl (as below): the format is refused,
    /// naming the library and why, and the process ends normally.
    @Test(.enabled(if: TinyFileSystem.isAvailable, "needs unshare -r -m to cover a library"))
    func aCodecLibraryThatCannotBeLoadedRefusesItsFormatWithTheReason() async throws {
        let script = """
            : > "$MNT/empty"
            covered=$(readlink -f "$(/sbin/ldconfig -p | awk '$1 == "libjxl.so.0.7" { print $NF; exit }')")
            mount --bind "$MNT/empty" "$covered" || exit 98
            exec "$THUMBNAILER" thumb "$IMAGE" -o "$OUTPUT"
            """
        let run = try await runBlocking {
            try TinyFileSystem.run(script, kibibytes: 64, environment: [
                "THUMBNAILER": ChildProcess.thumbnailer, "IMAGE": Fixtures.testImage("jxl-photo-lossy-1024x683.jxl"),
                "OUTPUT": self.temporary.path("out.png"),
            ])
        }

        #expect(run.status == 1, "\(run.standardError)")
        #expect(run.standardError.contains("JPEG XL images cannot be decoded here: libjxl (libjxl.so.0.7) could not be loaded: "),
                "\(run.standardError)")
        #expect(!FileManager.default.fileExists(atPath: temporary.path("out.png")))
    }

    /// `warm` on a local RSS feed of a local image, in a mount namespace of its own where an empty file
    /// covers `library`, so that dlopen finds it but cannot load it.
    @Test(.enabled(if: TinyFileSystem.isAvailable, "needs unshare -r -m to cover a library"),
          arguments: [("libxml2.so.2", 2, "cannot read the feed"), ("libcurl.so.4", 1, "cannot start HTTP")])
    func aLibraryThatCannotBeLoadedFailsTheCommandWithTheReason(library: String, status: Int32, failure: String) async throws {
        let feed = temporary.path("feed.rss")
        try Data(Self.rssFeed(naming: Fixtures.testImage(Self.image))).write(to: URL(fileURLWithPath: feed))
        let script = """
            : > "$MNT/empty"
            covered=$(readlink -f "$(/sbin/ldconfig -p | awk -v name="$LIBRARY" '$1 == name { print $NF; exit }')")
            mount --bind "$MNT/empty" "$covered" || exit 98
            exec "$THUMBNAILER" warm "$FEED" --cache-dir "$CACHE"
            """
        let run = try await runBlocking {
            try TinyFileSystem.run(script, kibibytes: 64, environment: [
                "LIBRARY": library, "THUMBNAILER": ChildProcess.thumbnailer, "FEED": feed, "CACHE": self.temporary.path("cache"),
            ])
        }

        let name = String(library.prefix { $0 != "." })
        #expect(run.status == status, "\(run.standardError)")
        #expect(run.standardError.contains(failure), "\(run.standardError)")
        #expect(run.standardError.contains("\(name) (\(library)) could not be loaded: "), "\(run.standardError)")
    }
}
