import TestSupport
import ThumbnailKit

/// One file decoded twice, streamed from disk and from memory, and how the two disagreed:
/// both input paths must give the same pixels and header, or fail the same way.
struct FileAndMemoryDecode: Sendable {
    /// The decode streamed from the file: the thumbnail's size and the damage it reported, or the error.
    let fromFile: Result<(width: Int, height: Int, damage: String?), any Error>
    /// How the decode from memory disagreed with it, if it did.
    let disagreement: String?

    init(path: String, decoder: ThumbnailDecoder) {
        let fromFile = Result { try decoder.decode(contentsOfFile: path) }
        let fromMemory = Result { try decoder.decode(try Fixtures.bytes(atPath: path)) }
        disagreement = switch (fromFile, fromMemory) {
        case let (.success(a), .success(b)):
            a.maximumDifference(from: b) == 0 && a.source == b.source && a.report?.damage == b.report?.damage ? nil : "file and memory decodes differ"
        case let (.failure(a), .failure(b)):
            "\(a)" == "\(b)" ? nil : "file and memory decodes fail differently: \(a) vs \(b)"
        default:
            "file and memory decodes disagree: \(fromFile) vs \(fromMemory)"
        }
        self.fromFile = fromFile.map { ($0.width, $0.height, $0.report?.damage) }
    }
}
