/// Why an S3 request failed. A pipeline's ``/ThumbnailKit/ThumbnailError`` files it under `store`.
public enum S3Error: ObjectStoreError, Sendable, Hashable, CustomStringConvertible {
    /// The store is not configured well enough to ask it anything (credentials, metadata it cannot sign).
    case configuration(String)
    /// A store location (`s3://BUCKET/PREFIX`), or a key below it, that would not stay where it
    /// says: a `..` segment, an empty one, a control character, a bucket name that is none.
    case invalidLocation(String, reason: String)
    /// No answer: refused or reset connections, timeouts, DNS (the request, and libcurl's reason).
    case unreachable(String, reason: String)
    /// An answer other than success: the request, the HTTP status, and S3's error code and message when it sent them.
    case refused(String, status: Int, code: String?, message: String?)
    /// An answer of success whose document does not say what it must: the request, and what is wrong
    /// (a listing's object without a key, a size that is not a non-negative whole number, a key whose
    /// percent-encoding is broken). Nothing of it is used.
    case malformedAnswer(String, reason: String)

    /// The store says the credentials are wrong or may not do this: fixing it is the user's job,
    /// and retrying or going on with other images will not help.
    public var isAccessDenied: Bool {
        guard case let .refused(_, status, code, _) = self else { return false }
        return status == 401 || status == 403
            || ["InvalidAccessKeyId", "SignatureDoesNotMatch", "AccessDenied"].contains(code ?? "")
    }

    /// No answer, or a status a later attempt may not meet (``/ThumbnailKit/RetryPolicy/isTransient(status:)``:
    /// 408, 429, 5xx but 501 and 505).
    public var isTransient: Bool {
        switch self {
        case .unreachable: true
        case let .refused(_, status, _, _): RetryPolicy.isTransient(status: status)
        case .configuration, .invalidLocation, .malformedAnswer: false
        }
    }

    public var description: String {
        switch self {
        case let .configuration(reason):
            "object store: \(reason)"
        case let .invalidLocation(location, reason):
            "object store location \(Self.visible(location)) refused: \(reason)"
        case let .unreachable(request, reason):
            "object store unreachable: \(request): \(reason)"
        case let .refused(request, status, code, message):
            "object store refused \(request): HTTP \(status)" + (code.map { " \($0)" } ?? "")
                + (message.map { ": \($0)" } ?? "")
        case let .malformedAnswer(request, reason):
            "object store sent a malformed answer to \(request): \(Self.visible(reason))"
        }
    }

    /// C0 and C1 control characters and DEL: refused in a store location, escaped in a message. (Here,
    /// not in ``S3Configuration``, so that `scripts/fuzz.sh s3` builds this file without ThumbnailKit.)
    static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// `text` with control characters shown as `\xNN`, so that a message never carries one to a terminal.
    private static func visible(_ text: String) -> String {
        var shown = ""
        for scalar in text.unicodeScalars {
            guard Self.isControl(scalar) else {
                shown.unicodeScalars.append(scalar)
                continue
            }
            let hex = String(scalar.value, radix: 16, uppercase: true)
            shown += "\\x" + (hex.count < 2 ? "0" : "") + hex
        }
        return shown
    }
}
