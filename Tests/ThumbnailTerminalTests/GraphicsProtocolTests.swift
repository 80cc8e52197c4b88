import Foundation
import TestSupport
import Testing
import ThumbnailKit
@testable import ThumbnailTerminal

/// The kitty graphics sequences, pinned by their bytes.
@Suite struct KittyGraphicsTests {
    /// Red, green, blue, and half-transparent white.
    static let twoByTwo: [UInt8] = [255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 255, 255, 255, 128]

    @Test func aTwoByTwoImageIsTransmittedPlacedRemovedAndDeletedByTheseBytes() {
        let esc = "\u{1B}"
        // The payload is base64 of the 16 bytes, as Python's base64 module writes it.
        #expect(KittyGraphics.transmit(rgba: Self.twoByTwo, width: 2, height: 2, id: 7).map { String(decoding: $0, as: UTF8.self) }
            == ["\(esc)_Ga=t,f=32,s=2,v=2,i=7,q=2;/wAA/wD/AP8AAP//////gA==\(esc)\\"])
        #expect(KittyGraphics.transmit(rgba: Self.twoByTwo, width: 2, height: 2, id: 7, opaque: true).map { String(decoding: $0, as: UTF8.self) }
            == ["\(esc)_Ga=t,f=24,s=2,v=2,i=7,q=2;/wAAAP8AAAD/////\(esc)\\"], "opaque: RGB, the alpha bytes left out")
        #expect(KittyGraphics.transmit(png: [1, 2, 3], id: 7).map { String(decoding: $0, as: UTF8.self) }
            == ["\(esc)_Ga=t,f=100,i=7,q=2;AQID\(esc)\\"], "a PNG: kitty reads its size from it")
        #expect(String(decoding: KittyGraphics.place(id: 7, placement: 3), as: UTF8.self)
            == "\(esc)_Ga=p,i=7,p=3,C=1,q=2\(esc)\\")
        #expect(String(decoding: KittyGraphics.remove(id: 7, placement: 3), as: UTF8.self)
            == "\(esc)_Ga=d,d=i,i=7,p=3,q=2\(esc)\\")
        #expect(String(decoding: KittyGraphics.delete(id: 7), as: UTF8.self) == "\(esc)_Ga=d,d=I,i=7,q=2\(esc)\\")
        #expect(String(decoding: KittyGraphics.query, as: UTF8.self) == "\(esc)_Gi=31,s=1,v=1,a=q,t=d,f=24;AAAA\(esc)\\")
    }

    @Test func aLargeImageGoesInChunksOfAtMost4096Base64BytesThatAddUpToIt() throws {
        let rgba = (0..<(64 * 64 * 4)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let commands = KittyGraphics.transmit(rgba: rgba, width: 64, height: 64, id: 9).map { chunk in
            String(decoding: chunk, as: UTF8.self)
        }
        #expect(commands.count == 6)  // 21,848 base64 bytes
        var payload = ""
        for (index, command) in commands.enumerated() {
            #expect(command.hasPrefix("\u{1B}_G") && command.hasSuffix("\u{1B}\\"))
            let parts = command.dropFirst(3).dropLast(2).split(separator: ";", maxSplits: 1)
            let keys = String(parts[0])
            let chunk = String(parts[1])
            #expect(chunk.utf8.count <= 4096)
            let last = index == commands.count - 1
            #expect(keys == (index == 0 ? "a=t,f=32,s=64,v=64,i=9,q=2,m=1" : "m=\(last ? 0 : 1),q=2"), "\(keys)")
            payload += chunk
        }
        #expect(Data(base64Encoded: payload).map(Array.init) == rgba)
    }
}

