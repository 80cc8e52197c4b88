import ArgumentParser
import CommandLineSupport
import ThumbnailKit

/// `thumbnailer thumb INPUT...`: thumbnails of local JPEG, PNG, WebP, GIF, AVIF, HEIC and JPEG XL files.
struct ThumbCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumb",
        abstract: "Make thumbnails of JPEG, PNG, WebP, GIF, AVIF, HEIC and JPEG XL files.",
        discussion: """
            One input and -o FILE writes that file (format from its extension). Several inputs and \
            -o DIR write DIR/<name>.jpg, or .png when the thumbnail has alpha. Without -o each \
            thumbnail lands beside its input as <name>_thumb.jpg or .png. Exit status: 0 when \
            every input succeeded, 1 when any failed (one line on stderr each), 64 on usage errors. \
            An image damaged at its source (a whole JPEG with bad data) succeeds, drawn as browsers \
            draw it, with a warning line on stderr. A GIF's or an animated WebP's first frame is the \
            thumbnail; thumbnails are written as JPEG, PNG or WebP (-o NAME.webp or --format webp).
            """)

    @Argument(help: "JPEG, PNG, WebP, GIF, AVIF, HEIC or JPEG XL files (the format is read from their bytes, not their names).")
    var inputs: [String]

    @Option(name: [.short, .long], help: "Box to fit in: N for N×N, or WxH; fill:N or fill:WxH to fill it exactly (scaled to cover, the centre kept).")
    var size: ThumbnailSize = .fit(256)

    @Option(name: [.short, .long], help: "Output file (one input) or directory (several inputs).")
    var output: String?

    @Option(help: "Output format: jpeg, png or webp (default: png when the thumbnail has alpha, else jpeg).")
    var format: ImageFormat?

    @Option(help: "JPEG quality, 1 to 100.")
    var quality: Int = 85

    @Option(help: ArgumentHelp(
        "How far a progressive JPEG's decode may specialise: libjpeg, skipping-scans or dc-only.",
        discussion: "Each path falls back to the one before it where it does not apply (dc-only needs a 1/8 scale)."))
    var progressivePath: JPEGDecodePath = .dcOnly

    @OptionGroup var decoderMemory: DecoderMemoryOption

    @Flag(help: "Print one JSON object per input instead of a line of text.")
    var json = false

    func validate() throws {
        guard (1...100).contains(quality) else {
            throw ValidationError("--quality must be between 1 and 100, not \(quality).")
        }
        _ = try outputPlan()
    }

    func run() async throws {
        let plan = try outputPlan()
        if case .directory(let directory) = plan.destination {
            try AtomicFile.createDirectory(directory)
        }
        let job = ThumbJob(
            decoder: ThumbnailDecoder(size: size, limits: decoderMemory.limits, progressivePath: progressivePath),
            encoder: ThumbnailEncoder(jpegQuality: quality),
            plan: plan)
        let reporter = ThumbReporter(json: json)
        var failures = 0
        for await outcome in job.run(inputs) {
            if case .failure = outcome.result { failures += 1 }
            reporter.report(outcome)
        }
        if failures > 0 { throw ExitCode.failure }
    }

    private func outputPlan() throws -> OutputPlan {
        do {
            return try OutputPlan(inputs: inputs, output: output, format: format)
        } catch let error as OutputPlan.Problem {
            throw ValidationError(error.description)
        }
    }
}

/// `--format` takes the formats thumbnails are written in, not every format read.
extension ImageFormat: ExpressibleByArgument {
    public init?(argument: String) {
        guard let format = ImageFormat(rawValue: argument), ThumbnailEncoder.writableFormats.contains(format)
        else { return nil }
        self = format
    }

    public static var allValueStrings: [String] { ThumbnailEncoder.writableFormats.map(\.rawValue) }
}
extension JPEGDecodePath: ExpressibleByArgument {}
