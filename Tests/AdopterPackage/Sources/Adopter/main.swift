import ThumbnailHTTP
let thumbnail = try await ThumbnailPipeline.shared.thumbnail(for: CommandLine.arguments[1], size: 256)
print(thumbnail.width, thumbnail.height)
