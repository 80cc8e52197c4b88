import Foundation
import ThumbnailKit

/// A format's own decoder, run as a process, for comparing our thumbnails with:
/// `avifdec` (libavif-bin), `heif-convert` (libheif-examples), `djxl` (libjxl-tools).
public enum ReferenceDecoder: String, Sendable, CaseIterable {
    case avifdec = "/usr/bin/avifdec"
    case heifConvert = "/usr/bin/heif-convert"
    case djxl = "/usr/bin/djxl"

    /// The reference decoder of `format`; `nil` for the formats that have none here.
    public init?(for format: ImageFormat) {
        switch format {
        case .avif: self = .avifdec
        case .heic: self = .heifConvert
        case .jxl: self = .djxl
        default: return nil
        }
    }

    /// Whether all three are installed (scripts/test.sh installs them).
    public static var allAvailable: Bool {
        allCases.allSatisfy { FileManager.default.isExecutableFile(atPath: $0.rawValue) }
    }

    /// Whether it turns the picture by the file's orientation as it decodes: heif-convert and djxl
    /// do, avifdec 0.11 writes the pixels as stored (irot and imir left out).
    public var appliesOrientation: Bool { self != .avifdec }

    /// The image at `path` decoded at full size by this tool (to a PNG, read back by our PNG
    /// decoder without any colour conversion, as the tool wrote it).
    public func decode(_ path: String) throws -> Thumbnail {
        let directory = try Fixtures.temporaryDirectory()
        let output = directory.appendingPathComponent("reference.png").path
        let outcome = try ChildProcess.run([path, output], executable: rawValue)
        guard outcome.status == 0 else {
            throw ReferenceDecoderFailure(message: "\(rawValue) \(path): exit \(outcome.status): \(outcome.standardError)")
        }
        return try ThumbnailDecoder(size: .original, appliesOrientation: false, convertsToSRGB: false)
            .decode(contentsOfFile: output)
    }
}

/// A reference tool (a decoder, or an encoder making test pictures) that failed.
public struct ReferenceDecoderFailure: Error, CustomStringConvertible {
    public let message: String
    public var description: String { message }

    public init(message: String) {
        self.message = message
    }
}
