import Foundation
import TestSupport
import Testing
import ThumbnailHTTP
import ThumbnailKit

/// `thumbnailer warm --store … --shard-count 4` as a Slurm array job (`sbatch --array=0-3`) on a
/// real single-node Slurm 22.05 (`scripts/slurm.sh`: MariaDB, slurmdbd, slurmctld and slurmd on
/// loopback), into the real S3-compatible store.
extension WarmShardStoreTests {
    static let needsSlurm = Testing.ConditionTrait.enabled(if: SlurmCluster.unavailableReason == nil,
                                                           "\(SlurmCluster.unavailableReason ?? "")")

    @Test(needsStore, needsSlurm, .timeLimit(.minutes(8)))
    func aSlurmArrayJobWarmsEachImageOnceRequeuesATransientFailureAndResubmitsACancelledTask() async throws {
        let cluster = try await SlurmCluster.start(in: temporary.path("slurm"))
        defer { cluster.stop() }
        let shared = try await S3TestStore.shared()
        try await aWholeArrayRunFetchesEachImageOnce(cluster, shared)
        try await aTaskThatFailsTransientlyIsRequeuedAndFetchesOnlyWhatFailed(cluster, shared)
        try await aCancelledTaskResubmittedDoesOnlyItsRest(cluster, shared)
    }

