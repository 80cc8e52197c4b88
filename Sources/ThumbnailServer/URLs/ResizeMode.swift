/// How a thumbnail meets its box: the `{fit|fill}` segment of a thumbnail URL.
public enum ResizeMode: String, Sendable, Hashable {
    /// Scaled to fit inside the box, aspect ratio kept.
    case fit
    /// Scaled to cover the box and cropped to it, the centre kept.
    case fill
}
