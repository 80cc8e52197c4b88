import Foundation
import TestSupport
import Testing
import ThumbnailKit

/// `thumbnailer thumb`, run as a real process on real files.
@Suite struct ThumbCommandTests {
    let temporary: TemporaryDirectory
    var directory: URL { temporary.url }

    init() throws {
        temporary = try TemporaryDirectory()
    }

    private func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    private func writePNG(_ name: String, width: Int = 300, height: Int = 200, alpha: UInt8 = 255) async throws -> String {
        let image = RGBAImage(width: width, height: height) { x, y in (UInt8(x % 256), UInt8(y % 256), 90, alpha) }
        try Data(try image.png()).write(to: URL(fileURLWithPath: path(name)))
        return path(name)
    }

    private func writeJPEG(_ name: String, width: Int = 640, height: Int = 480) async throws -> String {
        let image = RGBAImage(width: width, height: height) { x, y in (UInt8(x % 256), UInt8(y % 256), 90, 255) }
        let bytes = try ThumbnailEncoder().encode(rgba: image.bytes, width: width, height: height, as: .jpeg)
        try Data(bytes).write(to: URL(fileURLWithPath: path(name)))
        return path(name)
    }

    private func exists(_ path: String) -> Bool { FileManager.default.fileExists(atPath: path) }

    @Test func oneInputWritesTheNamedFileInTheFormatOfItsExtension() async throws {
        let input = try await writePNG("in.png")
        let run = try await ChildProcess.run(["thumb", input, "-s", "64", "-o", path("out.jpg")])

        #expect(run.status == 0, "\(run.standardError)")
        let thumbnail = try await ThumbnailDecoder(size: .original).decode(try Fixtures.bytes(atPath: path("out.jpg")))
        #expect(thumbnail.source.format == .jpeg)
        #expect(thumbnail.width == 64 && thumbnail.height == 43)
    }

    @Test func aWidthByHeightBoxIsHonoured() async throws {
        let input = try await writeJPEG("wide.jpg", width: 800, height: 200)
        let run = try await ChildProcess.run(["thumb", input, "--size", "100x100", "-o", path("out.png")])

        #expect(run.status == 0, "\(run.standardError)")
        let thumbnail = try await ThumbnailDecoder(size: .original).decode(try Fixtures.bytes(atPath: path("out.png")))
        #expect(thumbnail.source.format == .png)
        #expect(thumbnail.width == 100 && thumbnail.height == 25)
    }

    @Test func aFillBoxIsFilledExactly() async throws {
        let photo = Fixtures.testImage("photo-aitzgorri-baseline-3000x1998.jpg")
        let run = try await ChildProcess.run(["thumb", photo, "-s", "fill:101x57", "-o", path("out.png")])

        #expect(run.status == 0, "\(run.standardError)")
        let thumbnail = try await ThumbnailDecoder(size: .original).decode(try Fixtures.bytes(atPath: path("out.png")))
        #expect(thumbnail.source.format == .png)
        #expect(thumbnail.width == 101 && thumbnail.height == 57)
    }

