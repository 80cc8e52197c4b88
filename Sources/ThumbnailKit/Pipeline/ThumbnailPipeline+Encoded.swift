import Logging

extension ThumbnailPipeline {
    /// Hands `body` the encoded thumbnail the disk tier, else the object
    /// store, holds for `key` in `format` (in whichever format it is stored
    /// when `nil`), as it is stored, without decoding it: what a server sends
    /// as it is. A disk file is read once, into the buffer `body` sees; `body`
    /// runs on a blocking-work thread and must copy what it keeps. One found
    /// in the object store is kept on disk too, as the pipeline's own reads
    /// keep it. Counted as a hit of its tier in ``statistics``.
    /// - Returns: what `body` made, or `nil` when neither holds one in `format`
    ///   (or a disk file cannot be read: logged, and then a miss).
    package func withStoredThumbnail<Result: Sendable>(
        for key: ThumbnailKey, in format: ImageFormat?,
        _ body: @escaping @Sendable (EncodedThumbnailFacts, UnsafeRawBufferPointer) -> Result
    ) async -> Result? {
        let tiers = tiers
        if let onDisk = tiers.stores.thumbnailsOnDisk {
            do {
                let found = try await BlockingWork.run { () -> Result? in
                    try onDisk.withEncoded(key) { facts, bytes -> Result? in
                        guard format == nil || facts.format == format else { return nil }
                        return body(facts, bytes)
                    } ?? nil
                }
                if let found {
                    tiers.statistics.record { $0.thumbnailDiskHits += 1 }
                    return found
                }
            } catch {
                configuration.logger.warning("a stored thumbnail could not be read",
                                             metadata: ["key": "\(key)", "error": "\(error)"])
            }
        }
        guard let inStore = tiers.stores.thumbnailsInStore, let (bytes, facts) = await inStore.encoded(key),
              format == nil || facts.format == format
        else { return nil }
        tiers.statistics.record { $0.objectStoreHits += 1 }
        tiers.keeper.keepOnDisk(bytes, source: facts.source, originLastModified: facts.originLastModified, of: key)
        return bytes.withUnsafeBytes { body(facts, $0) }
    }

    /// The thumbnail `request` asks for and, when a rendition made it just now
    /// and the keeper stores thumbnails, the bytes the keeper encodes it into
    /// (in the encoder's preferred format) for the disk tier and the store: a
    /// server sending that format takes them rather than encoding it again.
    /// `nil` bytes when the thumbnail came from a stored copy, nothing keeps
    /// thumbnails, or the encoding failed.
    /// - Throws: what ``thumbnail(for:progress:)`` throws.
    package func thumbnailAndKeptEncoding(for request: ThumbnailRequest) async throws -> (Thumbnail, [UInt8]?) {
        let encodings = tiers.keeper.encodings
        encodings.claim(request.key)
        let thumbnail: Thumbnail
        do {
            thumbnail = try await self.thumbnail(for: request)
        } catch {
            _ = encodings.unclaim(request.key)
            throw error
        }
        let encoding = encodings.unclaim(request.key)
        return (thumbnail, try? await encoding?.value)
    }
}

extension ThumbnailPipeline {
    /// For each group of keys, the facts of the original that the first of its thumbnails the disk
    /// tier holds records (`nil` when it holds none of them, or cannot read them): what a page can say
    /// of a source's size before anyone asks for its thumbnail. Reads the disk tier alone: nothing is
    /// fetched, decoded or counted as a hit.
    package func storedSources(of groups: [[ThumbnailKey]]) async -> [ImageHeader?] {
        guard let onDisk = tiers.stores.thumbnailsOnDisk else { return groups.map { _ in nil } }
        return await BlockingWork.run {
            groups.map { keys in
                keys.lazy.compactMap { key in (try? onDisk.withEncoded(key) { facts, _ in facts.source }) ?? nil }.first
            }
        }
    }
}
