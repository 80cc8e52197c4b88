import TestSupport
import Testing
import ThumbnailKit

/// PNG colour types, bit depths, transparency and 16-bit rounding, checked
/// pixel by pixel against the generator's formulas (TestImages/README.md).
@Suite struct PNGDecodingTests {
    /// The expected RGBA of pixel (x, y) for `png-<kind>-<depth>-67x43.png`.
    static func expectedPixel(kind: String, depth: Int, x: Int, y: Int) -> (UInt8, UInt8, UInt8, UInt8)? {
        let sample = (x + 3 * y) % (1 << min(depth, 8))
        let alpha = UInt8(255 - (5 * x + 3 * y) % 192)
        let rgb = (UInt8((4 * x + y) % 256), UInt8((x + 4 * y) % 256), UInt8(((255 - 2 * x - 2 * y) % 256 + 256) % 256))
        let keyBlock = (x / 8 + y / 8) % 3 == 0
        switch kind {
        case "gray":
            let value = UInt8(sample * 255 / ((1 << min(depth, 8)) - 1))
            return (value, value, value, 255)
        case "gray-alpha":
            let value = UInt8(sample)
            return (value, value, value, alpha)
        case "rgb":
            return (rgb.0, rgb.1, rgb.2, 255)
        case "rgba":
            return (rgb.0, rgb.1, rgb.2, alpha)
        case "palette":
            return (UInt8((73 * sample + 16) % 256), UInt8((151 * sample + 64) % 256), UInt8((199 * sample + 32) % 256), 255)
        case "palette-trns":
            let index = (x + 3 * y) % 256
            return (UInt8((73 * index + 16) % 256), UInt8((151 * index + 64) % 256), UInt8((199 * index + 32) % 256),
                    index < 128 ? UInt8(2 * index) : 255)
        case "gray-trns":
            return keyBlock ? nil : (UInt8(sample), UInt8(sample), UInt8(sample), 255)
        case "rgb-trns":
            return keyBlock ? nil : (rgb.0, rgb.1, rgb.2, 255)
        default:
            return nil
        }
    }

    static let matrix: [(file: String, kind: String, depth: Int)] = [
        ("png-gray-1bit-67x43.png", "gray", 1), ("png-gray-2bit-67x43.png", "gray", 2),
        ("png-gray-4bit-67x43.png", "gray", 4), ("png-gray-8bit-67x43.png", "gray", 8),
        ("png-gray-16bit-67x43.png", "gray", 16), ("png-gray-alpha-8bit-67x43.png", "gray-alpha", 8),
        ("png-gray-alpha-16bit-67x43.png", "gray-alpha", 16), ("png-rgb-8bit-67x43.png", "rgb", 8),
        ("png-rgb-16bit-67x43.png", "rgb", 16), ("png-rgba-8bit-67x43.png", "rgba", 8),
        ("png-rgba-16bit-67x43.png", "rgba", 16), ("png-palette-1bit-67x43.png", "palette", 1),
        ("png-palette-2bit-67x43.png", "palette", 2), ("png-palette-4bit-67x43.png", "palette", 4),
        ("png-palette-8bit-67x43.png", "palette", 8), ("png-palette-8bit-trns-67x43.png", "palette-trns", 8),
        ("png-gray-8bit-trns-67x43.png", "gray-trns", 8), ("png-rgb-8bit-trns-67x43.png", "rgb-trns", 8),
    ]

    @Test(arguments: matrix)
    func everyColourTypeAndDepthDecodesToTheExactPixels(file: String, kind: String, depth: Int) throws {
        for name in [file, file.replacingOccurrences(of: ".png", with: "-adam7.png")] {
            let thumbnail = try ThumbnailDecoder(size: .original).decode(contentsOfFile: Fixtures.testImage(name))
            #expect(thumbnail.width == 67 && thumbnail.height == 43)
            var mismatches = 0
            for y in 0..<43 {
                for x in 0..<67 {
                    let actual = thumbnail.pixel(x: x, y: y)
                    if let expected = Self.expectedPixel(kind: kind, depth: depth, x: x, y: y) {
                        if actual != expected { mismatches += 1 }
                    } else if actual.a != 0 {
                        mismatches += 1  // a tRNS key colour must come out fully transparent
                    }
                }
            }
            #expect(mismatches == 0, "\(name): \(mismatches) pixels differ from the formula")
        }
    }

    @Test func sixteenBitSamplesAreRoundedNotTruncated() throws {
        let thumbnail = try ThumbnailDecoder(size: .original).decode(
            contentsOfFile: Fixtures.testImage("png-gray-16bit-scale-vs-strip-256x8.png"))
        for x in 0..<256 {
            let expected = UInt8(x <= 126 ? x + 1 : x)
            #expect(thumbnail.pixel(x: x, y: 3).r == expected, "column \(x)")
        }
    }

    @Test func aOnePixelCheckerboardAveragesToMidGray() throws {
        let thumbnail = try ThumbnailDecoder(size: .fit(64)).decode(
            contentsOfFile: Fixtures.testImage("ref-checker-1px-256x256.png"))
        #expect(thumbnail.width == 64 && thumbnail.height == 64)
        for index in stride(from: 0, to: thumbnail.pixels.count, by: 4) {
            #expect(thumbnail.pixels[index] == 128 && thumbnail.pixels[index + 3] == 255)
        }
    }

    @Test func aGrayRampAveragesEachGroupOfColumns() throws {
        let thumbnail = try ThumbnailDecoder(size: .fit(width: 32, height: 16)).decode(
            contentsOfFile: Fixtures.testImage("ref-gray-ramp-256x16.png"))
        #expect(thumbnail.width == 32 && thumbnail.height == 2)
        for k in 0..<32 {
            // 8k + 3.5, rounded half up.
            #expect(thumbnail.pixel(x: k, y: 1) == (UInt8(8 * k + 4), UInt8(8 * k + 4), UInt8(8 * k + 4), 255))
        }
    }

    @Test(arguments: [(32, 8), (16, 16), (8, 32)])
    func blocksDownscaleToTheirExactColours(width: Int, factor: Int) throws {
        let thumbnail = try ThumbnailDecoder(size: .fit(width)).decode(
            contentsOfFile: Fixtures.testImage("ref-blocks-256x192.png"))
        #expect(thumbnail.width == width && thumbnail.height == 192 / factor)
        for j in 0..<thumbnail.height {
            for i in 0..<thumbnail.width {
                // The mean of the covered 8×8 blocks' colours (8·bx + 4, 10·by + 5, 255 − 4·(bx + by)).
                let blocks = factor / 8
                let bx = Double(i * blocks) + Double(blocks - 1) / 2, by = Double(j * blocks) + Double(blocks - 1) / 2
                let expected = (UInt8(8 * bx + 4), UInt8(10 * by + 5), UInt8(255 - 4 * (bx + by)), UInt8(255))
                #expect(thumbnail.pixel(x: i, y: j) == expected, "(\(i), \(j))")
            }
        }
    }

    @Test func transparentNeighboursDoNotBleedIntoOpaqueColour() throws {
        let thumbnail = try ThumbnailDecoder(size: .fit(64)).decode(
            contentsOfFile: Fixtures.testImage("ref-premultiply-red-clear-green-128x64.png"))
        #expect(thumbnail.width == 64 && thumbnail.height == 32)
        for index in stride(from: 0, to: thumbnail.pixels.count, by: 4) {
            #expect(thumbnail.pixels[index] == 255 && thumbnail.pixels[index + 1] == 0 && thumbnail.pixels[index + 2] == 0)
            #expect(thumbnail.pixels[index + 3] == 128)
        }
    }
}
