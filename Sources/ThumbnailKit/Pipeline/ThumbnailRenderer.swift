/// Makes every size of an original wanted at the time, each by a decode of
/// its own at that size, so a thumbnail's pixels are those it gets alone
/// whatever else is asked of the same original (a size scaled down from a
/// larger one's decode differs: another DCT scale, two area filters); sizes
/// that fit to the same dimensions share one (a fill never shares with a fit:
/// same dimensions, another picture). At most `limiter.limit` originals
/// at once, and of those that need a whole-image buffer of `largeDecodeBytes`
/// or more (progressive JPEGs), at most `largeLimiter.limit`.
struct ThumbnailRenderer: Sendable {
    let decoder: ThumbnailDecoder
    let limiter: PriorityLimiter
    let largeLimiter: PriorityLimiter
    let largeDecodeBytes: Int
    let statistics: StatisticsCounter
    /// The decodes running, counted around the decoder itself.
    let decodes = ConcurrencyGauge()

    /// Thumbnails of `original` for every size `wantedSizes` names once a decode slot is free.
    func render(_ original: Original.Body, wantedSizes: @escaping @Sendable () -> Set<ThumbnailSize>,
                priority: PriorityFollower) async throws -> [ThumbnailSize: Thumbnail] {
        // A header that cannot be read is the decode's to report.
        let header = try? await BlockingWork.run { [decoder] in try decoder.readHeader(of: original) }
        var sized = decoder
        sized.size = ThumbnailSize.union(of: wantedSizes())
        // Sizes wanted later may raise the scale past 1/8: the estimate is for the sizes wanted now.
        guard let header, sized.wholeImageBufferBytes(for: header) >= largeDecodeBytes else {
            return try await render(original, in: limiter, wantedSizes: wantedSizes, priority: priority)
        }
        let ticket = largeLimiter.makeTicket()
        priority.follow(with: ticket)
        return try await largeLimiter.run(priority: priority.current, ticket: ticket) {
            statistics.record { $0.largeDecodes += 1 }
            return try await render(original, in: limiter, wantedSizes: wantedSizes, priority: priority)
        }
    }

    private func render(_ original: Original.Body, in limiter: PriorityLimiter,
                        wantedSizes: () -> Set<ThumbnailSize>,
                        priority: PriorityFollower) async throws -> [ThumbnailSize: Thumbnail] {
        let ticket = limiter.makeTicket()
        priority.follow(with: ticket)
        return try await limiter.run(priority: priority.current, ticket: ticket) {
            // Read only now: sizes asked for while this waited are made too.
            var thumbnails: [ThumbnailSize: Thumbnail] = [:]
            var byDimensions: [Dimensions: Thumbnail] = [:]
            for size in wantedSizes() {
                var decoder = decoder
                decoder.size = size
                if let made = thumbnails.values.first {
                    let source = made.source
                    let fitted = decoder.appliesOrientation
                        ? size.fitting(width: source.orientedWidth, height: source.orientedHeight)
                        : size.fitting(width: source.width, height: source.height)
                    if let same = byDimensions[Dimensions(width: fitted.width, height: fitted.height, mode: size.mode)] {
                        thumbnails[size] = same
                        continue
                    }
                }
                let thumbnail = try await decodes.counting { try await decode(original, with: decoder) }
                statistics.record { $0.decodes += 1 }
                byDimensions[Dimensions(width: thumbnail.width, height: thumbnail.height, mode: size.mode)] = thumbnail
                thumbnails[size] = thumbnail
            }
            return thumbnails
        }
    }

    /// A thumbnail's size, after orientation, and how it was made: sizes of one
    /// mode that come to the same dimensions share a decode.
    private struct Dimensions: Hashable {
        let width: Int, height: Int
        let mode: ThumbnailSize.Mode
    }

    /// Decodes on a Dispatch thread; cancelling the task stops the decode between scanline batches.
    /// An original on disk streams through the decoder from its file; one in memory is read in place.
    private func decode(_ original: Original.Body, with decoder: ThumbnailDecoder) async throws -> Thumbnail {
        let cancellation = DecodeCancellation()
        return try await withTaskCancellationHandler {
            try await BlockingWork.run { try decoder.decode(original, cancellation: cancellation) }
        } onCancel: {
            cancellation.cancel()
        }
    }
}

extension ThumbnailDecoder {
    /// Decodes an original, wherever its bytes are.
    func decode(_ original: Original.Body, cancellation: DecodeCancellation) throws -> Thumbnail {
        switch original {
        case let .stored(entry): try decode(entry.payload, cancellation: cancellation)
        case let .downloaded(writer): try decode(writer.payload, cancellation: cancellation)
        case let .memory(bytes): try decode(bytes, cancellation: cancellation)
        }
    }

    /// The header of an original, wherever its bytes are.
    func readHeader(of original: Original.Body) throws -> ImageHeader {
        switch original {
        case let .stored(entry): try readHeader(entry.payload)
        case let .downloaded(writer): try readHeader(writer.payload)
        case let .memory(bytes): try readHeader(bytes)
        }
    }
}
