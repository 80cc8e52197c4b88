import Foundation
import ThumbnailHTTP

do {
    // Once, at launch: the cache directory this app chose (its second argument), else the default one.
    if CommandLine.arguments.count > 2 { try ThumbnailPipeline.configureShared(.web(cacheDirectory: CommandLine.arguments[2])) }
    let thumbnail = try await ThumbnailPipeline.shared.thumbnail(for: CommandLine.arguments[1], size: 256)
    print(thumbnail.width, thumbnail.height)
} catch {
    // Every failure the app handles lands here: a cache directory refused, an image that is not there…
    print("error: \(error)")
    exit(1)
}