    /// Four tasks: each image fetched once, every object whole, `sacct` 4 × COMPLETED.
    private func aWholeArrayRunFetchesEachImageOnce(_ cluster: SlurmCluster, _ shared: S3TestStore) async throws {
        let urls = try serveImages(400, under: "/a")
        let location = "s3://\(try await shared.makeBucket("slurm"))/fleet"
        let job = try await cluster.submitWarm(array: "0-3", feed: server.url("/a/feed.json"), store: location,
                                               cacheDirectory: temporary.path("caches"), environment: shared.environment)
        #expect(try await cluster.waitUntilFinished(job, tasks: 4))
        let states = try await cluster.states(job)
        #expect(states == ["\(job)_0": "COMPLETED", "\(job)_1": "COMPLETED", "\(job)_2": "COMPLETED", "\(job)_3": "COMPLETED"],
                "\(states)")
        #expect(urls.indices.allSatisfy { server.requestCount("/a/images/\($0).png") == 1 })
        let store = try S3ObjectStore(configuration: .fromEnvironment(location: location, environment: shared.environment))
        let stored = try await storedObjects(store)
        #expect(stored.count == 400 && stored.unreadable.isEmpty)
    }

    /// Three images of task 1 answer 503 past warm's three attempts: the task exits 75, Slurm requeues
    /// it (`RequeueExit=75`), and its second run fetches those three and nothing else. One image of
    /// task 3 answers 503 for good: with `WARM_MAX_RESTARTS=1` the task is requeued once, then fails.
    private func aTaskThatFailsTransientlyIsRequeuedAndFetchesOnlyWhatFailed(_ cluster: SlurmCluster,
                                                                              _ shared: S3TestStore) async throws {
        let slice = WarmShard(index: 1, count: 4)!
        let names = (0..<200).map { server.url("/c/images/\($0).png") }
        let busy = Array(names.indices.filter { slice.contains(names[$0]) }.prefix(3))
        let down = try #require(names.indices.first { WarmShard(index: 3, count: 4)!.contains(names[$0]) })
        let unavailable = TestHTTPServer.Behavior(status: 503, body: Array("busy".utf8))
        let urls = try serveImages(200, under: "/c", answering: { index in
            busy.contains(index) ? [unavailable, unavailable, unavailable] : []
        })
        server.route("/c/images/\(down).png", unavailable)
        let location = "s3://\(try await shared.makeBucket("slurm"))/fleet"
        let job = try await cluster.submitWarm(array: "0-3", feed: server.url("/c/feed.json"), store: location,
                                               cacheDirectory: temporary.path("caches"),
                                               environment: shared.environment.merging(["WARM_MAX_RESTARTS": "1"]) { $1 })
        #expect(try await cluster.waitUntilFinished(job, tasks: 4))
        let runs = try await cluster.runs(job)
        #expect(runs["\(job)_1"] == ["REQUEUED 75:0", "COMPLETED 0:0"], "\(runs)")
        #expect(runs["\(job)_3"] == ["REQUEUED 75:0", "FAILED 1:0"], "\(runs)")
        #expect([0, 2].allSatisfy { runs["\(job)_\($0)"] == ["COMPLETED 0:0"] }, "\(runs)")
        for index in urls.indices {
            let expected = busy.contains(index) ? 4 : index == down ? 6 : 1
            #expect(server.requestCount("/c/images/\(index).png") == expected, "image \(index)")
        }
        let summaries = try cluster.summaries(of: job, task: 1)
        let mine = urls.filter(slice.contains).count
        #expect(summaries.count == 2, "\(summaries)")
        #expect(summaries.first?["failed"] as? Int == 3 && summaries.first?["failedTransiently"] as? Int == 3, "\(summaries)")
        #expect(summaries.last?["fetched"] as? Int == 3 && summaries.last?["alreadyCached"] as? Int == mine - 3, "\(summaries)")
        let store = try S3ObjectStore(configuration: .fromEnvironment(location: location, environment: shared.environment))
        let stored = try await storedObjects(store)
        #expect(stored.count == 199 && stored.unreadable.isEmpty)
    }

    /// Task 2 cancelled part way (the origin holds the second half of its images), then resubmitted alone.
    private func aCancelledTaskResubmittedDoesOnlyItsRest(_ cluster: SlurmCluster, _ shared: S3TestStore) async throws {
        let gate = ResponseGate()
        let slice = WarmShard(index: 2, count: 4)!
        let location = "s3://\(try await shared.makeBucket("slurm"))/fleet"
        let urls = try serveImages(400, under: "/b", holding: { index, url in
            slice.contains(url) && index >= 200 ? gate : nil
        })
        let mine = urls.filter(slice.contains)
        let early = mine.filter { Int($0.split(separator: "/").last!.dropLast(4))! < 200 }
        #expect(!early.isEmpty && early.count < mine.count)
        let submit = { (array: String) in
            try await cluster.submitWarm(array: array, feed: self.server.url("/b/feed.json"), store: location,
                                         cacheDirectory: self.temporary.path("caches"), environment: shared.environment)
        }
        let cancelled = try await submit("0-3")
        let store = try S3ObjectStore(configuration: .fromEnvironment(location: location, environment: shared.environment))
        // Every image but task 2's held ones is stored before the task is cancelled.
        #expect(try await polling(for: .seconds(120)) {
            try await self.storedObjects(store).count >= 400 - (mine.count - early.count)
        })
        try await cluster.cancel("\(cancelled)_2")
        #expect(try await cluster.waitUntilFinished(cancelled, tasks: 4))
        let cancelledStates = try await cluster.states(cancelled)
        #expect(cancelledStates["\(cancelled)_2"]?.hasPrefix("CANCELLED") == true
                && cancelledStates.values.filter { $0 == "COMPLETED" }.count == 3, "\(cancelledStates)")
        gate.open()

        let resubmitted = try await submit("2")
        #expect(try await cluster.waitUntilFinished(resubmitted, tasks: 1))
        let resubmittedStates = try await cluster.states(resubmitted)
        // (sacct names a one-task array by its job alone.)
        #expect(Array(resubmittedStates.values) == ["COMPLETED"], "\(resubmittedStates)")
        let summary = try cluster.summaries(of: resubmitted, task: 2).last ?? [:]
        #expect(summary["shard"] as? String == "2/4" && summary["images"] as? Int == mine.count, "\(summary)")
        // What it had stored was skipped; only the rest was fetched.
        #expect(summary["alreadyCached"] as? Int == early.count && summary["fetched"] as? Int == mine.count - early.count,
                "\(summary)")
        let complete = try await storedObjects(store)
        #expect(complete.count == 400 && complete.unreadable.isEmpty)
    }

    /// `count` numbered images under `prefix` and a feed of them; `holding` names a gate per image,
    /// and `answering` the answers an image's first requests get before the image.
    func serveImages(_ count: Int, under prefix: String,
                     holding: (Int, String) -> ResponseGate? = { _, _ in nil },
                     answering: (Int) -> [TestHTTPServer.Behavior] = { _ in [] }) throws -> [String] {
        let urls = (0..<count).map { server.url("\(prefix)/images/\($0).png") }
        for (index, url) in urls.enumerated() {
            var behavior = TestHTTPServer.Behavior(body: try NumberedImage.png(index))
            behavior.gate = holding(index, url)
            server.route("\(prefix)/images/\(index).png", answering(index) + [behavior])
        }
        server.route("\(prefix)/feed.json", .init(body: JSONFeed.listing(urls)))
        return urls
    }
}

/// A single-node Slurm started by `scripts/slurm.sh` in a directory of its own.
struct SlurmCluster {
    let directory: String
    let environment: [String: String]

