import Testing
@testable import ThumbnailFeeds

/// Reading JSON takes work in proportion to the document, however many members a container has: the
/// reader's own count of values and names moved as containers grow stays under one per byte of input.
/// (The reader before, which appended to a copy of each container, moved 5 000 050 001 for the 100 000
/// items and 799 980 000 for the 40 000 keys; issue #15 measured 608 s of CPU for a 1 MB array.)
@Suite struct JSONReaderWorkTests {
    /// `document` read with its work counted.
    static func read(_ document: String) throws -> (value: JSONValue, elementsMoved: Int) {
        var reader = JSONReader(Array(document.utf8))
        return (try reader.read(), reader.elementsMoved)
    }

    @Test func aJSONFeedOf100000ItemsTakesLinearWork() throws {
        let items = (0..<100_000).map { #"{"id":"\#($0)","image":"https://example.com/\#($0).jpg"}"# }
        let document = #"{"version":"https://jsonfeed.org/version/1.1","items":[\#(items.joined(separator: ","))]}"#
        let (value, elementsMoved) = try Self.read(document)
        guard case .object(let feed) = value, case .array(let elements)? = feed["items"] else {
            Issue.record("expected a feed object with an items array, got \(value.kindDescription)")
            return
        }
        #expect(elements.count == 100_000)
        #expect(elements.last == .object(["id": .string("99999"), "image": .string("https://example.com/99999.jpg")]))
        #expect(elementsMoved <= document.utf8.count)
    }

    @Test func aOneMegabyteArrayOfNumbersTakesLinearWork() throws {
        let document = "[" + Array(repeating: "1", count: 500_000).joined(separator: ",") + "]"
        #expect(document.utf8.count == 1_000_001)
        let (value, elementsMoved) = try Self.read(document)
        #expect(value == .array(Array(repeating: .number, count: 500_000)))
        #expect(elementsMoved <= document.utf8.count)
    }

    @Test func anObjectWith40000KeysTakesLinearWork() throws {
        let document = "{" + (0..<40_000).map { #""k\#($0)":\#($0)"# }.joined(separator: ",") + "}"
        let (value, elementsMoved) = try Self.read(document)
        guard case .object(let members) = value else {
            Issue.record("expected an object, got \(value.kindDescription)")
            return
        }
        #expect(members.count == 40_000)
        #expect(members["k39999"] == .number)
        #expect(elementsMoved <= document.utf8.count)
    }

    @Test func aRepeatedNameKeepsItsLastValue() throws {
        let (value, _) = try Self.read(#"{"a": 1, "b": [], "a": "last"}"#)
        #expect(value == .object(["a": .string("last"), "b": .array([])]))
    }
}
