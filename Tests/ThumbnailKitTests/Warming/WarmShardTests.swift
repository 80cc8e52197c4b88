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

    /// Fixed URLs in fixed slices, as SHA-256 places them (computed apart, with
    /// Python's hashlib): a per-process hash (`hashValue`) or another digest
    /// cannot pass by chance, as it could with one URL and few slices.
    static let pinned: [(url: String, of7: Int, of16: Int, of1000: Int)] = [
        ("https://images.example.com/catalogue/0.jpg", 0, 0, 24),
        ("https://images.example.com/catalogue/1.jpg", 4, 11, 714),
        ("https://images.example.com/catalogue/2.jpg", 3, 8, 543),
        ("https://images.example.com/catalogue/3.jpg", 6, 14, 924),
        ("https://images.example.com/catalogue/42.jpg", 6, 15, 971),
        ("https://images.example.com/catalogue/7919.jpg", 0, 0, 25),
        ("https://images.example.com/catalogue/99991.jpg", 1, 3, 242),
        ("https://images.example.com/catalogue/100002.jpg", 4, 9, 598),
    ]

    @Test(arguments: pinned.indices)
    func fixedURLsFallInFixedSlices(index: Int) {
        let (url, of7, of16, of1000) = Self.pinned[index]
        for (count, slice) in [(7, of7), (16, of16), (1000, of1000)] {
            let owners = (0..<count).filter { WarmShard(index: $0, count: count)!.contains(url) }
            #expect(owners == [slice], "\(url) of \(count)")
        }
    }

    @Test func shardsParseAsIndexOverCountFromZero() {
        #expect(WarmShard(parsing: "0/4") == WarmShard(index: 0, count: 4))
        #expect(WarmShard(parsing: "3/4")?.description == "3/4")
        for text in ["4/4", "-1/4", "1/0", "1", "a/b", "1/2/3", ""] {
            #expect(WarmShard(parsing: text) == nil, "\(text)")
        }
    }
}
