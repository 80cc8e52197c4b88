/// The version of this package: its library products and the `thumbnailer` command share it.
///
/// Releases are tagged with it as it is (`0.9.0`, no `v`), the form SwiftPM resolves
/// `.package(url:from:)` against; `CHANGELOG.md` lists what each release changed. While the
/// major version is 0, a minor release may change public API and says how in the changelog.
public enum ThumbnailerVersion {
    /// `MAJOR.MINOR.PATCH` of this release.
    public static let current = "0.9.0"
}
