import ExtrasBase64
import ThumbnailKit

/// What a thumbnail URL asks for: `/{signature}/{size}/{fit|fill}/{base64url(source)}[.{jpg|png|webp}]`,
/// imgproxy's shape. Parsing checks the signature before it reads the rest, so a URL
/// nobody signed learns nothing but 403.
public struct ThumbnailURL: Sendable, Hashable {
    /// The box: `256` or `320x200`.
    public var size: ThumbnailSize
    /// Whether the thumbnail fits in the box or fills it: the `fit` or `fill` segment.
    public var mode: ResizeMode
    /// The image's URL, as the client encoded it.
    public var source: String
    /// The format the extension asks for; `nil` for none.
    public var format: OutputFormat?

    /// What the pipeline is asked for: the box, fitted into or filled (covered, the centre kept).
    public var requestedSize: ThumbnailSize {
        guard mode == .fill else { return size }
        return ThumbnailSize(maxWidth: size.maxWidth, maxHeight: size.maxHeight, mode: .fill)
    }

    /// The longest path accepted, in bytes: far above any real source URL, far below what would cost anything to hash.
    public static let maximumPathLength = 8192

    /// A URL's parts, to build its path with ``path(signing:)``.
    /// - Parameters:
    ///   - size: The box.
    ///   - mode: Whether the thumbnail fits in the box or fills it.
    ///   - source: The image's URL.
    ///   - format: The format to ask for. Default: `nil`, the one the thumbnail warrants.
    public init(size: ThumbnailSize, mode: ResizeMode, source: String, format: OutputFormat? = nil) {
        self.size = size
        self.mode = mode
        self.source = source
        self.format = format
    }

    /// Parses a request's raw path (`/sig/256/fit/aHR0…`), checking its signature under `signing`.
    /// - Throws: ``ThumbnailURLError/malformed(_:)`` for a path of the wrong shape,
    ///   ``ThumbnailURLError/badSignature`` for one `signing` does not accept.
    public init(path: String, signing: SigningPolicy) throws(ThumbnailURLError) {
        guard path.utf8.count <= Self.maximumPathLength else { throw .malformed("URL too long") }
        guard path.hasPrefix("/") else { throw .malformed("path must start with /") }
        let segments = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count == 4 else {
            throw .malformed("expected /{signature}/{size}/{fit|fill}/{base64url(source)}[.{jpg|png|webp}]")
        }
        let signature = segments[0]
        let signedPath = path.dropFirst(signature.count + 1)
        switch signing {
        case .unsigned:
            guard signature == "_" else { throw .badSignature }
        case let .signed(signer):
            guard signer.isValid(signature: signature, for: signedPath) else { throw .badSignature }
        }
        guard let size = ThumbnailSize(parsing: String(segments[1])) else { throw .malformed("size must be like 256 or 320x200") }
        guard let mode = ResizeMode(rawValue: String(segments[2])) else { throw .malformed("mode must be fit or fill") }
        let (encoded, format) = try Self.splitExtension(segments[3])
        self.init(size: size, mode: mode, source: try Self.decodeSource(encoded), format: format)
    }

    /// The path for this thumbnail after the signature segment: `/256/fit/aHR0…[.jpg]`.
    public var unsignedPath: String {
        let encoded = Base64.encodeToString(bytes: Array(source.utf8), options: [.base64UrlAlphabet, .omitPaddingCharacter])
        return "/\(size.pathSegment)/\(mode.rawValue)/\(encoded)" + (format.map { ".\($0.rawValue)" } ?? "")
    }

    /// The whole path under `signing`: the signature (or `_` unsigned), then ``unsignedPath``.
    public func path(signing: SigningPolicy) -> String {
        let path = unsignedPath
        return switch signing {
        case .unsigned: "/_" + path
        case let .signed(signer): "/" + signer.signature(for: path) + path
        }
    }

    private static func splitExtension(_ segment: Substring) throws(ThumbnailURLError) -> (Substring, OutputFormat?) {
        guard let dot = segment.lastIndex(of: ".") else { return (segment, nil) }
        guard let format = OutputFormat(rawValue: String(segment[segment.index(after: dot)...])) else {
            throw .malformed("extension must be .jpg, .png or .webp")
        }
        return (segment[..<dot], format)
    }

    private static func decodeSource(_ encoded: Substring) throws(ThumbnailURLError) -> String {
        // imgproxy's clients may pad; the padding carries nothing.
        var unpadded = encoded
        while unpadded.last == "=" { unpadded.removeLast() }
        guard !unpadded.isEmpty,
              let bytes = try? Base64.decode(bytes: Array(unpadded.utf8), options: [.base64UrlAlphabet, .omitPaddingCharacter]),
              let source = String(validating: bytes, as: UTF8.self), !source.isEmpty
        else { throw .malformed("source must be a base64url-encoded URL") }
        // The pipeline reads files too: a URL must never reach the server's own disk.
        let lowered = source.lowercased()
        guard lowered.hasPrefix("http://") || lowered.hasPrefix("https://") else {
            throw .malformed("source must be an http or https URL")
        }
        return source
    }
}

extension ThumbnailSize {
    /// `256` or `320x200`, as ``init(parsing:)`` reads it.
    var pathSegment: String {
        switch (maxWidth, maxHeight) {
        case let (width?, height?) where width == height: "\(width)"
        case let (width?, height?): "\(width)x\(height)"
        default: description
        }
    }
}
