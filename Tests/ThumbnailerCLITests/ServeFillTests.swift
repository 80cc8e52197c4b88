import Foundation
import TestSupport
import Testing
import ThumbnailKit
import ThumbnailServer

/// `fill` through `thumbnailer serve` on EXIF-rotated JPEGs (TestImages: stored
/// turned or mirrored, upright 96×64 once their orientation is applied) and odd
/// boxes: the response is exactly the box, and its pixels are the library's own
/// fill of the upright picture (asked as PNG, so nothing is lost on the way).
@Suite final class ServeFillTests: Sendable {
    let origin: TestHTTPServer
    let temporary: TemporaryDirectory
    /// Orientations 5 to 8 store the picture on its side (64×96), 3 upside down.
    static let sources = ["jpeg-exif-orientation-3-ii.jpg", "jpeg-exif-orientation-5-ii.jpg", "jpeg-exif-orientation-6-mm.jpg",
                          "jpeg-exif-orientation-7-ii.jpg", "jpeg-exif-orientation-8-mm.jpg"]
    static let boxes = [(33, 21), (21, 33), (45, 45)]

    init() throws {
        origin = try TestHTTPServer()
        temporary = try TemporaryDirectory()
        for name in Self.sources { origin.route("/\(name)", .init(body: try Fixtures.bytes(ofTestImage: name))) }
    }

    deinit { origin.stop() }

    @Test func aFillIsTheBoxExactlyAndTheLibrarysFillOfTheUprightPicture() async throws {
        let server = try await ServeProcess.start(["--cache-dir", temporary.path("cache"), "--private-addresses"],
                                                  environment: ServeCommandTests.environment)
        for name in Self.sources {
            let bytes = try Fixtures.bytes(ofTestImage: name)
            var differencesFromStored: [Int] = []
            for (width, height) in Self.boxes {
                let path = ThumbnailURL(size: .fit(width: width, height: height), mode: .fill,
                                        source: origin.url("/\(name)"), format: .png).path(signing: ServeCommandTests.signing)
                let response = try await server.get(path)
                try #require(response.status == 200, "\(name) \(width)x\(height): \(response.status)")
                let served = try await ThumbnailDecoder(size: .original).decode(response.body)
                try #require((served.width, served.height) == (width, height), "\(name): \(served.width)x\(served.height)")

                let expected = try await ThumbnailDecoder(size: .fill(width: width, height: height)).decode(bytes)
                #expect(served.maximumDifference(from: expected) <= 2, "\(name) \(width)x\(height)")
                let asStored = try await ThumbnailDecoder(size: .fill(width: width, height: height), appliesOrientation: false)
                    .decode(bytes)
                differencesFromStored.append(served.maximumDifference(from: asStored))
            }
            // The tolerance tells orientations apart: the same fill of the picture as stored is far off
            // (in some box at least: a centre turned half a turn may look the same).
            #expect(differencesFromStored.max()! > 64, "\(name): \(differencesFromStored)")
        }
        #expect(try await server.stop().status == 0)
    }
}
