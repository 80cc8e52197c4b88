import ThumbnailKit

/// Where an S3 bucket is and how to sign for it, read the way AWS tools read it.
public struct S3Configuration: Sendable, Hashable {
    /// The service's base URL: `https://s3.<region>.amazonaws.com`, or a
    /// compatible store's (`http://127.0.0.1:9000`).
    public var endpoint: String
    /// The region requests are signed for.
    public var region: String
    /// A bucket name: letters, digits, `.`, `-` and `_`, not `.` or `..`.
    public let bucket: String
    /// The key prefix every object goes under, without slashes at its ends; empty for the bucket's
    /// root. It is part of every key, not a path: no empty, `.` or `..` segments, no control characters.
    public let prefix: String
    /// The access key ID requests are signed with (`AWS_ACCESS_KEY_ID`).
    public var accessKeyID: String
    /// The secret access key requests are signed with (`AWS_SECRET_ACCESS_KEY`); never sent itself.
    public var secretAccessKey: String
    /// Temporary credentials' token, sent as `x-amz-security-token`.
    public var sessionToken: String?
    /// `endpoint/bucket/key` rather than `bucket.endpoint/key`: what custom endpoints use.
    public var usesPathStyle: Bool

    /// A configuration from explicit values, with the bucket and prefix checked.
    /// - Parameters:
    ///   - endpoint: The service's base URL; a final `/` is dropped.
    ///   - region: The region requests are signed for.
    ///   - bucket: The bucket name.
    ///   - prefix: The key prefix; one `/` at either end is dropped. Default: empty, the bucket's root.
    ///   - accessKeyID: The access key ID.
    ///   - secretAccessKey: The secret access key.
    ///   - sessionToken: Temporary credentials' token. Default: `nil`, none.
    ///   - usesPathStyle: Whether to address `endpoint/bucket/key`. Default: `true`.
    /// - Throws: ``S3Error/invalidLocation(_:reason:)`` for a bucket or prefix that breaks the rules above.
    public init(endpoint: String, region: String, bucket: String, prefix: String = "", accessKeyID: String,
                secretAccessKey: String, sessionToken: String? = nil, usesPathStyle: Bool = true) throws(S3Error) {
        let trimmed = prefix.dropFirst(prefix.hasPrefix("/") ? 1 : 0)
        let prefix = String(trimmed.dropLast(trimmed.hasSuffix("/") ? 1 : 0))
        let location = "s3://\(bucket)" + (prefix.isEmpty ? "" : "/\(prefix)")
        if let reason = Self.problem(withBucket: bucket) ?? Self.problem(withKey: prefix, in: "the prefix") {
            throw .invalidLocation(location, reason: reason)
        }
        self.endpoint = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
        self.region = region
        self.bucket = bucket
        self.prefix = prefix
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
        self.usesPathStyle = usesPathStyle
    }

    /// The bucket and prefix of `location` (`s3://bucket/prefix`), with the
    /// endpoint, region and credentials from the AWS variables:
    /// `AWS_ENDPOINT_URL_S3` or `AWS_ENDPOINT_URL` (a custom endpoint, addressed
    /// path-style; default AWS's regional endpoint, virtual-hosted),
    /// `AWS_REGION` or `AWS_DEFAULT_REGION` (default `us-east-1`),
    /// `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`.
    /// - Parameters:
    ///   - location: `s3://BUCKET/PREFIX`; the prefix may be empty.
    ///   - environment: the variables; default: the process's.
    /// - Throws: ``S3Error/invalidLocation(_:reason:)`` for a malformed location (see
    ///   `validate(location:)`), ``S3Error/configuration(_:)`` for missing credentials.
    public static func fromEnvironment(location: String,
                                       environment: [String: String]? = nil) throws(S3Error) -> S3Configuration {
        let variables = environment ?? ProcessEnvironment.variables()
        func value(_ name: String) -> String? { variables[name].flatMap { $0.isEmpty ? nil : $0 } }
        let (bucket, prefix) = try parse(location: location)
        guard let accessKey = value("AWS_ACCESS_KEY_ID"), let secret = value("AWS_SECRET_ACCESS_KEY") else {
            throw .configuration("no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
        }
        let region = value("AWS_REGION") ?? value("AWS_DEFAULT_REGION") ?? "us-east-1"
        let custom = value("AWS_ENDPOINT_URL_S3") ?? value("AWS_ENDPOINT_URL")
        return try S3Configuration(endpoint: custom ?? "https://s3.\(region).amazonaws.com", region: region, bucket: bucket,
                                   prefix: prefix, accessKeyID: accessKey, secretAccessKey: secret,
                                   sessionToken: value("AWS_SESSION_TOKEN"), usesPathStyle: custom != nil)
    }

    /// Checks `s3://BUCKET/PREFIX` without reading the environment: what a command line checks
    /// before anything runs. The prefix is part of every key, not a path to resolve: `..` would
    /// name another bucket (`s3://bucket/../other/x` addresses bucket `other` once a URL's dot
    /// segments are resolved), so empty, `.` and `..` segments and control characters are
    /// refused, and the bucket is letters, digits, `.`, `-` and `_`.
    /// - Throws: ``S3Error/invalidLocation(_:reason:)`` saying what is wrong.
    package static func validate(location: String) throws(S3Error) {
        _ = try parse(location: location)
    }

    /// The bucket and prefix of `s3://BUCKET/PREFIX`, checked (``validate(location:)``).
    private static func parse(location: String) throws(S3Error) -> (bucket: String, prefix: String) {
        guard location.hasPrefix("s3://") else {
            throw .invalidLocation(location, reason: "a store is given as s3://BUCKET/PREFIX")
        }
        let path = location.dropFirst(5)
        let bucket = String(path.prefix { $0 != "/" })
        var prefix = path.dropFirst(bucket.count + 1)
        if prefix.hasSuffix("/") { prefix = prefix.dropLast() }
        if let reason = problem(withBucket: bucket) ?? problem(withKey: String(prefix), in: "the prefix") {
            throw .invalidLocation(location, reason: reason)
        }
        return (bucket, String(prefix))
    }

    /// What is wrong with a bucket name, or `nil`.
    private static func problem(withBucket bucket: String) -> String? {
        if bucket.isEmpty { return "no bucket" }
        if bucket == "." || bucket == ".." { return "'\(bucket)' is not a bucket name" }
        let allowed = bucket.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || ".-_".unicodeScalars.contains($0)
        }
        return allowed ? nil : "a bucket name is letters, digits, '.', '-' and '_'"
    }

