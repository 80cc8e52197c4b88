import Foundation

/// One row of `../shared/corpora/formats/MANIFEST.tsv`: a public WebP, GIF or
/// ICC-tagged file and what a decoder must do with it.
public struct FormatsCorpusEntry: Sendable, CustomStringConvertible {
    /// What the manifest's `expect` column asks.
    public enum Expectation: String, Sendable {
        /// The file must decode.
        case accept
        /// The file must fail with a typed error.
        case reject
        /// Decoding or a typed error are both fine; a crash, hang or limit breach is not.
        case either
        /// Not an input: the sRGB rendering other rows compare against.
        case reference
    }

    /// Path relative to the formats folder, such as `webp/lossless1.webp`.
    public let file: String
    /// What the file exercises, in words.
    public let exercises: String
    public let expect: Expectation
    /// For `icc/charts/*`: the sRGB reference rendering's path, relative to the formats folder.
    public let reference: String?

    public var description: String { file }

    /// The formats folder beside the checkout, or `nil` when it is not there.
    public static let folder: URL? = Fixtures.corpora.map { $0.appendingPathComponent("formats") }
        .flatMap { FileManager.default.fileExists(atPath: $0.appendingPathComponent("MANIFEST.tsv").path) ? $0 : nil }

    /// Every row of the manifest (empty when the corpus is absent).
    public static let all: [FormatsCorpusEntry] = {
        guard let folder,
              let manifest = try? String(contentsOf: folder.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8)
        else { return [] }
        return manifest.split(separator: "\n").dropFirst().compactMap { line in
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard columns.count >= 6, let expect = Expectation(rawValue: columns[5]) else { return nil }
            let reference = columns.count > 6 && !columns[6].isEmpty ? columns[6] : nil
            return FormatsCorpusEntry(file: columns[0], exercises: columns[4], expect: expect, reference: reference)
        }
    }()

    /// The rows whose file lies under `prefix` (`webp/`, `gif/`, `icc/`).
    public static func entries(under prefix: String) -> [FormatsCorpusEntry] {
        all.filter { $0.file.hasPrefix(prefix) }
    }

    /// The file's absolute path.
    public var path: String { FormatsCorpusEntry.folder!.appendingPathComponent(file).path }
}
