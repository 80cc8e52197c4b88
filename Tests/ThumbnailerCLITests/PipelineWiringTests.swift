import CommandLineSupport
import Logging
import TestSupport
import Testing
import ThumbnailHTTP

/// `PipelineWiring`, the one way the executables make a pipeline: what a
/// command leaves keeps the library's default, and every setting it gives
/// reaches the pipeline (the end-to-end suites then check what each does).
@Suite struct PipelineWiringTests {
    @Test func whatACommandLeavesKeepsTheLibrarysDefaults() throws {
        let configuration = PipelineWiring(diskCache: nil).makePipeline().configuration
        let defaults = ThumbnailPipeline.Configuration()

        let transport = try #require(((configuration.dataLoader as? SchemeRoutingDataLoader)?.network as? HTTPDataLoader)?.configuration)
        #expect(transport.addressPolicy == HTTPDataLoader.Configuration().addressPolicy)
        #expect(configuration.diskCache == nil && configuration.objectStore == nil && !configuration.keepsOriginalsInObjectStore)
        #expect(configuration.memoryCostLimit == defaults.memoryCostLimit)
        #expect(configuration.maximumConcurrentDownloads == defaults.maximumConcurrentDownloads)
        #expect(configuration.maximumConcurrentDecodes == defaults.maximumConcurrentDecodes)
        #expect(configuration.retryPolicy == defaults.retryPolicy)
        #expect(configuration.maximumDownloadBytes == defaults.maximumDownloadBytes)
        #expect(configuration.decoder.limits == defaults.decoder.limits)
        #expect(configuration.logger.label == defaults.logger.label)
    }

    @Test func everySettingACommandGivesReachesThePipeline() throws {
        let directory = try TemporaryDirectory()
        let store = try S3ObjectStore(configuration: S3Configuration(endpoint: "http://127.0.0.1:9", region: "r", bucket: "bucket",
                                                                     accessKeyID: "a", secretAccessKey: "s"))
        var wiring = PipelineWiring(diskCache: try DiskCache(directory: directory.path("cache")),
                                    transport: HTTPDataLoader.Configuration(lowSpeedLimit: 7, addressPolicy: .publicOnly),
                                    logger: Logger(label: "test.wiring"))
        wiring.objectStore = store
        wiring.keepsOriginalsInObjectStore = true
        wiring.memoryCostLimit = 0
        wiring.maximumConcurrentDownloads = 2
        wiring.maximumConcurrentDecodes = 3
        wiring.retryPolicy = RetryPolicy(maximumAttempts: 5)
        wiring.maximumDownloadBytes = 4567
        wiring.decoder = ThumbnailDecoder(limits: DecodingLimits(maxDecoderMemory: 1 << 20))
        let configuration = wiring.makePipeline().configuration

        let transport = try #require(((configuration.dataLoader as? SchemeRoutingDataLoader)?.network as? HTTPDataLoader)?.configuration)
        #expect(transport.addressPolicy == .publicOnly && transport.lowSpeedLimit == 7)
        #expect(configuration.diskCache?.directory == directory.path("cache"))
        #expect((configuration.objectStore as? S3ObjectStore) === store && configuration.keepsOriginalsInObjectStore)
        #expect(configuration.memoryCostLimit == 0)
        #expect(configuration.maximumConcurrentDownloads == 2 && configuration.maximumConcurrentDecodes == 3)
        #expect(configuration.retryPolicy == RetryPolicy(maximumAttempts: 5))
        #expect(configuration.maximumDownloadBytes == 4567)
        #expect(configuration.decoder.limits.maxDecoderMemory == 1 << 20)
        #expect(configuration.logger.label == "test.wiring")
    }
}
