import Foundation
import TestSupport
import Testing

/// Every Swift sample in the documentation (README.md, every docs/*.md and the
/// articles of the DocC catalogs under Sources/) is a
/// file of Sources/ThumbnailExamples, which every build compiles, or the adopter
/// package's program, which AdopterPackageTests builds: a sample that stops
/// compiling fails the build or that test, and a sample edited in one place only
/// fails here. Every such file is shown in one of those documents.
@Suite struct ReadmeExamplesTests {
    let examples = Fixtures.packageRoot.appendingPathComponent("Sources/ThumbnailExamples")
    let adopter = "Tests/AdopterPackage/Sources/Adopter/main.swift"

    @Test func everySwiftSampleInTheDocsIsAnExampleFileAndEveryExampleFileIsInTheDocs() throws {
        let samples = try documents().flatMap { try swiftBlocks(in: String(contentsOf: $0, encoding: .utf8)) }
        let files = try FileManager.default.contentsOfDirectory(atPath: examples.path).filter { $0.hasSuffix(".swift") }
        var contents = try Dictionary(uniqueKeysWithValues: files.map { file in
            (file, try String(contentsOf: examples.appendingPathComponent(file), encoding: .utf8))
        })
        contents[adopter] = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent(adopter), encoding: .utf8)
        #expect(!samples.isEmpty && !files.isEmpty)
        let strays = samples.filter { !contents.values.contains($0) }
        #expect(strays.isEmpty, "samples in the docs that are no example file as they are:\n\(strays.joined(separator: "---\n"))")
        let unshown = contents.filter { !samples.contains($0.value) }.keys.sorted()
        #expect(unshown.isEmpty, "example files not in the README or docs/ as they are: \(unshown)")
    }

    /// README.md, the Markdown files of docs/ and the articles of every `Sources/*/*.docc`, which must exist.
    private func documents() throws -> [URL] {
        let docs = Fixtures.packageRoot.appendingPathComponent("docs")
        let pages = try FileManager.default.contentsOfDirectory(atPath: docs.path).filter { $0.hasSuffix(".md") }.sorted()
        #expect(!pages.isEmpty, "no Markdown files in \(docs.path)")
        let sources = Fixtures.packageRoot.appendingPathComponent("Sources")
        let articles = try FileManager.default.contentsOfDirectory(atPath: sources.path).sorted().flatMap { module in
            let catalog = sources.appendingPathComponent("\(module)/\(module).docc")
            let names = (try? FileManager.default.contentsOfDirectory(atPath: catalog.path)) ?? []
            return names.filter { $0.hasSuffix(".md") }.sorted().map { catalog.appendingPathComponent($0) }
        }
        #expect(articles.count >= 3, "the DocC catalogs' articles: \(articles.map(\.lastPathComponent))")
        return [Fixtures.packageRoot.appendingPathComponent("README.md")] + pages.map { docs.appendingPathComponent($0) } + articles
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