    /// What is wrong with `key` (in `place`, for the message) as part of an object's key, or `nil`:
    /// an empty, `.` or `..` segment, or a control character. An empty key is fine (no prefix).
    private static func problem(withKey key: String, in place: String) -> String? {
        guard !key.isEmpty else { return nil }
        if key.unicodeScalars.contains(where: S3Error.isControl) {
            return "a control character in \(place)"
        }
        for segment in key.split(separator: "/", omittingEmptySubsequences: false) {
            switch segment {
            case "": return "an empty segment in \(place) (a '/' at its start or two in a row)"
            case ".", "..": return "a '\(segment)' segment in \(place): it is part of every key, not a path"
            default: continue
            }
        }
        return nil
    }

    /// `s3://bucket/prefix`.
    public var location: String { "s3://\(bucket)" + (prefix.isEmpty ? "" : "/\(prefix)") }

    /// The URL of the bucket itself, ending in `/`.
    var bucketURL: String {
        if usesPathStyle { return "\(endpoint)/\(Self.encodedPath(bucket))/" }
        let scheme = endpoint.prefix { $0 != ":" }
        return "\(scheme)://\(bucket).\(endpoint.dropFirst(scheme.count + 3))/"
    }

    /// The URL of the object under `key` (below the prefix).
    func url(forKey key: String) throws(S3Error) -> String {
        bucketURL + Self.encodedPath(try bucketKey(key))
    }

    /// The key in the bucket of `key` below the prefix: the one place keys are made, so that none
    /// leaves the prefix. `key` is checked as the prefix is; as a listing's key prefix
    /// (`listing`) it may also be empty or end in `/`.
    /// - Throws: ``S3Error/invalidLocation(_:reason:)`` naming the key.
    func bucketKey(_ key: String, listing: Bool = false) throws(S3Error) -> String {
        let checked = listing && key.hasSuffix("/") ? String(key.dropLast()) : key
        if let reason = (checked.isEmpty && !listing ? "an empty key" : nil) ?? Self.problem(withKey: checked, in: "the key") {
            throw .invalidLocation("\(location)/\(key)", reason: reason)
        }
        return prefix.isEmpty ? key : "\(prefix)/\(key)"
    }

    /// `bucketKey`'s inverse: the key below the prefix of a key in the bucket (a listing's).
    func keyBelowPrefix(_ bucketKey: String) -> String {
        prefix.isEmpty ? bucketKey : String(bucketKey.dropFirst(prefix.utf8.count + 1))
    }

    /// Percent-encodes all but RFC 3986's unreserved characters and `/`, as SigV4 wants a path.
    static func encodedPath(_ text: String) -> String {
        percentEncoded(text, keeping: UInt8(ascii: "/"))
    }

    /// Percent-encodes all but RFC 3986's unreserved characters (and `kept`), upper-case hex.
    static func percentEncoded(_ text: String, keeping kept: UInt8? = nil) -> String {
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                 UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            case _ where byte == kept:
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let digits = Array("0123456789ABCDEF".unicodeScalars)
                encoded += "%" + String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 15)])
            }
        }
        return encoded
    }
}
