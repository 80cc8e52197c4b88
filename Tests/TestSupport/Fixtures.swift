import Foundation
import ThumbnailKit

/// Paths to the project's test images and the shared conformance corpora.
public enum Fixtures {
    /// The package root, found from this file's location.
    public static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A file in TestImages/.
    public static func testImage(_ name: String) -> String {
        packageRoot.appendingPathComponent("TestImages").appendingPathComponent(name).path
    }

    /// The bytes of a file in TestImages/.
    public static func bytes(ofTestImage name: String) throws -> [UInt8] {
        try bytes(atPath: testImage(name))
    }

    public static func bytes(atPath path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// `../shared/corpora` beside the checkout, or `nil` when it is not there.
    public static let corpora: URL? = {
        let url = packageRoot.deletingLastPathComponent().appendingPathComponent("shared/corpora")
        return FileManager.default.fileExists(atPath: url.appendingPathComponent("MANIFEST.tsv").path) ? url : nil
    }()

    /// A fresh temporary directory, removed by the caller with `removeItem`.
    public static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("thumbnailer-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

/// An RGBA8 image built pixel by pixel, for references the tests can compute.
public struct RGBAImage {
    public let width: Int
    public let height: Int
    public var bytes: [UInt8]

    public init(width: Int, height: Int, pixel: (Int, Int) -> (UInt8, UInt8, UInt8, UInt8)) {
        self.width = width
        self.height = height
        var bytes = [UInt8](repeating: 0, count: width * height * 4)
        for y in 0..<height {
            for x in 0..<width {
                let (r, g, b, a) = pixel(x, y)
                let offset = (y * width + x) * 4
                bytes[offset] = r
                bytes[offset + 1] = g
                bytes[offset + 2] = b
                bytes[offset + 3] = a
            }
        }
        self.bytes = bytes
    }

    public func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        let offset = (y * width + x) * 4
        return (bytes[offset], bytes[offset + 1], bytes[offset + 2], bytes[offset + 3])
    }

    /// Lossless PNG bytes of this image.
    public func png() throws -> [UInt8] {
        try ThumbnailEncoder().encode(rgba: bytes, width: width, height: height, as: .png)
    }

    /// The exact area-filtered downscale to `width × height`, computed in
    /// floating point the slow, obvious way: each source pixel contributes its
    /// overlap area, colour premultiplied by alpha.
    public func areaDownscaled(toWidth outWidth: Int, height outHeight: Int) -> RGBAImage {
        let sx = Double(width) / Double(outWidth), sy = Double(height) / Double(outHeight)
        return RGBAImage(width: outWidth, height: outHeight) { ox, oy in
            var sums = [Double](repeating: 0, count: 4)
            var total = 0.0
            let x0 = Double(ox) * sx, x1 = Double(ox + 1) * sx
            let y0 = Double(oy) * sy, y1 = Double(oy + 1) * sy
            for y in Int(y0.rounded(.down))..<min(height, Int(y1.rounded(.up))) {
                let wy = min(y1, Double(y + 1)) - max(y0, Double(y))
                for x in Int(x0.rounded(.down))..<min(width, Int(x1.rounded(.up))) {
                    let w = wy * (min(x1, Double(x + 1)) - max(x0, Double(x)))
                    guard w > 0 else { continue }
                    let p = pixel(x: x, y: y)
                    let alpha = Double(p.a)
                    sums[0] += w * Double(p.r) * alpha
                    sums[1] += w * Double(p.g) * alpha
                    sums[2] += w * Double(p.b) * alpha
                    sums[3] += w * alpha
                    total += w
                }
            }
            let alphaSum = sums[3]
            func channel(_ sum: Double) -> UInt8 {
                alphaSum == 0 ? 0 : UInt8((sum / alphaSum).rounded(.toNearestOrAwayFromZero))
            }
            return (channel(sums[0]), channel(sums[1]), channel(sums[2]),
                    UInt8((alphaSum / total).rounded(.toNearestOrAwayFromZero)))
        }
    }
}

extension Thumbnail {
    /// The largest per-channel difference from `reference` (same size required).
    public func maximumDifference(from reference: RGBAImage) -> Int {
        precondition(width == reference.width && height == reference.height)
        return Self.channelDifferences(pixels, reference.bytes).max() ?? 0
    }

    /// The largest per-channel difference from another thumbnail of the same size.
    public func maximumDifference(from other: Thumbnail) -> Int {
        precondition(width == other.width && height == other.height)
        return Self.channelDifferences(pixels, other.pixels).max() ?? 0
    }

    /// The mean absolute per-channel difference from another thumbnail of the same size.
    public func meanDifference(from other: Thumbnail) -> Double {
        precondition(width == other.width && height == other.height)
        let differences = Self.channelDifferences(pixels, other.pixels)
        return Double(differences.reduce(0, +)) / Double(max(differences.count, 1))
    }

    /// PSNR over the colour channels against another thumbnail of the same size; infinite when identical.
    public func peakSignalToNoiseRatio(against other: Thumbnail) -> Double {
        precondition(width == other.width && height == other.height)
        var squares = 0.0, count = 0
        for (index, (a, b)) in zip(pixels, other.pixels).enumerated() where index % 4 != 3 {
            squares += Double((Int(a) - Int(b)) * (Int(a) - Int(b)))
            count += 1
        }
        return squares == 0 ? .infinity : 10 * log10(255 * 255 / (squares / Double(count)))
    }

    private static func channelDifferences(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> [Int] {
        zip(a, b).map { abs(Int($0) - Int($1)) }
    }
}

/// A temporary directory that removes itself when the last reference goes.
public final class TemporaryDirectory: Sendable {
    public let url: URL

    public init() throws {
        url = try Fixtures.temporaryDirectory()
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// The path of `name` inside the directory.
    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}
