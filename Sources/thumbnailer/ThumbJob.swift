import ThumbnailKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The result of one input of `thumbnailer thumb`.
struct ThumbOutcome: Sendable {
    struct Written: Sendable {
        let output: String
        let format: ImageFormat
        let thumbnail: Thumbnail
    }

    let input: String
    let result: Result<Written, any Error>
    let milliseconds: Double
}

/// Decodes, encodes and writes thumbnails for many inputs, one decode per core at a time.
struct ThumbJob: Sendable {
    let decoder: ThumbnailDecoder
    let encoder: ThumbnailEncoder
    let plan: OutputPlan
    /// How many inputs are processed at once. Default: the number of active cores.
    var parallelism = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))

    /// Outcomes in input order, each as soon as it and all before it are done.
    func run(_ inputs: [String]) -> AsyncStream<ThumbOutcome> {
        AsyncStream { continuation in
            let work = Task {
                await withTaskGroup(of: (Int, ThumbOutcome).self) { group in
                    var nextToStart = 0
                    func startNext() {
                        guard nextToStart < inputs.count else { return }
                        let index = nextToStart
                        nextToStart += 1
                        group.addTask { (index, process(inputs[index])) }
                    }
                    for _ in 0..<max(1, parallelism) { startNext() }
                    var finished = [ThumbOutcome?](repeating: nil, count: inputs.count)
                    var nextToReport = 0
                    for await (index, outcome) in group {
                        finished[index] = outcome
                        while nextToReport < inputs.count, let ready = finished[nextToReport] {
                            continuation.yield(ready)
                            finished[nextToReport] = nil
                            nextToReport += 1
                        }
                        startNext()
                    }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in work.cancel() }
        }
    }

    /// One input, start to finish. A failed input leaves no output file behind.
    func process(_ input: String) -> ThumbOutcome {
        let clock = ContinuousClock()
        let start = clock.now
        let result = Result<ThumbOutcome.Written, any Error> {
            let thumbnail = try decoder.decode(contentsOfFile: input)
            let target = plan.target(for: input, thumbnail: thumbnail, encoder: encoder)
            let bytes = try encoder.encode(thumbnail, as: target.format)
            try AtomicFile.write(bytes, to: target.path)
            return .init(output: target.path, format: target.format, thumbnail: thumbnail)
        }
        let elapsed = clock.now - start
        let milliseconds = elapsed.inSeconds * 1000
        return ThumbOutcome(input: input, result: result, milliseconds: milliseconds)
    }
}
