import Synchronization

/// Which images this process stored or found in the disk cache, and how many
/// of them it then evicted to make room for others: what tells `warm` that
/// the feed it cached is no longer all cached (see ``DiskCache/imageEvictions``).
///
/// An image is its original and its thumbnails, whose entries name the same
/// URL. It counts once, at the first of its entries this process evicts: a
/// thumbnail's eviction counts while its original is still followed and not
/// yet counted (then the original is marked), an original's eviction counts
/// unless one of its thumbnails was counted first. A thumbnail whose original
/// is gone counts nothing: that image was counted when its original went, or
/// its original was never stored (a failure reported on its own).
///
/// Memory: one record per followed entry, dropped when this process evicts
/// or removes it, so no more records than the entries the run touched and
/// the cache still holds (the index keeps as many).
final class ImageEvictionTracker: Sendable {
    private enum Role {
        /// An original; `counted` once its image was counted as evicted.
        case original(counted: Bool)
        /// A thumbnail of the original with this id.
        case thumbnail(ofOriginal: String)
    }

    private struct Followed {
        var role: Role
        var bytes: Int
    }

    private struct State {
        var followed: [String: Followed] = [:]
        var evictions = DiskCache.ImageEvictions()
    }

    private let state = Mutex(State())

    /// Follows the entry `id` of the image whose original has the id
    /// `originalID`, occupying `bytes` on disk.
    func follow(_ id: String, ofOriginal originalID: String, bytes: Int) {
        state.withLock { Self.follow(id, ofOriginal: originalID, bytes: bytes, in: &$0) }
    }

    private static func follow(_ id: String, ofOriginal originalID: String, bytes: Int, in state: inout State) {
        let previous = state.followed[id]
        state.evictions.bytesNeeded += bytes - (previous?.bytes ?? 0)
        let role: Role = id == originalID ? previous?.role ?? .original(counted: false) : .thumbnail(ofOriginal: originalID)
        state.followed[id] = Followed(role: role, bytes: bytes)
    }

    /// The entry `id` was evicted by this process to make room.
    func evicted(_ id: String) {
        state.withLock { state in
            guard let entry = state.followed.removeValue(forKey: id) else { return }
            switch entry.role {
            case .original(counted: false):
                state.evictions.images += 1
            case .original(counted: true):
                break
            case let .thumbnail(originalID):
                guard case .original(counted: false)? = state.followed[originalID]?.role else { return }
                state.followed[originalID]?.role = .original(counted: true)
                state.evictions.images += 1
            }
        }
    }

    /// The entry `id` was removed for another reason (damaged, removed on
    /// request): it no longer counts towards the bytes needed.
    func removed(_ id: String) {
        state.withLock { state in
            guard let entry = state.followed.removeValue(forKey: id) else { return }
            state.evictions.bytesNeeded -= entry.bytes
        }
    }

    var evictions: DiskCache.ImageEvictions { state.withLock { $0.evictions } }
}
