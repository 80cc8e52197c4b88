import Synchronization

/// The encodings the keeper makes of the thumbnails a rendition made, held
/// for callers that said beforehand that they want them (``claim(_:)``): a
/// server sending the format the keeper writes takes these bytes instead of
/// encoding the thumbnail a second time
/// (``ThumbnailPipeline/thumbnailAndKeptEncoding(for:)``). An encoding is let
/// go once it is written and no claim on its key remains.
final class KeptEncodings: Sendable {
    typealias Encoding = Task<[UInt8], any Error>

    private struct Entry {
        let id: UInt64
        let encoding: Encoding
        var isWritten = false
    }

    private struct State {
        var entries: [ThumbnailKey: Entry] = [:]
        var claims: [ThumbnailKey: Int] = [:]
        var nextID: UInt64 = 0
    }

    private let state = Mutex(State())

    /// Starts encoding `thumbnail` of `key` with `encoder`, in its preferred format.
    /// - Returns: the encoding, and its id for ``written(_:)``.
    func start(_ thumbnail: Thumbnail, of key: ThumbnailKey, with encoder: ThumbnailEncoder) -> (id: UInt64, encoding: Encoding) {
        let encoding = Encoding { try await BlockingWork.run { try encoder.encode(thumbnail) } }
        return state.withLock { state in
            state.nextID += 1
            state.entries[key] = Entry(id: state.nextID, encoding: encoding)
            return (state.nextID, encoding)
        }
    }

    /// Says that the caller will want `key`'s encoding: one made from now on is held for it.
    func claim(_ key: ThumbnailKey) {
        state.withLock { $0.claims[key, default: 0] += 1 }
    }

    /// Ends a ``claim(_:)``, taking `key`'s encoding if one was made.
    func unclaim(_ key: ThumbnailKey) -> Encoding? {
        state.withLock { state in
            let entry = state.entries[key]
            let remaining = (state.claims[key] ?? 1) - 1
            state.claims[key] = remaining > 0 ? remaining : nil
            if remaining <= 0, entry?.isWritten == true { state.entries[key] = nil }
            return entry?.encoding
        }
    }

    /// The encodings `started` are written: each goes unless a claim holds it (and a later one of its key stays).
    func written(_ started: [ThumbnailKey: UInt64]) {
        state.withLock { state in
            for (key, id) in started where state.entries[key]?.id == id {
                if state.claims[key] == nil {
                    state.entries[key] = nil
                } else {
                    state.entries[key]?.isWritten = true
                }
            }
        }
    }

    /// Keys whose encodings are held now.
    var heldCount: Int { state.withLock { $0.entries.count } }
}
