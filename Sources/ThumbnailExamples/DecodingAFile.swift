import ThumbnailKit

func thumbnailAsJPEG(ofFile path: String) throws -> [UInt8] {
    let thumbnail = try ThumbnailDecoder(size: .fit(256)).decode(contentsOfFile: path)
    print(thumbnail.width, thumbnail.height)    // after EXIF orientation
    print(thumbnail.pixels.count)               // RGBA8, straight alpha, owned without a copy
    print(thumbnail.source.width, thumbnail.source.format)  // the original's facts, whichever tier answered
    print(thumbnail.report?.peakDecodeBytes ?? 0)  // what the decode allocated (a report comes only from a decode)
    return try ThumbnailEncoder(jpegQuality: 85).encode(thumbnail)
}
