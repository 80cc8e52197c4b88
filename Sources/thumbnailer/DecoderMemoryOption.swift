import ArgumentParser
import CommandLineSupport
import ThumbnailKit

/// `--max-decoder-memory`, for the commands that decode images.
struct DecoderMemoryOption: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Working memory one decode may use, e.g. 32M (default: 32 MiB); the thumbnail itself is not counted.",
        discussion: """
            A progressive JPEG's coefficients that do not fit go to a temporary file in $TMPDIR (or \
            /tmp). A WebP whose whole-frame buffers (a lossy frame's alpha plane, a lossless image) \
            need more is refused, naming the bytes it needs, as is an interlaced PNG or GIF whose \
            thumbnail's sums need more (32 bytes a pixel of an RGBA thumbnail: about 1000×1000 fit in 32 MiB).
            """))
    var maxDecoderMemory = ByteCount(bytes: DecodingLimits.default.maxDecoderMemory ?? 0)

    func validate() throws {
        guard maxDecoderMemory.bytes >= 1 else { throw ValidationError("--max-decoder-memory must be at least 1 byte") }
    }

    /// The default limits with this working memory.
    var limits: DecodingLimits {
        var limits = DecodingLimits.default
        limits.maxDecoderMemory = maxDecoderMemory.bytes
        return limits
    }
}