/// iTerm2's inline images: a PNG in base64 that decodes to the thumbnail's own pixels.
@Suite struct ITermInlineImageTests {
    @Test func aThumbnailIsSentAsAPNGOfItsOwnPixelsAtItsPixelSize() throws {
        let image = RGBAImage(width: 2, height: 2) { x, y in
            let pixels: [(UInt8, UInt8, UInt8, UInt8)] = [(255, 0, 0, 255), (0, 255, 0, 255), (0, 0, 255, 255), (255, 255, 255, 128)]
            return pixels[y * 2 + x]
        }
        let thumbnail = try ThumbnailDecoder(size: .original).decode(try image.png())
        let text = String(decoding: try #require(ITermInlineImage(thumbnail: thumbnail)).bytes, as: UTF8.self)
        let head = try #require(text.range(of: ":"))
        let fields = String(text[..<head.lowerBound])
        #expect(fields.hasPrefix("\u{1B}]1337;File=inline=1;size=") && fields.hasSuffix(";width=2px;height=2px;preserveAspectRatio=1"))
        #expect(text.hasSuffix("\u{07}"))
        let png = try #require(Data(base64Encoded: String(text[head.upperBound...].dropLast())))
        #expect(fields.contains("size=\(png.count);"))
        let decoded = try ThumbnailDecoder(size: .original).decode(Array(png))
        #expect(Array(decoded.pixels) == Array(thumbnail.pixels))
    }
}

/// The sixel encoder, checked by a decoder that is not ours: libsixel's `sixel2png`.
@Suite(.enabled(if: SixelDecoder.isAvailable, "needs sixel2png (Debian: libsixel-bin)"))
struct SixelImageTests {
    @Test(arguments: ["photo-aitzgorri-baseline-3000x1998.jpg", "photo-sunset-rgba-vignette-1024x683.png",
                      "photo-life-adam7-rgb-640x480.png"])
    func aThumbnailDecodedBackFromItsSixelsMatchesItAt30dB(name: String) throws {
        let background = TerminalColor(red: 0, green: 0, blue: 0)
        let thumbnail = try ThumbnailDecoder(size: .fit(width: 160, height: 96)).decode(contentsOfFile: Fixtures.testImage(name))
        let sixel = SixelImage(thumbnail: thumbnail, background: background)
        let decoded = try SixelDecoder.decode(sixel.bytes)
        #expect((decoded.width, decoded.height) == (thumbnail.width, thumbnail.height))
        // The reference: the thumbnail over the same background, as the encoder sees it.
        let reference = try ThumbnailDecoder(size: .original).decode(Self.png(of: thumbnail, over: background))
        let psnr = decoded.peakSignalToNoiseRatio(against: reference)
        #expect(psnr >= 30, "\(name): \(psnr) dB")
    }

    @Test func aPaletteHoldsAtMost256ColoursAndEachPixelTakesOne() {
        let pixels = (0..<4096).map { (index: Int) -> TerminalColor in
            let red = UInt8(index & 0xFF), green = UInt8(index >> 4), blue = UInt8((index * 7) & 0xFF)
            return TerminalColor(red: red, green: green, blue: blue)
        }
        let palette = MedianCutPalette(pixels: pixels)
        #expect(palette.colors.count == 256 && palette.indices.count == pixels.count)
        #expect(palette.indices.allSatisfy { Int($0) < palette.colors.count })
        let flat = MedianCutPalette(pixels: Array(repeating: TerminalColor(red: 9, green: 8, blue: 7), count: 100))
        #expect(flat.colors == [TerminalColor(red: 9, green: 8, blue: 7)])
    }

    /// `thumbnail` blended over `background`, as a PNG.
    static func png(of thumbnail: Thumbnail, over background: TerminalColor) throws -> [UInt8] {
        try RGBAImage(width: thumbnail.width, height: thumbnail.height) { x, y in
            let color = HalfBlockImage.blend(thumbnail.pixel(x: x, y: y), over: background)
            return (color.red, color.green, color.blue, 255)
        }.png()
    }
}

/// libsixel's `sixel2png`, run on a file.
enum SixelDecoder {
    static let isAvailable = FileManager.default.isExecutableFile(atPath: "/usr/bin/sixel2png")

    static func decode(_ sixel: [UInt8]) throws -> Thumbnail {
        let directory = try TemporaryDirectory()
        let input = directory.path("image.six"), output = directory.path("image.png")
        try Data(sixel).write(to: URL(fileURLWithPath: input))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sixel2png")
        process.arguments = ["-i", input, "-o", output]
        try process.run()
        process.waitUntilExit()
        return try ThumbnailDecoder(size: .original).decode(contentsOfFile: output)
    }
}
