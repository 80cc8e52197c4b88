/// The tier that keeps what the rendering tier made: once the callers have
/// their thumbnails, the original and an encoded thumbnail per size are
/// written, as a write that ``StoredCopyWrites`` tracks (see ``CopyKeeper``).
struct KeepingTier: RenditionProviding {
    let next: any RenditionProviding
    let keeper: CopyKeeper

    func rendition(of request: RenditionRequest) async throws -> Rendition {
        let made = try await next.rendition(of: request)
        keeper.keep(made, of: request.url)
        return made
    }
}
