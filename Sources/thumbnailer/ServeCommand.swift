import ArgumentParser
import CommandLineSupport
import Hummingbird
import Logging
import ServiceLifecycle
import ThumbnailHTTP
import ThumbnailKit
import ThumbnailServer
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `thumbnailer serve`: thumbnails over HTTP at imgproxy-style signed URLs
/// (``ThumbnailServer``), from the same tiers `warm` fills.
struct ServeCommand: AsyncParsableCommand, TunesAllocator {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve thumbnails over HTTP at signed URLs: GET /{signature}/{size}/{fit|fill}/{base64url(source)}[.jpg|.png|.webp].",
        discussion: """
            The signature is imgproxy's: base64url, without padding, of HMAC-SHA256(key, salt + path), \
            path being everything after the signature segment; key and salt are hex, from \
            THUMBNAILER_KEY and THUMBNAILER_SALT. With --port 0 a free port is chosen; the first \
            line on standard output is always `listening on http://HOST:PORT`; after it, one JSON \
            object per request (time, method, path, status, bytes, duration_ms, tier) unless \
            --no-access-log; status 499 is a request whose client hung up before its answer, \
            whose work was then cancelled. SIGTERM or SIGINT stops accepting, lets what is in flight finish for up \
            to --drain-timeout seconds and exits 0.

            With --feed, GET / is a web page that lists the feed (a virtualised list, or a grid \
            with ?view=grid, whose rows cancel their requests when they scroll away) and GET \
            /feed.json?offset=&limit= its items with signed thumbnail URLs.

            GET /healthz answers 200 while the process runs; GET /readyz 200 when the cache \
            directory can be written and the store (with --store) answers, else 503; GET /metrics \
            the counters, gauges and latency histograms in Prometheus's text format.

            Every option can come from the environment instead: THUMBNAILER_ and its name in \
            capitals with _ for -, e.g. THUMBNAILER_PORT=8080, THUMBNAILER_CACHE_DIR=/var/cache/thumbs, \
            THUMBNAILER_INSECURE_UNSIGNED=1 (a flag takes 1/true/yes or 0/false/no), \
            THUMBNAILER_ALLOW_SOURCE=*.example.com,images.example.org (a repeatable option takes a \
            comma-separated list). An option on the command line wins over its variable.

            Exit status: 0 after SIGTERM or SIGINT, 1 when the cache or the address cannot be used, \
            2 when the store or the --feed cannot be used, 64 on usage errors (no key and salt without --insecure-unsigned).
            """)

    /// A long-lived process: large blocks go back to the system when freed, two arenas serve every thread.
    static let workload = ProcessMemory.Workload.longLived

    @Option(help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(help: "The port to listen on; 0 picks a free one.")
    var port = 8080

    @Option(help: ArgumentHelp(
        "Seconds a connection may stay without a request before it is closed, counting a request whose headers are still coming.",
        discussion: "Keep it above the idle timeout of a load balancer in front (60 s by default on AWS's).",
        valueName: "seconds"))
    var idleTimeout = 75

    @Flag(help: "Accept unsigned URLs, whose signature segment is _. For development only: anyone can then make the server fetch anything.")
    var insecureUnsigned = false

    @Flag(help: "Allow sources whose host resolves to a loopback, private or link-local address (refused by default).")
    var privateAddresses = false

    @Option(help: ArgumentHelp(
        "Fetch only from source hosts matching this glob: images.example.org, *.example.com (any host below it) or *; repeatable. Default: any public host.",
        valueName: "glob"))
    var allowSource: [String] = []

    @OptionGroup var cache: CacheOptions

    @OptionGroup var store: StoreOptions

    @OptionGroup var limits: ServeLimitOptions

    @OptionGroup var listedFeed: ServedFeedOptions

    @OptionGroup var transfer: TransportOptions

    @OptionGroup var decoderMemory: DecoderMemoryOption

    @Option(help: "Seconds that requests in flight at SIGTERM or SIGINT may take to finish before the process exits 0 anyway (at least 1).")
    var drainTimeout = 10

    @Flag(help: "Write no access log on standard output.")
    var noAccessLog = false

    @Flag(help: "Log every request's pipeline work to stderr.")
    var verbose = false

    func validate() throws {
        try cache.validateUsable()
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535") }
        guard (1...86_400).contains(idleTimeout) else { throw ValidationError("--idle-timeout must be between 1 and 86400 seconds") }
        try LimitOption.validate(drainTimeout, "--drain-timeout", unit: "second")
        _ = try signing()
        _ = try allowList()
    }

    /// The source hosts `--allow-source` allows; `nil` without it (any host).
    private func allowList() throws -> SourceAllowList? {
        guard !allowSource.isEmpty else { return nil }
        do {
            return try SourceAllowList(patterns: allowSource)
        } catch {
            throw ValidationError("--allow-source: \(error)")
        }
    }

    /// Unsigned with `--insecure-unsigned`, else signed with the environment's key and salt.
    private func signing() throws -> SigningPolicy {
        if insecureUnsigned { return .unsigned }
        guard let key = getenv("THUMBNAILER_KEY").map({ String(cString: $0) }),
              let salt = getenv("THUMBNAILER_SALT").map({ String(cString: $0) })
        else { throw ValidationError("set THUMBNAILER_KEY and THUMBNAILER_SALT (hex), or pass --insecure-unsigned for development") }
        do {
            return .signed(try URLSigner(hexKey: key, hexSalt: salt))
        } catch {
            throw ValidationError("THUMBNAILER_KEY/THUMBNAILER_SALT: \(error)")
        }
    }

    func run() async throws {
        let signing = try signing()
        let allowList = try allowList()
        let metrics = ServeMetrics.bootstrap()  // before anything makes a metric
        let diskCache = try cache.open()
        let objectStore = try await store.open()
        var wiring = PipelineWiring(diskCache: diskCache,
                                    transport: transfer.transport(addressPolicy: privateAddresses ? .any : .publicOnly))
        wiring.apply(transfer)
        wiring.decoder = ThumbnailDecoder(limits: decoderMemory.limits)
        wiring.objectStore = objectStore
        wiring.keepsOriginalsInObjectStore = store.storeOriginals
        wiring.logger = Logger(label: "thumbnailer.serve.pipeline")
        wiring.logger.logLevel = verbose ? .debug : .critical
        // The server keeps encoded thumbnails in memory itself: decoded ones would cost 10x as much.
        wiring.memoryCostLimit = 0
        // A render needs at most one download: as many may run as renders may.
        wiring.maximumConcurrentDownloads = max(wiring.maximumConcurrentDownloads, limits.limits.maximumRenders)
        let pipeline = wiring.makePipeline()

        let thumbnails = ThumbnailServer(pipeline: pipeline, signing: signing, allowList: allowList,
                                         limits: limits.limits, maxAge: limits.maxAge)
        let page = try await listedFeed.page(thumbnails: thumbnails, transfer: transfer)
        let router = Router(context: ThumbnailRequestContext.self)
        if !noAccessLog {
            router.add(middleware: AccessLogMiddleware(logger: Logger(label: "thumbnailer.serve.access") { _ in JSONLineLogHandler() }))
        }
        router.add(middleware: RequestCountMiddleware())
        ServeMetrics.operations(registry: metrics, diskCache: diskCache, objectStore: objectStore, pipeline: pipeline)
            .addRoutes(to: router)  // /healthz, /readyz, /metrics: static paths, which the router prefers to the thumbnails' **
        page?.addRoutes(to: router)  // so are /, /feed.json, /list.js and /list.css
        thumbnails.addRoutes(to: router)
        var logger = Logger(label: "thumbnailer.serve")
        logger.logLevel = .warning
        let shownHost = host.contains(":") ? "[\(host)]" : host
        // The idle timeout also closes a client that sends its headers a byte at a time (slowloris):
        // a connection counts as active only once a whole request head has arrived.
        let application = Application(router: router,
                                      server: .http1(configuration: .init(additionalChannelHandlers: [thumbnails.hangUpHandler()],
                                                                          idleTimeout: .seconds(Int64(idleTimeout)))),
                                      configuration: ApplicationConfiguration(address: .hostname(host, port: port)),
                                      onServerRunning: { channel in
                                          print("listening on http://\(shownHost):\(channel.localAddress?.port ?? 0)")
                                          fflush(nil)  // every stream: a test or supervisor waits for this line
                                      },
                                      logger: logger)
        var configuration = ServiceGroupConfiguration(services: [application], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger)
        // Past the drain, what is still in flight is cancelled.
        configuration.maximumGracefulShutdownDuration = .seconds(drainTimeout)
        do {
            try await ServiceGroup(configuration: configuration).run()
        } catch {
            throw CommandFailure("cannot serve on \(shownHost):\(port): \(error)", exitCode: 1)
        }
    }
}
