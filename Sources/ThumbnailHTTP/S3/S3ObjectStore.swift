import CFetch
import Dispatch
import Synchronization
import ThumbnailKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An S3 bucket (or any S3-compatible store) under a prefix, as the pipeline's
/// shared ``/ThumbnailKit/ObjectStore``: GET, HEAD and PUT of objects with `x-amz-meta-*`
/// metadata, signed with AWS Signature Version 4 by libcurl.
///
/// - Every PUT carries the SHA-256 of its body as `x-amz-content-sha256`, so the
///   store refuses a body damaged on the way; objects appear whole or not at all.
/// - Two processes writing one key is harmless: they write the same bytes (the
///   pipeline's encoding is deterministic) and readers check the checksum in
///   the metadata. Conditional PUT (`If-None-Match: *`) is not used: many
///   S3-compatible stores refuse it.
/// - Loopback and private addresses are allowed: a store is the user's own choice.
///
/// ```swift
/// let store = try S3ObjectStore(configuration: .fromEnvironment(location: "s3://thumbnails/v1"))
/// try await store.checkAccess()
/// let pipeline = ThumbnailPipeline(configuration: .init(dataLoader: try HTTPDataLoader(), objectStore: store))
/// ```
public final class S3ObjectStore: ObjectStore {
    /// The endpoint, bucket, prefix and credentials every request uses.
    public let configuration: S3Configuration
    /// The largest object body read (a GET); larger ones fail. Default: 16 MiB.
    public let maximumObjectBytes: Int
    /// When a request is tried again: no answer, 408, 429 and 5xx (S3's `503 SlowDown` while it
    /// partitions a busy prefix), with exponential backoff and jitter. Default: 4 attempts from 250 ms.
    public let retryPolicy: RetryPolicy
    private let client: CurlClient
    /// Streams large objects (originals) into sinks, under backpressure.
    private let streaming: HTTPDataLoader
    private let requests = Atomic<Int>(0)
    private let puts = Atomic<Int>(0)

    /// Starts the client's I/O thread.
    /// - Throws: ``S3Error/unreachable(_:reason:)`` when libcurl cannot start.
    public init(configuration: S3Configuration, maximumObjectBytes: Int = 16 << 20,
                retryPolicy: RetryPolicy = RetryPolicy(maximumAttempts: 4)) throws {
        self.configuration = configuration
        self.maximumObjectBytes = maximumObjectBytes
        self.retryPolicy = retryPolicy
        do {
            client = try CurlClient(refusesPrivateAddresses: false, receiveBufferBytes: 64 * 1024)
            streaming = try HTTPDataLoader(configuration: .init(connectTimeout: .seconds(10), maximumRedirects: 0))
        } catch {
            throw S3Error.unreachable(configuration.location, reason: "\(error)")
        }
    }

    /// Requests sent so far (for tests and summaries).
    package var requestCount: Int { requests.load(ordering: .relaxed) }

    /// Objects written so far (PUTs the store accepted).
    public var objectsWritten: Int { puts.load(ordering: .relaxed) }

    public func object(forKey key: String) async throws -> StoredObject? {
        let response = try await send("GET", key: key)
        switch response.status {
        case 200: return StoredObject(bytes: response.body, metadata: response.metadata)
        case 404: return nil
        default: throw refusal("GET", key: key, response)
        }
    }

    public func metadata(forKey key: String) async throws -> [String: String]? {
        let response = try await send("HEAD", key: key)
        switch response.status {
        case 200: return response.metadata
        case 404: return nil
        default: throw refusal("HEAD", key: key, response)
        }
    }

    /// - Throws: ``S3Error/configuration(_:)`` before sending when one metadata name begins
    ///   another (`source`, `source-url`): libcurl 7.88 orders such headers for its signature
    ///   unlike S3, which then refuses every such request as `SignatureDoesNotMatch`.
    public func put(_ object: StoredObject, forKey key: String) async throws {
        try Self.refuseUnsignableNames(object.metadata)
        var headers = object.metadata.sorted { $0.key < $1.key }.map { "\(S3Exchange.metadataPrefix)\($0.key): \($0.value)" }
        if let format = ImageFormat(sniffing: object.bytes) { headers.append("Content-Type: \(format.mediaType)") }
        let response = try await send("PUT", key: key, payload: .bytes(object.bytes), headers: headers)
        guard (200...299).contains(response.status) else { throw refusal("PUT", key: key, response) }
        puts.add(1, ordering: .relaxed)
    }

    /// Streams the file's bytes to the store as libcurl sends them; only its SHA-256 is
    /// computed first (a read of the file), for the signature.
    public func put(contentsOf file: FileRegion, metadata: [String: String], forKey key: String) async throws {
        try Self.refuseUnsignableNames(metadata)
        let digest = try await withCheckedThrowingContinuation { continuation in
            // Off the cooperative pool: it reads the whole file.
            DispatchQueue.global().async { continuation.resume(with: Result { try SHA256.hexDigest(of: file) }) }
        }
        let headers = metadata.sorted { $0.key < $1.key }.map { "\(S3Exchange.metadataPrefix)\($0.key): \($0.value)" }
        let response = try await send("PUT", url: try configuration.url(forKey: key), label: "PUT \(configuration.location)/\(key)",
                                      payload: .file(file, sha256: digest), headers: headers)
        guard (200...299).contains(response.status) else { throw refusal("PUT", key: key, response) }
        puts.add(1, ordering: .relaxed)
    }

