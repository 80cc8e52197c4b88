import ArgumentParser
import ThumbnailHTTP
import ThumbnailKit

/// `--store s3://BUCKET/PREFIX`: the object store a fleet shares, addressed and
/// signed for as AWS tools do (``S3Configuration/fromEnvironment(location:environment:)``).
struct StoreOptions: ParsableArguments {
    @Option(help: """
        An S3-compatible object store of thumbnails: s3://BUCKET/PREFIX. Endpoint, region and \
        credentials come from AWS_ENDPOINT_URL (path-style addressing), AWS_REGION, \
        AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN.
        """)
    var store: String?

    @Flag(help: "With --store: keep originals in the store too (originals/…), and read them from it before their origin.")
    var storeOriginals = false

    func validate() throws {
        if let store {
            // A bad location is a usage error (64), caught before anything runs; a store that
            // cannot be used is found by open() (2).
            do { try S3Configuration.validate(location: store) } catch { throw ValidationError("--store: \(error)") }
        }
        if storeOriginals, store == nil { throw ValidationError("--store-originals needs --store") }
    }

    /// The store, once it has answered that the bucket exists and the
    /// credentials may use it; `nil` without `--store`. A store that cannot
    /// be used exits 2 before any work: nothing would be stored.
    func open() async throws -> S3ObjectStore? {
        guard let store else { return nil }
        do {
            let opened = try S3ObjectStore(configuration: .fromEnvironment(location: store))
            try await opened.checkAccess()
            return opened
        } catch let error as S3Error {
            let hint = error.isAccessDenied ? " (check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)" : ""
            throw CommandFailure("cannot use the store: \(error)\(hint)", exitCode: 2)
        }
    }
}