    @Test func severalInputsGoIntoTheDirectoryAsJPEGOrPNGByAlpha() async throws {
        let opaque = try await writePNG("opaque.png")
        let translucent = try await writePNG("translucent.png", alpha: 100)
        let photo = try await writeJPEG("photo.jpg")
        let run = try await ChildProcess.run(["thumb", opaque, translucent, photo, "-o", path("thumbs")])

        #expect(run.status == 0, "\(run.standardError)")
        #expect(exists(path("thumbs/opaque.jpg")))
        #expect(exists(path("thumbs/translucent.png")))
        #expect(exists(path("thumbs/photo.jpg")))
        let lines = run.standardOutput.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines.first?.hasPrefix(opaque) == true, "output keeps input order")
    }

    @Test func withoutAnOutputTheThumbnailLandsBesideItsInput() async throws {
        let input = try await writeJPEG("beside.jpg")
        let run = try await ChildProcess.run(["thumb", input])

        #expect(run.status == 0, "\(run.standardError)")
        #expect(exists(path("beside_thumb.jpg")))
    }

    @Test func failuresExitOneWithALinePerFailureAndLeaveNoOutput() async throws {
        let good = try await writeJPEG("good.jpg")
        let jpeg = try Fixtures.bytes(atPath: good)
        try Data(jpeg.prefix(jpeg.count / 2)).write(to: URL(fileURLWithPath: path("half.jpg")))
        try Data("not an image\n".utf8).write(to: URL(fileURLWithPath: path("notes.png")))

        let run = try await ChildProcess.run(["thumb", path("half.jpg"), good, path("notes.png"), "-o", path("out")])

        #expect(run.status == 1)
        let errors = run.standardError.split(separator: "\n")
        #expect(errors.count == 2, "\(run.standardError)")
        #expect(errors.contains { $0.contains("half.jpg") && $0.contains("truncated") })
        #expect(errors.contains { $0.contains("notes.png") && $0.contains("unsupportedFormat") })
        #expect(exists(path("out/good.jpg")))
        let written = try FileManager.default.contentsOfDirectory(atPath: path("out"))
        #expect(written == ["good.jpg"], "no partial or temporary files: \(written)")
    }

    /// An image damaged where it was made is drawn as browsers draw it: a success (exit 0) with a
    /// warning line on stderr, and `damage` in the JSON.
    @Test func aJPEGDamagedAtItsSourceSucceedsWithAWarning() async throws {
        let damaged = path("damaged.jpg")
        try Data(try DamagedJPEG.make(fromTestImage: "jpeg-baseline-444-gradient-256x192.jpg").damaged)
            .write(to: URL(fileURLWithPath: damaged))
        let run = try await ChildProcess.run(["thumb", damaged, "-s", "64", "-o", path("out.png"), "--json"])

        #expect(run.status == 0, "\(run.standardError)")
        #expect(exists(path("out.png")))
        #expect(run.standardError.contains("damaged.jpg: warning: damaged at its source"), "\(run.standardError)")
        #expect(run.standardError.contains("Corrupt JPEG data"), "\(run.standardError)")
        let record = try #require(JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any])
        #expect((record["damage"] as? String)?.contains("Corrupt JPEG data") == true, "\(record)")
    }

    @Test func anUnwritableOutputIsAFailureNamingThePath() async throws {
        let input = try await writeJPEG("photo.jpg")
        let run = try await ChildProcess.run(["thumb", input, "-o", "/nonexistent-dir/out.jpg"])

        #expect(run.status == 1)
        #expect(run.standardError.contains("writeFailed") && run.standardError.contains("/nonexistent-dir/out.jpg"),
                "\(run.standardError)")
    }

    @Test(arguments: [
        ["thumb"],
        ["thumb", "x.jpg", "--quality", "0"],
        ["thumb", "x.jpg", "-o", "out.gif"],
        ["thumb", "x.jpg", "-o", "out.png", "--format", "jpeg"],
        ["thumb", "x.jpg", "--size", "0"],
        ["thumb", "x.jpg", "--size", "12x"],
        ["thumb", "x.jpg", "--size", "fill:"],
        ["thumb", "x.jpg", "--size", "fill:0x10"],
        ["thumb", "a/x.jpg", "b/x.jpg", "-o", "dir"],
        ["thumb", "x.webp", "-o", "out.bmp"],
        ["thumb", "x.gif", "--format", "gif"],
    ])
    func usageErrorsExitSixtyFour(arguments: [String]) async throws {
        let run = try await ChildProcess.run(arguments)

        #expect(run.status == 64, "\(arguments): \(run.standardError)")
    }

    @Test func jsonPrintsOneObjectPerInputWithSizesScaleAndCost() async throws {
        let photo = try await writeJPEG("photo.jpg", width: 2048, height: 1536)
        let run = try await ChildProcess.run(["thumb", photo, "/nonexistent/missing.png", "--json", "-o", path("out")])

        #expect(run.status == 1)
        let objects = try run.standardOutput.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
        #expect(objects.count == 2)
        let success = objects[0]
        #expect(success["input"] as? String == photo)
        #expect(success["output"] as? String == path("out/photo.jpg"))
        #expect(success["sourceWidth"] as? Int == 2048 && success["sourceHeight"] as? Int == 1536)
        #expect(success["width"] as? Int == 256 && success["height"] as? Int == 192)
        #expect(success["scale"] as? String == "1/8")
        #expect((success["peakDecodeBytes"] as? Int ?? 0) > 0)
        #expect(success["milliseconds"] is Double)
        let failure = objects[1]
        #expect(failure["error"] as? String == "unreadable")
        #expect((failure["reason"] as? String)?.contains("missing.png") == true)
    }

    @Test func aGIFBecomesAThumbnailOfItsFirstFrameWithAlphaAsPNG() async throws {
        let transparent = Fixtures.testImage("gif-transparent-index-48x32.gif")
        let big = Fixtures.testImage("gif-blocks-interlaced-1200x800.gif")
        let run = try await ChildProcess.run(["thumb", transparent, big, "--json", "-o", path("out")])

        #expect(run.status == 0, "\(run.standardError)")
        let records = try run.standardOutput.split(separator: "\n").map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
        #expect(records.count == 2)
        #expect(records[0]["output"] as? String == path("out/gif-transparent-index-48x32.png"))
        #expect(records[1]["output"] as? String == path("out/gif-blocks-interlaced-1200x800.png"))
        for record in records {
            #expect(record["sourceFormat"] as? String == "gif" && record["format"] as? String == "png")
        }
        #expect(records[1]["sourceWidth"] as? Int == 1200 && records[1]["sourceHeight"] as? Int == 800)
        #expect(records[1]["width"] as? Int == 256 && records[1]["height"] as? Int == 171)
        let written = try await ThumbnailDecoder(size: .original).decode(contentsOfFile: path("out/gif-transparent-index-48x32.png"))
        // Index 1 (green) is the transparent index; block (0, 0) is index 0, red.
        #expect(written.pixel(x: 0, y: 0) == (255, 0, 0, 255) && written.pixel(x: 8, y: 0).a == 0)
    }

    @Test func jsonEscapesAwkwardFileNames() async throws {
        let input = try await writeJPEG("we\"ird\\na\tme\u{1}é.jpg")
        let run = try await ChildProcess.run(["thumb", input, "--json", "-o", path("out.jpg")])

        #expect(run.status == 0, "\(run.standardError)")
        let record = try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as? [String: Any]
        #expect(record?["input"] as? String == input)
    }

    @Test func aBigJPEGIsThumbnailedWithoutAFullSizeFrame() async throws {
        let input = path("big.jpg")
        let bytes = try ThumbnailEncoder(jpegQuality: 90).encode(
            rgba: LargeImage.photoLike(width: 6000, height: 4000), width: 6000, height: 4000, as: .jpeg)
        try Data(bytes).write(to: URL(fileURLWithPath: input))

        let run = try await ChildProcess.run(["thumb", input, "--json", "-o", path("big_thumb.jpg")])

        #expect(run.status == 0, "\(run.standardError)")
        let record = try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as! [String: Any]
        // The decoded frame alone would be 96 MB.
        let peak = try #require(record["peakDecodeBytes"] as? Int)
        #expect(peak < 3 << 20, "peak decode bytes \(peak)")
        #expect(record["scale"] as? String == "1/8")
        #expect(record["jpegPath"] as? String == "libjpeg", "a baseline file")
    }

    @Test func theJSONSaysWhichPathDecodedAProgressiveJPEG() async throws {
        let photo = try #require(TestImagesManifest.entry(prefix: "photo-", containing: "progressive"))
        for (choice, taken) in [("dc-only", "dc-only"), ("skipping-scans", "skipping-scans"), ("libjpeg", "libjpeg")] {
            let run = try await ChildProcess.run(["thumb", photo.path, "--json", "--progressive-path", choice, "-o", path("p.jpg")])
            #expect(run.status == 0, "\(run.standardError)")
            let record = try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as! [String: Any]
            #expect(record["jpegPath"] as? String == taken, "\(choice)")
        }
    }

    @Test func webPInputsAreThumbnailedAsJPEGOrPNGByAlpha() async throws {
        let opaque = Fixtures.testImage("webp-lossy-gradient-256x192.webp")
        let translucent = Fixtures.testImage("webp-lossless-rgba-67x43.webp")
        let run = try await ChildProcess.run(["thumb", opaque, translucent, "--json", "-s", "64", "-o", path("thumbs")])

        #expect(run.status == 0, "\(run.standardError)")
        let records = run.standardOutput.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(records.count == 2)
        #expect(records.first?["format"] as? String == "jpeg" && records.last?["format"] as? String == "png")
        #expect(records.first?["sourceWidth"] as? Int == 256 && records.first?["width"] as? Int == 64)
        let jpeg = try await ThumbnailDecoder(size: .original).decode(try Fixtures.bytes(atPath: path("thumbs/webp-lossy-gradient-256x192.jpg")))
        #expect(jpeg.width == 64 && jpeg.height == 48)
        let png = try await ThumbnailDecoder(size: .original).decode(try Fixtures.bytes(atPath: path("thumbs/webp-lossless-rgba-67x43.png")))
        #expect(png.width == 64 && png.hasAlpha)
    }

    @Test func thumbnailsAreWrittenAsWebPWhenNamedOrAsked() async throws {
        let translucent = Fixtures.testImage("webp-lossless-rgba-67x43.webp")
        let named = try await ChildProcess.run(["thumb", translucent, "-s", "32", "-o", path("small.webp")])
        let asked = try await ChildProcess.run(["thumb", translucent, "-s", "32", "--format", "webp", "-o", path("asked") + "/"])

        #expect(named.status == 0 && asked.status == 0, "\(named.standardError) \(asked.standardError)")
        for file in [path("small.webp"), path("asked/webp-lossless-rgba-67x43.webp")] {
            let bytes = try Fixtures.bytes(atPath: file)
            let thumbnail = try await ThumbnailDecoder(size: .original).decode(bytes)
            #expect(ImageFormat(sniffing: bytes) == .webp, "\(file)")
            #expect(thumbnail.width == 32 && thumbnail.hasAlpha, "\(file)")
        }
    }

    @Test func aDamagedWebPFailsWithItsReason() async throws {
        let run = try await ChildProcess.run(["thumb", Fixtures.testImage("invalid/webp-error-truncated-half.webp"), "-o", path("x.jpg")])

        #expect(run.status == 1)
        #expect(run.standardError.contains("truncated: WebP data ends after 585 of the 1170 bytes its RIFF header announces"),
                "\(run.standardError)")
    }

    @Test func aBigLossyWebPIsThumbnailedWithoutAFullSizeFrame() async throws {
        // 6000×4000: the RGBA frame would be 96 MB, the YUV 4:2:0 frame libwebp decodes into 36 MB.
        let input = Fixtures.testImage("webp-lossy-gradient-6000x4000.webp")
        let frameBytes = 6000 * 4000 * 4, yuvFrameBytes = 6000 * 4000 * 3 / 2

        let run = try await ChildProcess.run(["thumb", input, "--json", "-o", path("big_thumb.jpg")],
                                       limits: ChildProcess.Limits(residentBytes: 2 * frameBytes))

        #expect(run.status == 0, "\(run.standardError)")
        let record = try JSONSerialization.jsonObject(with: Data(run.standardOutput.utf8)) as! [String: Any]
        #expect(record["width"] as? Int == 256 && record["height"] as? Int == 171)
        let peak = try #require(record["peakDecodeBytes"] as? Int)
        #expect(peak < 2 << 20, "peak decode bytes \(peak)")
        // libwebp allocates without our counting, so the process's own peak is what proves it:
        // the whole process (about 19 MB on its own) stays under the YUV frame alone.
        #if os(Linux)
        #expect(run.peakResidentBytes > 0 && run.peakResidentBytes < yuvFrameBytes,
                "peak RSS \(run.peakResidentBytes >> 20) MiB (the YUV frame is \(yuvFrameBytes >> 20) MiB)")
        #endif
    }

    @Test func theJSONAndTheLineSayWhichColourProfileWasApplied() async throws {
        let converted = Fixtures.testImage("icc-jpeg-swapped-red-green-128x64.jpg")
        let ignored = Fixtures.testImage("icc-jpeg-misnumbered-marker-128x64.jpg")
        let json = try await ChildProcess.run(["thumb", converted, ignored, "--json", "-o", directory.path])
        #expect(json.status == 0, "\(json.standardError)")
        let records = try json.standardOutput.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(records.count == 2)
        #expect(records.first?["color"] as? String == "converted")
        #expect(records.first?["colorProfile"] as? String == "Thumbnailer test: red and green swapped")
        #expect(records.last?["color"] as? String == "ignored")
        #expect(records.last?["colorNote"] as? String == "an ICC_PROFILE marker is numbered 0 of 3")
        #expect(records.last?["colorProfile"] == nil)

        let text = try await ChildProcess.run(["thumb", converted, "-o", path("out.png")])
        #expect(text.status == 0, "\(text.standardError)")
        #expect(text.standardOutput.contains("converted to sRGB from \"Thumbnailer test: red and green swapped\""))
    }
}
