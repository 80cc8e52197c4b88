import ArgumentParser
import CommandLineSupport
import ThumbnailKit

/// `--max-decoder-memory` and `--max-jxl-decoder-memory`, for the commands that decode images.
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

    @Option(name: .customLong("max-jxl-decoder-memory"), help: ArgumentHelp(
        "Working memory one JPEG XL decode may use (default: 256 MiB, images up to about 2 megapixels).",
        discussion: """
            libjxl ends the process when it runs out of memory, so a JPEG XL decode is admitted by \
            an upper bound of libjxl's memory estimated from the header, for the costliest kind of \
            file of that size: 182 MiB for 1920×1080, 995 MiB for 12 megapixels.
            """))
    var maxJPEGXLDecoderMemory = ByteCount(bytes: DecodingLimits.default.maxJPEGXLDecoderMemory ?? 0)

    func validate() throws {
        guard maxDecoderMemory.bytes >= 1 else { throw ValidationError("--max-decoder-memory must be at least 1 byte") }
        guard maxJPEGXLDecoderMemory.bytes >= 1 else {
            throw ValidationError("--max-jxl-decoder-memory must be at least 1 byte")
        }
    }

    /// The default limits with these working memories.
    var limits: DecodingLimits {
        var limits = DecodingLimits.default
        limits.maxDecoderMemory = maxDecoderMemory.bytes
        limits.maxJPEGXLDecoderMemory = maxJPEGXLDecoderMemory.bytes
        return limits
    }
}
