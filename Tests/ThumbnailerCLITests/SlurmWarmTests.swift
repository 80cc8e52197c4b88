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
    func aSlurmArrayJobWarmsEachImageOnceAndACancelledTaskResubmittedDoesOnlyItsRest() async throws {
        let cluster = try await SlurmCluster.start(in: temporary.path("slurm"))
        defer { cluster.stop() }
        let shared = try await S3TestStore.shared()
        let script = try cluster.batchScript(cacheDirectory: temporary.path("caches"))

        // A whole run: four tasks, each image fetched once, every object whole.
        let urls = try serveImages(400, under: "/a")
        let first = "s3://\(try await shared.makeBucket("slurm"))/fleet"
        let job = try await cluster.submit(["--array=0-3", script, server.url("/a/feed.json"), first], environment: shared.environment)
        #expect(try await cluster.waitUntilFinished(job, tasks: 4))
        let states = try await cluster.states(job)
        #expect(states == ["\(job)_0": "COMPLETED", "\(job)_1": "COMPLETED", "\(job)_2": "COMPLETED", "\(job)_3": "COMPLETED"],
                "\(states)")
        #expect(urls.indices.allSatisfy { server.requestCount("/a/images/\($0).png") == 1 })
        let store = try S3ObjectStore(configuration: .fromEnvironment(location: first, environment: shared.environment))
        let stored = try await storedObjects(store)
        #expect(stored.count == 400 && stored.unreadable.isEmpty)

        // Task 2 cancelled part way (the origin holds the second half of its images), then resubmitted alone.
        let gate = ResponseGate()
        let slice = WarmShard(index: 2, count: 4)!
        let second = "s3://\(try await shared.makeBucket("slurm"))/fleet"
        let secondURLs = try serveImages(400, under: "/b", holding: { index, url in
            slice.contains(url) && index >= 200 ? gate : nil
        })
        let mine = secondURLs.filter(slice.contains)
        let early = mine.filter { Int($0.split(separator: "/").last!.dropLast(4))! < 200 }
        #expect(!early.isEmpty && early.count < mine.count)
        let cancelled = try await cluster.submit(["--array=0-3", script, server.url("/b/feed.json"), second], environment: shared.environment)
        let secondStore = try S3ObjectStore(configuration: .fromEnvironment(location: second, environment: shared.environment))
        // Every image but task 2's held ones is stored before the task is cancelled.
        #expect(try await polling(for: .seconds(120)) {
            try await self.storedObjects(secondStore).count >= 400 - (mine.count - early.count)
        })
        try await cluster.cancel("\(cancelled)_2")
        #expect(try await cluster.waitUntilFinished(cancelled, tasks: 4))
        let cancelledStates = try await cluster.states(cancelled)
        #expect(cancelledStates["\(cancelled)_2"]?.hasPrefix("CANCELLED") == true
                && cancelledStates.values.filter { $0 == "COMPLETED" }.count == 3, "\(cancelledStates)")
        gate.open()

        let resubmitted = try await cluster.submit(["--array=2", script, server.url("/b/feed.json"), second], environment: shared.environment)
        #expect(try await cluster.waitUntilFinished(resubmitted, tasks: 1))
        let resubmittedStates = try await cluster.states(resubmitted)
        // (sacct names a one-task array by its job alone.)
        #expect(Array(resubmittedStates.values) == ["COMPLETED"], "\(resubmittedStates)")
        let summary = try cluster.output(of: resubmitted, task: 2)
        #expect(summary["shard"] as? String == "2/4" && summary["images"] as? Int == mine.count, "\(summary)")
        // What it had stored was skipped; only the rest was fetched.
        #expect(summary["alreadyCached"] as? Int == early.count && summary["fetched"] as? Int == mine.count - early.count,
                "\(summary)")
        let complete = try await storedObjects(secondStore)
        #expect(complete.count == 400 && complete.unreadable.isEmpty)
    }

    /// `count` numbered images under `prefix` and a feed of them; `holding` names a gate per image.
    func serveImages(_ count: Int, under prefix: String,
                     holding: (Int, String) -> ResponseGate? = { _, _ in nil }) throws -> [String] {
        let urls = (0..<count).map { server.url("\(prefix)/images/\($0).png") }
        for (index, url) in urls.enumerated() {
            var behavior = TestHTTPServer.Behavior(body: try NumberedImage.png(index))
            behavior.gate = holding(index, url)
            server.route("\(prefix)/images/\(index).png", behavior)
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

    /// The batch script: `warm FEED --store LOCATION --shard-count 4`, its task's index from Slurm.
    func batchScript(cacheDirectory: String) throws -> String {
        let path = "\(directory)/warm.sh"
        try """
            #!/bin/bash
            exec \(ChildProcess.thumbnailer) warm "$1" --store "$2" --shard-count 4 -s 32 --json \\
                --cache-dir "\(cacheDirectory)/$SLURM_ARRAY_JOB_ID-$SLURM_ARRAY_TASK_ID"
            """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// `sbatch --parsable` with `arguments`, each task's output in DIR/JOB_TASK.out; the job's id.
    func submit(_ arguments: [String], environment: [String: String]) async throws -> Int {
        let outcome = try await run("sbatch", ["--parsable", "--output=\(directory)/%A_%a.out"] + arguments,
                                    environment: environment)
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

    /// A task's standard output: warm's JSON summary.
    func output(of job: Int, task: Int) throws -> [String: Any] {
        let text = try String(contentsOfFile: "\(directory)/\(job)_\(task).out", encoding: .utf8)
        return (try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]) ?? ["output": text]
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
