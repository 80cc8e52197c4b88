/// What a key press asks the list to do.
package enum Key: Sendable, Hashable {
    case up, down, pageUp, pageDown, top, bottom, retry, quit
    /// Any other printable key.
    case character(Character)
}
