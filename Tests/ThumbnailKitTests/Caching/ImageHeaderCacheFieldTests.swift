import Testing
@testable import ThumbnailKit

/// The source facts a disk cache entry keeps beside a thumbnail.
@Suite struct ImageHeaderCacheFieldTests {
    @Test(arguments: ImageFormat.allCases)
    func aHeaderOfEveryFormatComesBackFromItsField(format: ImageFormat) throws {
        let header = ImageHeader(format: format, width: 65535, height: 3, orientation: 6, hasAlpha: true,
                                 isProgressive: true, components: 4, bitDepth: 2, wholeImageBytesPerPixel: 4)
        #expect(ImageHeader(cacheField: header.cacheField[...]) == header)
    }

    @Test func theFormatBytesOnDiskNeverChange() {
        // Entries written by earlier builds keep these.
        #expect(ImageFormat.jpeg.cacheByte == 0 && ImageFormat.png.cacheByte == 1 && ImageFormat.webp.cacheByte == 2
                && ImageFormat.gif.cacheByte == 3)
        let header = ImageHeader(format: .gif, width: 1, height: 1, orientation: 1, hasAlpha: false,
                                 isProgressive: false, components: 3, bitDepth: 8, wholeImageBytesPerPixel: 0)
        #expect(header.cacheField.first == 3)
    }

    @Test func aFieldWithAnUnknownFormatIsNoHeader() {
        var field = ImageHeader(format: .png, width: 8, height: 8, orientation: 1, hasAlpha: false,
                                isProgressive: false, components: 3, bitDepth: 8, wholeImageBytesPerPixel: 0).cacheField
        field[0] = 200
        #expect(ImageHeader(cacheField: field[...]) == nil)
    }
}