    /// Why Slurm cannot run here, or `nil` when it can.
    static let unavailableReason: String? = {
        let tools = ["slurmctld", "slurmd", "slurmdbd", "sbatch", "sacct", "scancel", "mariadbd", "mariadb-install-db"]
        let missing = tools.filter { tool in
            !["/usr/bin", "/usr/sbin"].contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)") }
        }
        return missing.isEmpty ? nil
            : "the Slurm tests need \(missing.joined(separator: ", ")) (Debian: slurm-wlm slurmdbd mariadb-server); scripts/test.sh installs them"
    }()

    static func start(in directory: String) async throws -> SlurmCluster {
        let script = Fixtures.packageRoot.appendingPathComponent("scripts/slurm.sh").path
        let started = try await ChildProcess.run(["start", directory], executable: script, limits: .init(duration: .seconds(120)))
        guard started.status == 0 else { throw SlurmFailure("scripts/slurm.sh start failed: \(started.summary)") }
        return SlurmCluster(directory: directory, environment: ["SLURM_CONF": "\(directory)/slurm.conf"])
    }

    func stop() {
        let script = Fixtures.packageRoot.appendingPathComponent("scripts/slurm.sh").path
        _ = try? ChildProcess.run(["stop", directory], executable: script, limits: .init(duration: .seconds(60)))
    }

    /// `sbatch --array=ARRAY` of the shipped batch script (`scripts/fleet/slurm/warm-array.sh`):
    /// 4 shards of `FEED` into `STORE`, one 32-pixel size, the tasks sharing the disk cache in
    /// `cacheDirectory` (as tasks on one node would); each task's output in DIR/JOB_TASK.out.
    /// Returns the job's id.
    func submitWarm(array: String, feed: String, store: String, cacheDirectory: String,
                    environment: [String: String]) async throws -> Int {
        let script = Fixtures.packageRoot.appendingPathComponent("scripts/fleet/slurm/warm-array.sh").path
        let outcome = try await run("sbatch", ["--parsable", "--output=\(directory)/%A_%a.out", "--array=\(array)", script,
                                               "4", feed, store, "-s", "32", "--cache-dir", cacheDirectory],
                                    environment: environment.merging(["THUMBNAILER": ChildProcess.thumbnailer]) { $1 })
        guard outcome.status == 0, let job = Int(outcome.standardOutput.split(separator: ";").first?
            .trimmingCharacters(in: .whitespacesAndNewlines) ?? "")
        else { throw SlurmFailure("sbatch: \(outcome.summary)") }
        return job
    }

    func cancel(_ task: String) async throws {
        let outcome = try await run("scancel", [task])
        guard outcome.status == 0 else { throw SlurmFailure("scancel: \(outcome.summary)") }
    }

    /// Each task's state as `sacct` records it: `["12_0": "COMPLETED", …]`.
    func states(_ job: Int) async throws -> [String: String] {
        let outcome = try await run("sacct", ["-j", String(job), "-X", "-n", "-P", "--format=JobID,State"])
        return Dictionary(outcome.standardOutput.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: "|").map(String.init)
            return fields.count == 2 ? (fields[0], fields[1]) : nil
        }, uniquingKeysWith: { $1 })
    }

    /// Waits (up to 4 minutes) until `sacct` lists `tasks` tasks of `job`, none of them pending or running.
    func waitUntilFinished(_ job: Int, tasks: Int) async throws -> Bool {
        try await polling(for: .seconds(240)) {
            let states = try await states(job)
            return states.count == tasks && !states.values.contains { ["PENDING", "RUNNING", "REQUEUED", "COMPLETING"].contains($0) }
        }
    }

    /// Each run of each task, in order, as `sacct --duplicates` records them: `["12_1": ["REQUEUED 75:0", "COMPLETED 0:0"], …]`.
    func runs(_ job: Int) async throws -> [String: [String]] {
        let outcome = try await run("sacct", ["-j", String(job), "-X", "-D", "-n", "-P", "--format=JobID,State,ExitCode"])
        var runs: [String: [String]] = [:]
        for line in outcome.standardOutput.split(separator: "\n") {
            let fields = line.split(separator: "|").map(String.init)
            if fields.count == 3 { runs[fields[0], default: []].append("\(fields[1]) \(fields[2])") }
        }
        return runs
    }

    /// The summaries a task's runs printed (warm's `--json`, a line each; the script appends).
    func summaries(of job: Int, task: Int) throws -> [[String: Any]] {
        let text = try String(contentsOfFile: "\(directory)/\(job)_\(task).out", encoding: .utf8)
        return text.split(separator: "\n").map { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]) ?? ["output": String(line)]
        }
    }

    private func run(_ tool: String, _ arguments: [String], environment: [String: String] = [:]) async throws -> ChildProcess.Outcome {
        let path = ["/usr/bin/\(tool)", "/usr/sbin/\(tool)"].first { FileManager.default.isExecutableFile(atPath: $0) } ?? tool
        return try await ChildProcess.run(arguments, executable: path, environment: environment.merging(self.environment) { $1 },
                                          limits: .init(duration: .seconds(60)))
    }
}

private struct SlurmFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