    /// Streams the object into `sink` through a bounded buffer (libcurl stops reading while the
    /// sink is behind), so an original of any size costs the buffer, not its size.
    public func load(forKey key: String, into sink: any BodySink, maximumBytes: Int) async throws -> Bool {
        let label = "GET \(configuration.location)/\(key)"
        let signing = signingHeaders(payloadSHA256: SHA256.hex(SHA256.digest([UInt8]())))
        do {
            _ = try await streaming.load(DataRequest(url: try configuration.url(forKey: key), maximumBytes: maximumBytes),
                                         into: sink, progress: { _ in }) { [self] options, start in
                sign(&options, headers: signing, then: start)
            }
            return true
        } catch let DataLoadingError.httpStatus(_, status, _) {
            if status == 404 { return false }
            throw S3Error.refused(label, status: status, code: nil, message: nil)
        } catch let error as DataLoadingError {
            throw S3Error.unreachable(label, reason: "\(error)")
        }
    }

    /// Asks whether the bucket exists and the credentials may use it (a HEAD of
    /// the bucket): the check to make before any work.
    /// - Throws: ``S3Error``; ``S3Error/isAccessDenied`` tells wrong credentials.
    public func checkAccess() async throws {
        let response = try await send("HEAD", url: configuration.bucketURL, label: "HEAD \(configuration.location)")
        guard response.status == 200 else {
            let code = response.status == 404 ? "NoSuchBucket" : nil
            throw S3Error.refused("HEAD \(configuration.location)", status: response.status, code: code, message: nil)
        }
    }

    /// The objects under `keyPrefix` (below the store's prefix), page by page
    /// (ListObjectsV2, `pageSize` keys a page, 1000 at most): `body` gets each
    /// page's keys (below the store's prefix) and sizes. Memory stays one page
    /// however many objects there are.
    /// - Throws: ``S3Error``, or what `body` throws.
    public func forEachObject(under keyPrefix: String = "", pageSize: Int = 1000,
                              _ body: ([(key: String, bytes: Int)]) throws -> Void) async throws {
        let fullPrefix = try configuration.bucketKey(keyPrefix, listing: true)
        var continuation: String?
        repeat {
            // SigV4 wants the query sorted and encoded, as libcurl sends it.
            var query = [("encoding-type", "url"), ("list-type", "2"), ("max-keys", String(min(max(pageSize, 1), 1000))),
                         ("prefix", fullPrefix)]
            if let continuation { query.append(("continuation-token", continuation)) }
            let text = query.sorted { $0.0 < $1.0 }
                .map { "\($0.0)=\(S3Configuration.percentEncoded($0.1))" }.joined(separator: "&")
            let label = "LIST \(configuration.location)/\(keyPrefix)"
            let response = try await send("GET", url: configuration.bucketURL + "?" + text, label: label)
            guard response.status == 200 else {
                throw S3ErrorDocument(response.body).error(label, status: response.status)
            }
            let page = try S3ListPage(response.body, request: label)
            try body(page.objects.map { (configuration.keyBelowPrefix($0.key), $0.bytes) })
            continuation = page.isTruncated ? page.nextContinuationToken : nil
        } while continuation != nil
    }

    // MARK: - Requests

    /// What a request sends.
    private enum Payload {
        case none
        case bytes([UInt8])
        /// A file's bytes, with their SHA-256 (hex) computed beforehand.
        case file(FileRegion, sha256: String)

        var sha256: String {
            switch self {
            case .none: SHA256.hex(SHA256.digest([UInt8]()))
            case let .bytes(bytes): SHA256.hex(SHA256.digest(bytes))
            case let .file(_, digest): digest
            }
        }
    }

    private func send(_ method: String, key: String, payload: Payload = .none,
                      headers: [String] = []) async throws -> S3Exchange.Response {
        try await send(method, url: try configuration.url(forKey: key),
                       label: "\(method) \(configuration.location)/\(key)", payload: payload, headers: headers)
    }

    /// Sends a signed request and waits for its whole answer, trying again after a transient
    /// failure as ``retryPolicy`` says; the last answer or error is returned.
    private func send(_ method: String, url: String, label: String, payload: Payload = .none,
                      headers: [String] = []) async throws -> S3Exchange.Response {
        var attempt = 1
        while true {
            let result = try await sendOnce(method, url: url, label: label, payload: payload, headers: headers)
            let transient = switch result {
            case let .success(response): RetryPolicy.isTransient(status: response.status)
            case .failure: true
            }
            guard transient, let delay = retryPolicy.delay(afterAttempt: attempt) else { return try result.get() }
            try await Task.sleep(for: delay)
            attempt += 1
        }
    }

