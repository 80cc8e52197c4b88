// Names the public API had before, kept so that an app written against them still compiles, with
// a warning that names what replaced each.

/// The HTTP loader before libcurl replaced URLSession. Its initializer now throws (libcurl may be
/// missing), and its configuration has no `maximumConnectionsPerHost`.
@available(*, deprecated, renamed: "HTTPDataLoader")
public typealias URLSessionDataLoader = HTTPDataLoader
