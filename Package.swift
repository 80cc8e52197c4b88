// swift-tools-version:6.0
import PackageDescription

/// Where libxml2's headers are, for the targets that include them (CLazyLibXML2, and ThumbnailFeeds,
/// whose XML parser uses libxml2's types). pkg-config knows too, but SwiftPM would then also link
/// libxml2 (see CLibXML2). Relative to the sysroot: / here, the SDK on macOS. These are unsafeFlags,
/// so they stay out of the library products (ThumbnailKit, ThumbnailHTTP): SwiftPM refuses a
/// versioned dependency on a product that has any. Tools that load ThumbnailFeeds without building
/// it are not given them (scripts/public-api.sh sets CPATH for the symbol graph extractor).
let libxml2Headers = ["-iwithsysroot", "/usr/include/libxml2"]

let package = Package(
    name: "Thumbnailer",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "ThumbnailKit", targets: ["ThumbnailKit"]),
        .library(name: "ThumbnailHTTP", targets: ["ThumbnailHTTP"]),
        .library(name: "ThumbnailServer", targets: ["ThumbnailServer"]),
        .executable(name: "thumbnailer", targets: ["thumbnailer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),  // LogEvent, which the tests' log handler takes
        .package(url: "https://github.com/x-sheep/swift-property-based", from: "2.0.0"),
        .package(url: "https://github.com/swift-extras/swift-extras-base64", from: "1.2.0"),  // kitty graphics payloads
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),  // thumbnailer serve
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),  // serve's /metrics
        .package(url: "https://github.com/apple/swift-metrics", from: "2.9.0"),  // Hummingbird's already; what serve records through
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),  // serve's header names; Hummingbird's too
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),  // swift package generate-documentation
    ],
    targets: [
        // The system codec libraries, found through pkg-config (giflib: see CGIF).
        .systemLibrary(
            name: "CJPEG",
            pkgConfig: "libjpeg",
            providers: [.apt(["libjpeg-dev"]), .brew(["jpeg-turbo"])]
        ),
        .systemLibrary(
            name: "CPNG",
            pkgConfig: "libpng",
            providers: [.apt(["libpng-dev"]), .brew(["libpng"])]
        ),
        .systemLibrary(
            name: "CWebP",
            pkgConfig: "libwebpdemux",
            providers: [.apt(["libwebp-dev"]), .brew(["webp"])]
        ),
        // giflib has no pkg-config file on every distribution (Ubuntu 22.04's has none): the module
        // map links it, and gif_lib.h is on the compiler's own path.
        .systemLibrary(
            name: "CGIF",
            providers: [.apt(["libgif-dev"]), .brew(["giflib"])]
        ),
        .systemLibrary(
            name: "CLCMS2",
            pkgConfig: "lcms2",
            providers: [.apt(["liblcms2-dev"]), .brew(["little-cms2"])]
        ),
        // libcurl's headers: the HTTP transport (CFetch) and its URL API (relative references, host
        // checks). Only the headers: libcurl is not linked but loaded on first use (CLazyCurl), so
        // no pkgConfig, whose `--libs` would link it into every process. curl.h is on the compiler's
        // own path (Debian and Ubuntu: /usr/include/<arch>/curl; macOS: the SDK).
        .systemLibrary(name: "CCurl"),
        // zlib, for the gzip and deflate Content-Encodings CFetch undoes itself (bounded, unlike
        // libcurl's decoding). Linked: libpng depends on it, so every process has it loaded anyway.
        .systemLibrary(
            name: "CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
        ),
        // libxml2's headers, for its SAX2 parser (RSS and Atom). Only the headers, for the same
        // reason: libxml2 is loaded on first use (CLazyLibXML2). They are in a directory of their
        // own, which the targets that include them add (`libxml2Headers`).
        .systemLibrary(name: "CLibXML2"),
        // Opens a shared library on first use and resolves the functions a caller lists.
        .target(
            name: "CLazyLibrary"
        ),
        // libcurl's functions, from libcurl.so.4 opened on first use: an HTTP client or a URL.
        .target(
            name: "CLazyCurl",
            dependencies: ["CCurl", "CLazyLibrary"]
        ),
        // libxml2's functions, from libxml2.so.2 opened on first use: an XML feed.
        .target(
            name: "CLazyLibXML2",
            dependencies: ["CLibXML2", "CLazyLibrary"],
            cSettings: [.unsafeFlags(libxml2Headers)]
        ),
        // GNU Nettle, for SHA-256 (cache file names and checksums): small, so it
        // costs a process next to nothing to load (OpenSSL's libcrypto cost 3.8 ms).
        .systemLibrary(
            name: "CNettle",
            pkgConfig: "nettle",
            providers: [.apt(["nettle-dev"]), .brew(["nettle"])]
        ),
        // The only code that includes the codec libraries' headers: decode + downscale in one pass,
        // then colour management on the thumbnail. The newer formats' libraries, libavif (on dav1d),
        // libheif (on libde265) and libjxl, are not linked but opened on first use
        // (ct_codec_libraries.h): linked, they would bring thirteen libraries into every process.
        // Their headers are on the compiler's own path (scripts/setup.sh installs them).
        .target(
            name: "CThumbnail",
            dependencies: ["CJPEG", "CPNG", "CWebP", "CGIF", "CLCMS2", "CLazyLibrary"],
            // CGIF has no pkg-config file to say so.
            linkerSettings: [.linkedLibrary("gif")]
        ),
        // Bounded HTTP transfers on one I/O thread, on libcurl's multi interface.
        .target(
            name: "CFetch",
            dependencies: ["CLazyCurl", "CZlib"]
        ),
        // Decoding, caches and the pipeline. Foundation-free: a process that
        // only makes thumbnails does not pay Foundation's start-up.
        .target(
            name: "ThumbnailKit",
            dependencies: ["CThumbnail", "CNettle", .product(name: "Logging", package: "swift-log")]
        ),
        // HTTP fetching on libcurl (CFetch): backpressure, hard limits, an address policy. No Foundation.
        // The way in for apps: re-exports ThumbnailKit and has `ThumbnailPipeline.shared`.
        .target(
            name: "ThumbnailHTTP",
            dependencies: ["ThumbnailKit", "CFetch", .product(name: "Logging", package: "swift-log")]
        ),
        // Thumbnails over HTTP with imgproxy-style signed URLs: routes an app mounts in its own
        // Hummingbird router, and what `thumbnailer serve` runs.
        .target(
            name: "ThumbnailServer",
            dependencies: ["ThumbnailKit", "ThumbnailHTTP", "CNettle",
                           .product(name: "Hummingbird", package: "hummingbird"),
                           .product(name: "Metrics", package: "swift-metrics"),
                           .product(name: "HTTPTypes", package: "swift-http-types"),
                           .product(name: "Prometheus", package: "swift-prometheus"),
                           .product(name: "ExtrasBase64", package: "swift-extras-base64")],
            // The web list's page, built into the module: a server is one file to deploy.
            resources: [.embedInCode("WebList/Resources/index.html"), .embedInCode("WebList/Resources/list.js"),
                        .embedInCode("WebList/Resources/list.css")]
        ),
        // The documentation's Swift samples (README, docs/, DocC articles), one file each, so that every build compiles them.
        .target(
            name: "ThumbnailExamples",
            dependencies: ["ThumbnailHTTP", "ThumbnailServer", .product(name: "Hummingbird", package: "hummingbird")]
        ),
        // Feed formats (JSON Feed, RSS, Atom, plain JSON) to image URLs. No
        // Foundation: its own JSON reader, libxml2 for XML, libcurl's URL API
        // for resolving image URLs.
        .target(
            name: "ThumbnailFeeds",
            dependencies: ["CLazyLibXML2", "CLazyCurl"],
            swiftSettings: [.unsafeFlags(libxml2Headers.flatMap { ["-Xcc", $0] })]
        ),
        // The terminal list front end's pieces: thumbnails as half-block cells, sixel images or
        // kitty graphics, a diffing screen buffer, key decoding, layout. No Foundation.
        .target(
            name: "ThumbnailTerminal",
            dependencies: ["ThumbnailKit", .product(name: "ExtrasBase64", package: "swift-extras-base64")]
        ),
        // The benchmark harness: a scripted scroll over a list, and what it saw.
        // For memory-profile and the tests, not a product for apps.
        .target(
            name: "ThumbnailBenchmarking",
            dependencies: ["ThumbnailKit"]
        ),
        // glibc's mallopt (the arena limit), which Swift's Glibc module does not expose.
        .target(
            name: "CMalloc"
        ),
        // What the executables share: sizes, byte counts, JSON lines, process memory, the pipeline wiring.
        .target(
            name: "CommandLineSupport",
            dependencies: ["ThumbnailKit", "ThumbnailHTTP", "ThumbnailTerminal", "CMalloc",
                           .product(name: "ArgumentParser", package: "swift-argument-parser"),
                           .product(name: "Logging", package: "swift-log")]
        ),
        // The command line: thumb, cache, warm, browse.
        .executableTarget(
            name: "thumbnailer",
            dependencies: [
                "ThumbnailKit", "ThumbnailHTTP", "ThumbnailFeeds", "ThumbnailTerminal", "CommandLineSupport",
                "ThumbnailServer",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        // One run of the memory benchmark: a scripted scroll under one strategy (scripts/memprofile.sh).
        .executableTarget(
            name: "memory-profile",
            dependencies: [
                "ThumbnailKit", "ThumbnailHTTP", "ThumbnailFeeds", "ThumbnailBenchmarking", "CommandLineSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Throughput of the memory and disk caches (scripts/bench-caches.sh).
        .executableTarget(
            name: "cache-benchmark",
            dependencies: ["ThumbnailKit"]
        ),
        // Fixtures, reference images and a child-process runner shared by the test targets.
        .target(
            name: "TestSupport",
            dependencies: ["ThumbnailKit", "CZlib"],
            path: "Tests/TestSupport"
        ),
        // A child process the disk-cache tests kill, limit and run side by side.
        .executableTarget(
            name: "cache-torture",
            dependencies: ["ThumbnailKit"],
            path: "Tests/CacheTorture"
        ),
        .testTarget(
            name: "ThumbnailKitTests",
            dependencies: [
                "ThumbnailKit", "ThumbnailHTTP", "ThumbnailBenchmarking", "TestSupport", "cache-torture",
                .product(name: "PropertyBased", package: "swift-property-based"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "ThumbnailTerminalTests",
            dependencies: ["ThumbnailTerminal", "ThumbnailKit", "TestSupport"]
        ),
        .testTarget(
            name: "ThumbnailServerTests",
            dependencies: ["ThumbnailServer", "ThumbnailKit",
                           .product(name: "Metrics", package: "swift-metrics"),
                           .product(name: "Prometheus", package: "swift-prometheus")]
        ),
        .testTarget(
            name: "ThumbnailFeedsTests",
            dependencies: ["ThumbnailFeeds", "TestSupport"]
        ),
        // End to end: runs the built `thumbnailer` and `memory-profile` binaries as child processes.
        .testTarget(
            name: "ThumbnailerCLITests",
            dependencies: ["thumbnailer", "memory-profile", "TestSupport", "ThumbnailKit", "ThumbnailHTTP", "CommandLineSupport",
                           "ThumbnailServer",
                           .product(name: "Logging", package: "swift-log")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