    /// Sends one signed request and waits for its whole answer.
    private func sendOnce(_ method: String, url: String, label: String, payload: Payload,
                          headers: [String]) async throws -> Result<S3Exchange.Response, S3Error> {
        requests.add(1, ordering: .relaxed)
        let exchange = S3Exchange(label: label)
        let lines = headers + signingHeaders(payloadSHA256: payload.sha256)
        let id = Atomic<UInt64>(0)
        let result = await withTaskCancellationHandler {
            let started = start(exchange, method: method, url: url, payload: payload, headers: lines)
            guard started != 0 else {
                return Result<S3Exchange.Response, S3Error>.failure(.unreachable(label, reason: "libcurl could not start the request"))
            }
            id.store(started, ordering: .sequentiallyConsistent)
            if Task.isCancelled { client.cancel(started) }
            return await exchange.response()
        } onCancel: {
            let started = id.load(ordering: .sequentiallyConsistent)
            if started != 0 { client.cancel(started) }
        }
        try Task.checkCancellation()
        return result
    }

    /// The headers every signed request carries: libcurl 7.88 signs the payload hash it is
    /// given and does not compute one; and the session token of temporary credentials.
    private func signingHeaders(payloadSHA256: String) -> [String] {
        ["x-amz-content-sha256: \(payloadSHA256)"] + (configuration.sessionToken.map { ["x-amz-security-token: \($0)"] } ?? [])
    }

    /// Sets the signature's provider, the credentials and `headers` on `options` (their C
    /// strings valid during `start`), then starts it.
    private func sign(_ options: inout cf_request, headers: [String], then start: (inout cf_request) -> UInt64) -> UInt64 {
        let signing = "aws:amz:\(configuration.region):s3"
        return withCStrings(headers) { headerPointers in
            signing.withCString { signing in
                configuration.accessKeyID.withCString { accessKey in
                    configuration.secretAccessKey.withCString { secret in
                        S3Exchange.metadataPrefix.withCString { prefix in
                            options.headers = headerPointers.baseAddress
                            options.header_count = headerPointers.count
                            options.aws_sigv4 = signing
                            options.username = accessKey
                            options.password = secret
                            options.kept_header_prefix = prefix
                            return start(&options)
                        }
                    }
                }
            }
        }
    }

    /// Hands the exchange to libcurl; its callbacks own one reference until `on_complete`.
    private func start(_ exchange: S3Exchange, method: String, url: String, payload: Payload, headers: [String]) -> UInt64 {
        let context = Unmanaged.passRetained(exchange)
        var callbacks = cf_callbacks(
            context: context.toOpaque(),
            on_response: { context, response in
                Unmanaged<S3Exchange>.fromOpaque(context!).takeUnretainedValue().receive(response!.pointee)
                return 0
            },
            on_body: { context, bytes, count in
                Unmanaged<S3Exchange>.fromOpaque(context!).takeUnretainedValue()
                    .receive(UnsafeRawBufferPointer(start: bytes, count: count))
                return Int32(CF_BODY_CONTINUE)
            },
            on_complete: { context, result in
                Unmanaged<S3Exchange>.fromOpaque(context!).takeRetainedValue().complete(result!.pointee)
            })
        var bytes: [UInt8] = []
        if case let .bytes(body) = payload { bytes = body }
        let id = url.withCString { url in
            method.withCString { method in
                bytes.withUnsafeBufferPointer { upload in
                    var request = cf_request()
                    request.url = url
                    request.method = method
                    request.upload = upload.baseAddress
                    request.upload_size = upload.count
                    if case let .file(region, _) = payload {
                        request.uploads_file = 1
                        request.upload_file = region.descriptor
                        request.upload_offset = Int64(region.offset)
                        request.upload_size = region.length
                    }
                    request.max_bytes = Int64(maximumObjectBytes)
                    request.connect_timeout_ms = 10_000
                    request.total_timeout_ms = 120_000
                    request.low_speed_limit = 1024
                    request.low_speed_time_s = 15
                    return sign(&request, headers: headers) { client.start(&$0, &callbacks) }
                }
            }
        }
        if id == 0 { context.release() }
        return id
    }

    /// Refuses metadata with one name beginning another: see ``put(_:forKey:)``.
    private static func refuseUnsignableNames(_ metadata: [String: String]) throws {
        let names = metadata.keys.sorted()
        for (name, next) in zip(names, names.dropFirst()) where next.hasPrefix(name) {
            throw S3Error.configuration("metadata name \(name) begins \(next): libcurl cannot sign such a pair")
        }
    }

    private func refusal(_ method: String, key: String, _ response: S3Exchange.Response) -> S3Error {
        S3ErrorDocument(response.body).error("\(method) \(configuration.location)/\(key)", status: response.status)
    }
}

/// Runs `body` with C strings of `strings`, valid only during the call.
private func withCStrings<Result>(_ strings: [String],
                                  _ body: (UnsafeBufferPointer<UnsafePointer<CChar>?>) -> Result) -> Result {
    let copies = strings.map { strdup($0) }
    defer { copies.forEach { free($0) } }
    return copies.map { UnsafePointer($0) }.withUnsafeBufferPointer(body)
}
