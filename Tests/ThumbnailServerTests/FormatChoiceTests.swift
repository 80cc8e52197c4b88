@testable import ThumbnailServer
import Testing
import ThumbnailKit

/// The response's format: the URL's extension, else WebP only for an explicit `image/webp` in `Accept`.
@Suite struct FormatChoiceTests {
    @Test(arguments: [
        ("image/avif,image/webp,*/*;q=0.8", true),
        ("image/webp", true),
        ("IMAGE/WEBP ; q=0.5", true),
        ("text/html, image/webp;q=0", false),
        ("image/webp;q=0.0", false),
        ("*/*", false),
        ("image/*", false),
        ("image/webpx", false),
        ("", false),
    ])
    func webPIsChosenOnlyWhenAcceptNamesIt(accept: String, chosen: Bool) {
        let choice = FormatChoice(asked: nil, accept: accept)
        #expect((choice.format == .webp) == chosen)
        #expect(choice.variesWithAccept)
    }

    @Test func theURLsExtensionWinsAndDoesNotVary() {
        let choice = FormatChoice(asked: .png, accept: "image/webp")
        #expect(choice == FormatChoice(asked: .png, accept: nil))
        #expect(choice.format == .png && !choice.variesWithAccept)
        #expect(FormatChoice(asked: nil, accept: nil).format == nil)
    }
}
