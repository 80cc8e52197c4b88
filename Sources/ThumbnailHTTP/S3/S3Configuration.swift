import ThumbnailKit

/// Where an S3 bucket is and how to sign for it, read the way AWS tools read it.
public struct S3Configuration: Sendable, Hashable {
    /// The service's base URL: `https://s3.<region>.amazonaws.com`, or a
    /// compatible store's (`http://127.0.0.1:9000`).
    public var endpoint: String
    /// The region requests are signed for.
    public var region: String
    public var bucket: String
    /// The key prefix every object goes under, without slashes at its ends; empty for the bucket's root.
    public var prefix: String
    public var accessKeyID: String
    public var secretAccessKey: String
    /// Temporary credentials' token, sent as `x-amz-security-token`.
    public var sessionToken: String?
    /// `endpoint/bucket/key` rather than `bucket.endpoint/key`: what custom endpoints use.
    public var usesPathStyle: Bool

    public init(endpoint: String, region: String, bucket: String, prefix: String = "", accessKeyID: String,
                secretAccessKey: String, sessionToken: String? = nil, usesPathStyle: Bool = true) {
        self.endpoint = endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint
        self.region = region
        self.bucket = bucket
        self.prefix = String(prefix.drop { $0 == "/" }.reversed().drop { $0 == "/" }.reversed())
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
    /// - Parameter environment: the variables; default: the process's.
    /// - Throws: ``S3Error/configuration(_:)`` for a malformed location or missing credentials.
    public static func fromEnvironment(location: String,
                                       environment: [String: String]? = nil) throws(S3Error) -> S3Configuration {
        let variables = environment ?? ProcessEnvironment.variables()
        func value(_ name: String) -> String? { variables[name].flatMap { $0.isEmpty ? nil : $0 } }
        guard location.hasPrefix("s3://") else {
            throw .configuration("the store is given as s3://BUCKET/PREFIX, not \(location)")
        }
        let path = location.dropFirst(5)
        let bucket = String(path.prefix { $0 != "/" })
        guard !bucket.isEmpty else { throw .configuration("no bucket in \(location)") }
        let prefix = String(path.dropFirst(bucket.count))
        guard let accessKey = value("AWS_ACCESS_KEY_ID"), let secret = value("AWS_SECRET_ACCESS_KEY") else {
            throw .configuration("no credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY")
        }
        let region = value("AWS_REGION") ?? value("AWS_DEFAULT_REGION") ?? "us-east-1"
        let custom = value("AWS_ENDPOINT_URL_S3") ?? value("AWS_ENDPOINT_URL")
        return S3Configuration(endpoint: custom ?? "https://s3.\(region).amazonaws.com", region: region, bucket: bucket,
                               prefix: prefix, accessKeyID: accessKey, secretAccessKey: secret,
                               sessionToken: value("AWS_SESSION_TOKEN"), usesPathStyle: custom != nil)
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
    func url(forKey key: String) -> String {
        bucketURL + Self.encodedPath(fullKey(key))
    }

    /// The object's key in the bucket: the prefix, then `key`.
    func fullKey(_ key: String) -> String {
        prefix.isEmpty ? key : "\(prefix)/\(key)"
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
