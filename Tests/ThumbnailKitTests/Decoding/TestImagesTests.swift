import TestSupport
import Testing
import ThumbnailKit

/// Every file in TestImages/ decodes or fails exactly as its manifest entry says.
@Suite struct TestImagesTests {
    @Test func theManifestListsTheGeneratedImages() {
        #expect(TestImagesManifest.entries.count >= 90)
    }

    /// One file at a time, each on a thread of its own: two decodes of up to 24 megapixels must
    /// not hold the cooperative pool's threads, nor ~200 threads decode at once beside it.
    @Test(.serialized, arguments: TestImagesManifest.entries)
    func decodesOrFailsAsTheManifestSays(entry: TestImageEntry) async throws {
        let (fromFile, fromMemory) = try await runBlocking {
            let decoder = ThumbnailDecoder()
            return (Result { try decoder.decode(contentsOfFile: entry.path) },
                    Result { try decoder.decode(try Fixtures.bytes(atPath: entry.path)) })
        }

        switch (entry.expect, fromFile) {
        case ("decodes", .success(let thumbnail)):
            let header = try #require(entry.header)
            #expect(thumbnail.source.width == header.width && thumbnail.source.height == header.height)
            #expect(thumbnail.source.format.rawValue == entry.format)
            #expect(thumbnail.source.orientation == header.orientation)
            #expect(thumbnail.source.isProgressive == header.progressive)
            #expect(thumbnail.hasAlpha == header.hasAlpha)
            #expect(thumbnail.width <= 256 && thumbnail.height <= 256)
            let inMemory = try fromMemory.get()
            #expect(thumbnail.maximumDifference(from: inMemory) == 0, "file and memory decodes agree")
        case (let expected, .failure(let error as ThumbnailDecodingError)):
            #expect(error.kind == expected, "\(entry) failed with \(error)")
            #expect(!error.message.isEmpty)
            guard case .failure(let memoryError as ThumbnailDecodingError) = fromMemory else {
                Issue.record("\(entry): the in-memory decode did not fail like the file decode")
                return
            }
            #expect(memoryError.kind == error.kind)
        case (let expected, let result):
            Issue.record("\(entry): expected \(expected), got \(result)")
        }
    }

    @Test(arguments: TestImagesManifest.entries.filter { $0.header != nil && $0.expect != "tooLarge" && $0.expect != "unsupportedFeature" })
    func theHeaderReportsTheManifestFacts(entry: TestImageEntry) throws {
        let header = try #require(entry.header)
        let read = try ThumbnailDecoder().readHeader(try Fixtures.bytes(atPath: entry.path))

        #expect(read.width == header.width && read.height == header.height)
        #expect(read.components == header.components && read.bitDepth == header.bitDepth)
        #expect(read.hasAlpha == header.hasAlpha && read.isProgressive == header.progressive)
        #expect(read.orientation == header.orientation)
        #expect(read.wholeImageBytesPerPixel == header.wholeImageBytesPerPixel)
    }

    @Test(arguments: TestImagesManifest.entries.filter { $0.samePixelsAs != nil })
    func filesWithTheSamePixelsGiveExactlyTheSameThumbnails(entry: TestImageEntry) throws {
        let twin = Fixtures.testImage(try #require(entry.samePixelsAs))
        for size in [ThumbnailSize.original, .fit(32), .fit(7), .fit(width: 5, height: 40)] {
            let decoder = ThumbnailDecoder(size: size)
            let interlaced = try decoder.decode(contentsOfFile: entry.path)
            let plain = try decoder.decode(contentsOfFile: twin)
            if entry.name.contains("adam7") {
                #expect(interlaced.source.isProgressive && !plain.source.isProgressive)
            }
            #expect(interlaced.width == plain.width && interlaced.height == plain.height)
            #expect(interlaced.maximumDifference(from: plain) == 0, "\(entry) at \(size)")
        }
    }
}
