import Foundation
import ThumbnailHTTP

do {
    // Once, at launch: the cache directory this app chose (its second argument), else the default one.
    if CommandLine.arguments.count > 2 { try ThumbnailPipeline.configureShared(.web(cacheDirectory: CommandLine.arguments[2])) }
    let thumbnail = try await ThumbnailPipeline.shared.thumbnail(for: CommandLine.arguments[1], size: 256)
    print(thumbnail.width, thumbnail.height)
} catch let error as ThumbnailError {
    print("error: \(error.kind): \(error)")  // an image that could not be had: fetch, decode, storage, …
    exit(1)
} catch {
    print("error: \(error)")  // a cache directory refused or unusable
    exit(1)
}
