import ThumbnailKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where each thumbnail of `thumbnailer thumb` goes and in which format.
struct OutputPlan: Sendable {
    enum Destination: Sendable, Equatable {
        /// One input, one named file; the format follows its extension.
        case file(String, ImageFormat)
        /// Every input becomes `<directory>/<name>.<ext>`.
        case directory(String)
        /// Every input becomes `<name>_thumb.<ext>` beside it.
        case besideInputs
    }

    /// A usage problem found before any work starts.
    struct Problem: Error, CustomStringConvertible {
        let description: String
    }

    let destination: Destination
    /// The format asked for with --format; `nil` lets each thumbnail choose.
    let requestedFormat: ImageFormat?

    init(inputs: [String], output: String?, format: ImageFormat?) throws {
        requestedFormat = format
        guard !inputs.isEmpty else { throw Problem(description: "Give at least one input file.") }
        guard let output else {
            destination = .besideInputs
            return
        }
        var status = stat()
        let exists = stat(output, &status) == 0
        let isDirectory = exists && (status.st_mode & S_IFMT) == S_IFDIR
        if inputs.count > 1 || isDirectory || output.hasSuffix("/") {
            if exists && !isDirectory {
                throw Problem(description: "\(output) is a file; with several inputs -o must name a directory.")
            }
            try Self.checkDistinctNames(inputs)
            destination = .directory(output)
            return
        }
        let fileFormat = Self.format(ofPath: output)
        switch (fileFormat, format) {
        case (.some(let named), _) where !ThumbnailEncoder.writableFormats.contains(named):
            throw Problem(description: "Cannot write \(output): thumbnails are written as JPEG, PNG or WebP, not \(named.rawValue); name it .jpg, .jpeg, .png or .webp.")
        case (nil, nil):
            throw Problem(description: "Cannot tell the format of \(output): name it .jpg, .jpeg, .png or .webp, or pass --format.")
        case let (fromName?, asked?) where fromName != asked:
            throw Problem(description: "\(output) names a \(fromName.rawValue) file but --format is \(asked.rawValue).")
        default:
            destination = .file(output, fileFormat ?? format!)
        }
    }

    /// The output path and format for one input's thumbnail.
    func target(for input: String, thumbnail: Thumbnail, encoder: ThumbnailEncoder) -> (path: String, format: ImageFormat) {
        if case .file(let path, let format) = destination { return (path, format) }
        let format = requestedFormat ?? encoder.preferredFormat(for: thumbnail)
        let name = Self.stem(of: input)
        switch destination {
        case .directory(let directory):
            return ("\(directory.hasSuffix("/") ? directory : directory + "/")\(name).\(format.fileExtension)", format)
        default:
            return ("\(Self.directory(of: input))\(name)_thumb.\(format.fileExtension)", format)
        }
    }

    private static func checkDistinctNames(_ inputs: [String]) throws {
        var seen: [String: String] = [:]
        for input in inputs {
            let name = stem(of: input)
            if let earlier = seen[name], earlier != input {
                throw Problem(description: "\(earlier) and \(input) would both write \(name); rename one or run them separately.")
            }
            seen[name] = input
        }
    }

    private static func format(ofPath path: String) -> ImageFormat? {
        switch path.split(separator: ".").last?.lowercased() {
        case "jpg", "jpeg": .jpeg
        case "png": .png
        case "webp": .webp
        default: nil
        }
    }

    /// The file name without directory and last extension.
    static func stem(of path: String) -> String {
        let name = path.split(separator: "/", omittingEmptySubsequences: true).last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }

    /// The directory part of a path, with its trailing slash ("" for a bare name).
    private static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[...slash])
    }
}
