// An app that fetches from the web imports this one module and has the whole
// library: the pipeline, its requests and caches come from ThumbnailKit.
@_exported import ThumbnailKit
