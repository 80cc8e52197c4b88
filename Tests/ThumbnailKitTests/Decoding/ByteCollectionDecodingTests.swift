import Testing
import TestSupport
import ThumbnailKit

/// Byte collections of any kind decode as their array does.
@Suite struct ByteCollectionDecodingTests {
    @Test func bytesWithoutContiguousStorageDecodeAsTheirArrayDoes() throws {
        let png = try RGBAImage(width: 16, height: 16) { x, y in (UInt8(x * 16), UInt8(y * 16), 0, 255) }.png()
        let decoder = ThumbnailDecoder(size: .fit(8))

        let fromArray = try decoder.decode(png)
        let fromLazyMap = try decoder.decode(png.lazy.map { $0 })

        #expect(fromLazyMap.width == 8 && fromLazyMap.pixels.elementsEqual(fromArray.pixels))
    }
}
