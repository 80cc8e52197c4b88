import Foundation
import TestSupport
import Testing

/// Every Swift sample in the README is a file of Sources/ThumbnailExamples,
/// which every build compiles, so a sample that stops compiling breaks the
/// build, and a sample edited in one place only fails here.
@Suite struct ReadmeExamplesTests {
    let examples = Fixtures.packageRoot.appendingPathComponent("Sources/ThumbnailExamples")

    @Test func everySwiftSampleInTheReadmeIsAnExampleFileAndEveryExampleFileIsInTheReadme() throws {
        let readme = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let samples = swiftBlocks(in: readme)
        let files = try FileManager.default.contentsOfDirectory(atPath: examples.path).filter { $0.hasSuffix(".swift") }
        let contents = try Dictionary(uniqueKeysWithValues: files.map { file in
            (file, try String(contentsOf: examples.appendingPathComponent(file), encoding: .utf8))
        })
        #expect(!samples.isEmpty && !files.isEmpty)
        let strays = samples.filter { !contents.values.contains($0) }
        #expect(strays.isEmpty, "README samples that are no example file as they are:\n\(strays.joined(separator: "---\n"))")
        let unshown = contents.filter { !samples.contains($0.value) }.keys.sorted()
        #expect(unshown.isEmpty, "files of Sources/ThumbnailExamples not in the README as they are")
    }

    /// The text of each ```swift block, ending with its last line's newline.
    private func swiftBlocks(in markdown: String) -> [String] {
        var blocks: [String] = []
        var current: [Substring]?
        for line in markdown.split(separator: "\n", omittingEmptySubsequences: false) {
            if current == nil, line == "```swift" {
                current = []
            } else if let lines = current, line == "```" {
                blocks.append(lines.map { "\($0)\n" }.joined())
                current = nil
            } else {
                current?.append(line)
            }
        }
        return blocks
    }
}
