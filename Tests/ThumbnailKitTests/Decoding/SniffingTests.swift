import TestSupport
import Testing
import ThumbnailKit

/// The format comes from the bytes, never the file name.
@Suite struct SniffingTests {
    @Test func anImageNamedAsAnotherFormatDecodesAsWhatItIs() throws {
        let png = try ThumbnailDecoder().decode(contentsOfFile: Fixtures.testImage("sniff-png-data-named.jpg"))
        let jpeg = try ThumbnailDecoder().decode(contentsOfFile: Fixtures.testImage("sniff-jpeg-data-named.png"))
        let webp = try ThumbnailDecoder().decode(contentsOfFile: Fixtures.testImage("sniff-webp-data-named.png"))
        let gif = try ThumbnailDecoder().decode(contentsOfFile: Fixtures.testImage("sniff-gif-data-named.jpg"))
        #expect(png.source.format == .png)
        #expect(jpeg.source.format == .jpeg)
        #expect(webp.source.format == .webp)
        #expect(gif.source.format == .gif)
    }

    @Test func magicBytesDecideTheFormat() {
        #expect(ImageFormat(sniffing: [0xFF, 0xD8, 0xFF, 0xE0]) == .jpeg)
        #expect(ImageFormat(sniffing: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) == .png)
        #expect(ImageFormat(sniffing: Array("RIFF\u{24}\0\0\0WEBPVP8 ".utf8)) == .webp)
        #expect(ImageFormat(sniffing: Array("RIFF\u{24}\0\0\0WEB".utf8)) == nil, "11 bytes")
        #expect(ImageFormat(sniffing: Array("RIFF\u{24}\0\0\0WAVEfmt ".utf8)) == nil, "a RIFF that is not WebP")
        #expect(ImageFormat(sniffing: Array("GIF89a".utf8)) == .gif)
        #expect(ImageFormat(sniffing: Array("GIF87a".utf8)) == .gif)
        #expect(ImageFormat(sniffing: Array("GIF88a".utf8)) == nil)
        #expect(ImageFormat(sniffing: Array("GIF89".utf8)) == nil)
        #expect(ImageFormat(sniffing: Array("BM".utf8) + [0x36, 0x03, 0, 0]) == nil)
        #expect(ImageFormat(sniffing: [0xFF, 0xD8]) == nil)
        #expect(ImageFormat(sniffing: []) == nil)
    }

    @Test func emptyInputIsAnUnsupportedFormat() {
        #expect { try ThumbnailDecoder().decode([UInt8]()) } throws: { error in
            (error as? ThumbnailDecodingError)?.kind == "unsupportedFormat"
        }
    }

    @Test func aMissingFileIsUnreadableAndNamesThePath() {
        #expect { try ThumbnailDecoder().decode(contentsOfFile: "/nonexistent/photo.jpg") } throws: { error in
            guard case .unreadable(let message) = error as? ThumbnailDecodingError else { return false }
            return message.contains("/nonexistent/photo.jpg")
        }
    }
}
