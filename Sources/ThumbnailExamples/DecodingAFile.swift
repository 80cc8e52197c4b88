import ThumbnailKit

func thumbnailAsJPEG(ofFile path: String) throws -> [UInt8] {
    let thumbnail = try ThumbnailDecoder(size: .fit(256)).decode(contentsOfFile: path)
    print(thumbnail.width, thumbnail.height)    // after EXIF orientation
    print(thumbnail.pixels.count)               // RGBA8, straight alpha, owned without a copy
    print(thumbnail.report.peakDecodeBytes)     // what the decode allocated, libjpeg/libpng included
    return try ThumbnailEncoder(jpegQuality: 85).encode(thumbnail)
}
