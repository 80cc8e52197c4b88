import ThumbnailKit

/// Enough of an image to tell the benchmark's photos apart: its size and its
/// mean colour, sampled. A thumbnail read back from the disk tier (re-encoded
/// as JPEG) still matches its photo; another photo of the same size does not.
struct ImageFingerprint: Sendable {
    let width: Int
    let height: Int
    let meanColor: [Double]

    init(_ thumbnail: Thumbnail) {
        width = thumbnail.width
        height = thumbnail.height
        var sums = [0.0, 0.0, 0.0]
        var count = 0.0
        // Every 97th pixel: cheap even for a full-size photo checked at every state change.
        for index in stride(from: 0, to: thumbnail.width * thumbnail.height, by: 97) {
            for channel in 0..<3 { sums[channel] += Double(thumbnail.pixels[index * 4 + channel]) }
            count += 1
        }
        meanColor = sums.map { $0 / max(1, count) }
    }

    /// Same size, and mean colours within 6 levels per channel.
    func matches(_ reference: ImageFingerprint) -> Bool {
        width == reference.width && height == reference.height
            && zip(meanColor, reference.meanColor).allSatisfy { abs($0 - $1) < 6 }
    }
}
