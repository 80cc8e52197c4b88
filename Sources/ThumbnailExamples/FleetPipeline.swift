import ThumbnailHTTP

/// A list front end that reads the thumbnails a fleet warmed into S3 (`thumbnailer warm --store`):
/// the store after the local disk, the origin only for what the store lacks.
func fleetPipeline() async throws -> ThumbnailPipeline {
    let store = try S3ObjectStore(configuration: .fromEnvironment(location: "s3://thumbnails/v1"))
    try await store.checkAccess()  // wrong credentials or no such bucket: S3Error, said at once
    var configuration = try ThumbnailPipeline.Configuration.web(cacheDirectory: "/var/cache/thumbnails")
    configuration.objectStore = store
    return ThumbnailPipeline(configuration: configuration)
}
