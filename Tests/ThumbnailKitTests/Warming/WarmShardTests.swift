import Testing
import ThumbnailKit

/// Slices of a list by URL digest: every URL in exactly one slice, slices of
/// about equal size, the same answer in every process.
@Suite struct WarmShardTests {
    static let urls = (0..<20_000).map { "https://images.example.com/catalogue/\($0 * 7919 % 100_003).jpg" }

    @Test(arguments: [1, 2, 3, 4, 7, 16])
    func everyURLFallsInExactlyOneSliceAndTheSlicesAreEven(count: Int) {
        let shards = (0..<count).map { WarmShard(index: $0, count: count)! }
        var sizes = Array(repeating: 0, count: count)
        for url in Self.urls {
            let owners = shards.filter { $0.contains(url) }
            #expect(owners.count == 1, "\(url) in \(owners)")
            if let owner = owners.first { sizes[owner.index] += 1 }
        }
        // A uniform digest splits like fair dice: each slice within five standard deviations
        // (sqrt of the mean, at most 141 here) of the mean; a biased split is off by hundreds.
        let mean = Double(Self.urls.count) / Double(count)
        #expect(sizes.allSatisfy { abs(Double($0) - mean) < 5 * mean.squareRoot() }, "\(sizes)")
    }

    @Test func aSliceIsChosenByTheURLAloneAsAFixedDigestSaysSo() {
        // SHA-256("a") begins ca978112: 0.79 of the range, so slice 3 of 4 and slice 0 of 1.
        #expect(WarmShard(index: 3, count: 4)!.contains("a"))
        #expect(!WarmShard(index: 2, count: 4)!.contains("a"))
        #expect(WarmShard.all.contains("a"))
    }

    @Test func shardsParseAsIndexOverCountFromZero() {
        #expect(WarmShard(parsing: "0/4") == WarmShard(index: 0, count: 4))
        #expect(WarmShard(parsing: "3/4")?.description == "3/4")
        for text in ["4/4", "-1/4", "1/0", "1", "a/b", "1/2/3", ""] {
            #expect(WarmShard(parsing: text) == nil, "\(text)")
        }
    }
}
