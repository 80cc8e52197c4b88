import ArgumentParser
import CommandLineSupport
import ThumbnailServer

/// How much work `thumbnailer serve` takes on, and how long clients may cache
/// what it sends (``ThumbnailServer/Limits``).
struct ServeLimitOptions: ParsableArguments {
    @Option(help: "Renders (fetch and decode) at once (default: one per core).")
    var maxRenders: Int?

    @Option(help: "Requests waiting for a render; past this, 503 with Retry-After at once.")
    var maxQueue = ThumbnailServer.Limits().maximumQueue

    @Option(help: "Seconds a request may take before it is answered 504 and its work cancelled, or unlimited.")
    var deadline = Liftable<Double>.limit(10)

    @Option(help: "Bytes of encoded thumbnails kept in memory: 32M, 512K…")
    var memoryBudget = ByteCount(bytes: ThumbnailServer.Limits().memoryBudget)

    @Option(help: "Cache-Control max-age in seconds.")
    var maxAge = 86_400

    func validate() throws {
        if let maxRenders { try LimitOption.validate(maxRenders, "--max-renders") }
        guard maxQueue >= 0 else { throw ValidationError("--max-queue must not be negative") }
        if let seconds = deadline.value, !(seconds > 0 && seconds < 1e9) {
            throw ValidationError("--deadline must be more than 0 seconds, not \(seconds): say unlimited for no limit")
        }
        guard maxAge >= 0 else { throw ValidationError("--max-age must not be negative") }
    }

    var limits: ThumbnailServer.Limits {
        var limits = ThumbnailServer.Limits(maximumQueue: maxQueue, memoryBudget: memoryBudget.bytes)
        if let maxRenders { limits.maximumRenders = maxRenders }
        limits.deadline = deadline.value.map { .milliseconds(max(1, Int(($0 * 1000).rounded()))) }
        return limits
    }
}
