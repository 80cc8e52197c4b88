import CThumbnail

/// What the decoder did about the colour space a file declares: an embedded ICC
/// profile (JPEG APP2, PNG iCCP) or a PNG's gAMA and cHRM.
///
/// The conversion to sRGB (LittleCMS, relative colorimetric) runs on the
/// finished thumbnail, so it costs the same for any size of original.
/// ``DecodeReport/colorProfile`` is `nil` when the file declares nothing (its
/// values are taken as sRGB) or when ``ThumbnailDecoder/convertsToSRGB`` is off.
public enum ColorConversion: Sendable, Hashable {
    /// The file declares sRGB (a PNG sRGB chunk, or a profile equal to sRGB to
    /// within half an 8-bit step): nothing needed converting.
    case alreadySRGB(profile: String)
    /// The thumbnail was converted to sRGB from `profile`: the ICC profile's
    /// description, or what stood for one ("PNG gAMA 1.00000").
    case converted(profile: String)
    /// The colour information could not be used, so the pixels are as stored:
    /// `reason` says why (an unreadable or oversized profile, one for another
    /// colour space, ICC markers out of sequence). `profile` is the description
    /// when the profile could be read.
    case ignored(profile: String?, reason: String)

    /// The profile's description, when it is known.
    public var profile: String? {
        switch self {
        case .alreadySRGB(let profile), .converted(let profile): profile
        case .ignored(let profile, _): profile
        }
    }

    init?(_ report: ct_color_report) {
        let profile = String(cCharacters: report.profile), note = String(cCharacters: report.note)
        switch report.status {
        case CT_COLOR_SRGB: self = .alreadySRGB(profile: profile)
        case CT_COLOR_CONVERTED: self = .converted(profile: profile)
        case CT_COLOR_IGNORED: self = .ignored(profile: profile.isEmpty ? nil : profile, reason: note)
        default: return nil
        }
    }
}
