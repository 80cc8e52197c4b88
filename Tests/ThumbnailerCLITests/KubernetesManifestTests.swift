import Foundation
import TestSupport
import Testing

/// `scripts/fleet/kubernetes/`: no cluster and no schema validator can run here (kubectl validates
/// against a live API server), so these check what can be checked without one: the documents parse
/// (Debian's python3-yaml), they refer to each other correctly, the probes name the server's routes,
/// the grace period outlasts the drain, and the containers' arguments are ones the built binary
/// accepts (it gets past parsing and validation and stops at the store, which nobody configured).
@Suite(.enabled(if: PythonYAML.unavailableReason == nil, "\(PythonYAML.unavailableReason ?? "")"))
struct KubernetesManifestTests {

    let temporary: TemporaryDirectory

    init() throws {
        temporary = try TemporaryDirectory()
    }

    /// Every document of `scripts/fleet/kubernetes/NAME`, as JSON objects.
    static func documents(_ name: String) async throws -> [[String: Any]] {
        let path = Fixtures.packageRoot.appendingPathComponent("scripts/fleet/kubernetes/\(name)").path
        let read = try await ChildProcess.run(
            ["-c", "import json, sys, yaml; print(json.dumps(list(yaml.safe_load_all(open(sys.argv[1])))))", path],
            executable: PythonYAML.python, limits: .init(duration: .seconds(60)))
        guard read.status == 0 else { throw ManifestFailure("\(name) does not parse: \(read.standardError)") }
        return try JSONSerialization.jsonObject(with: Data(read.standardOutput.utf8)) as? [[String: Any]] ?? []
    }

    @Test func theServeDeploymentServiceAndAutoscalerFitTogetherAndTheServer() async throws {
        let documents = try await Self.documents("serve.yaml")
        let byKind = Dictionary(documents.map { ($0["kind"] as? String ?? "", $0) }, uniquingKeysWith: { first, _ in first })
        let deployment = try #require(byKind["Deployment"])
        let service = try #require(byKind["Service"])
        let autoscaler = try #require(byKind["HorizontalPodAutoscaler"])
        let name = try #require((deployment["metadata"] as? [String: Any])?["name"] as? String)

        let template = try #require((deployment["spec"] as? [String: Any])?["template"] as? [String: Any])
        let labels = (template["metadata"] as? [String: Any])?["labels"] as? [String: String]
        let pod = try #require(template["spec"] as? [String: Any])
        let container = try #require((pod["containers"] as? [[String: Any]])?.first)
        let arguments = try #require(container["args"] as? [String])
        let portName = ((container["ports"] as? [[String: Any]])?.first?["name"] as? String)
        for (probe, path) in [("readinessProbe", "/readyz"), ("livenessProbe", "/healthz")] {
            let get = (container[probe] as? [String: Any])?["httpGet"] as? [String: Any]
            #expect(get?["path"] as? String == path && get?["port"] as? String == portName, "\(probe)")
        }
        // The grace period outlasts the pause before SIGTERM and the drain after it.
        let drain = try #require(arguments.firstIndex(of: "--drain-timeout").flatMap { Int(arguments[$0 + 1]) })
        let preStop = ((container["lifecycle"] as? [String: Any])?["preStop"] as? [String: Any])?["exec"] as? [String: Any]
        let pause = try #require((preStop?["command"] as? [String])?.last.flatMap { Int($0) })
        let grace = try #require(pod["terminationGracePeriodSeconds"] as? Int)
        #expect(grace > drain + pause, "grace \(grace) s, pause \(pause) s, drain \(drain) s")

        let serviceSpec = service["spec"] as? [String: Any]
        #expect(serviceSpec?["selector"] as? [String: String] == labels)
        #expect(((serviceSpec?["ports"] as? [[String: Any]])?.first?["targetPort"] as? String) == portName)
        let target = (autoscaler["spec"] as? [String: Any])?["scaleTargetRef"] as? [String: Any]
        #expect(target?["kind"] as? String == "Deployment" && target?["name"] as? String == name)

        // The arguments are the binary's own: parsed and validated, then the unconfigured store stops it (2, not 64).
        let outcome = try await ChildProcess.run(
            replacing("--cache-dir", in: arguments, with: temporary.path("cache")),
            environment: ["THUMBNAILER_KEY": "00ff", "THUMBNAILER_SALT": "ff00", "AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": ""],
            limits: .init(duration: .seconds(60)))
        #expect(outcome.status == 2 && outcome.standardError.contains("store"), "\(outcome.summary)")
    }

    @Test func theWarmJobHasAsManyShardsAsCompletions() async throws {
        let job = try #require(try await Self.documents("warm-job.yaml").first)
        let spec = try #require(job["spec"] as? [String: Any])
        #expect(spec["completionMode"] as? String == "Indexed")
        let container = try #require((((spec["template"] as? [String: Any])?["spec"] as? [String: Any])?["containers"]
                as? [[String: Any]])?.first)
        let arguments = try #require(container["args"] as? [String])
        let shards = arguments.firstIndex(of: "--shard-count").flatMap { Int(arguments[$0 + 1]) }
        #expect(shards != nil && shards == spec["completions"] as? Int)
        let outcome = try await ChildProcess.run(
            arguments + ["--cache-dir", temporary.path("cache")],
            environment: ["JOB_COMPLETION_INDEX": "0", "AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": ""],
            limits: .init(duration: .seconds(60)))
        #expect(outcome.status == 2 && outcome.standardError.contains("store"), "\(outcome.summary)")

        // A shard that may finish on a run again (75) is retried; one that would fail the same way is not.
        let rules = try #require((spec["podFailurePolicy"] as? [String: Any])?["rules"] as? [[String: Any]])
        let failIndex = try #require(rules.first { $0["action"] as? String == "FailIndex" }?["onExitCodes"] as? [String: Any])
        let codes = try #require(failIndex["values"] as? [Int])
        #expect(failIndex["containerName"] as? String == container["name"] as? String && failIndex["operator"] as? String == "In")
        #expect(codes.contains(Int(outcome.status)) && codes.contains(1) && !codes.contains(75), "\(codes)")
        #expect(spec["backoffLimitPerIndex"] as? Int ?? 0 > 0, "FailIndex needs a per-index backoff limit")
    }

    private func replacing(_ option: String, in arguments: [String], with value: String) -> [String] {
        var arguments = arguments
        if let index = arguments.firstIndex(of: option) { arguments[index + 1] = value }
        return arguments
    }
}

/// Debian's Python with python3-yaml.
enum PythonYAML {
    static let python = "/usr/bin/python3"
    static let unavailableReason: String? = {
        let check = try? ChildProcess.run(["-c", "import yaml"], executable: python, limits: .init(duration: .seconds(60)))
        return check?.status == 0 ? nil : "the manifest tests need Debian's python3-yaml"
    }()
}

private struct ManifestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
