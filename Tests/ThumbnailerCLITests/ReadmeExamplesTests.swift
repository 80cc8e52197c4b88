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
        for sample in samples {
            #expect(contents.values.contains(sample), "a README sample is no example file:\n\(sample)")
        }
        for (file, text) in contents.sorted(by: { $0.key < $1.key }) {
            #expect(samples.contains(text), "Sources/ThumbnailExamples/\(file) is not in the README as it is")
        }
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
