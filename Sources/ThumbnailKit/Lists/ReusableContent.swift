/// What a ``ListCell`` shows besides its title, kept across reuse: the row
/// that gets the cell next starts from a clean slate.
@MainActor public protocol ReusableContent: AnyObject {
    /// Stops whatever a previous row started (its load) and forgets what it showed.
    func prepareForReuse()
}
