import Testing
import ThumbnailHTTP

/// Every range `HTTPDataLoader.AddressPolicy.publicOnly` refuses, each by its first and last
/// address and by its public neighbours just outside (where the neighbour is not in another
/// refused range), so that a range dropped, narrowed or widened fails its own row.
@Suite struct AddressPolicyTests {
    /// A refused range: its bounds, and the public addresses on either side of it (`nil` where
    /// the range touches another refused range or the end of the address space).
    struct Range: CustomTestStringConvertible, Sendable {
        let name: String
        let first: String
        let last: String
        let below: String?
        let above: String?

        var testDescription: String { name }
    }

    static let ipv4: [Range] = [
        Range(name: "0.0.0.0/8 this network", first: "0.0.0.0", last: "0.255.255.255", below: nil, above: "1.0.0.0"),
        Range(name: "10/8 private", first: "10.0.0.0", last: "10.255.255.255", below: "9.255.255.255", above: "11.0.0.0"),
        Range(name: "100.64/10 carrier-grade NAT", first: "100.64.0.0", last: "100.127.255.255",
              below: "100.63.255.255", above: "100.128.0.0"),
        Range(name: "127/8 loopback", first: "127.0.0.0", last: "127.255.255.255", below: "126.255.255.255", above: "128.0.0.0"),
        Range(name: "169.254/16 link-local", first: "169.254.0.0", last: "169.254.255.255",
              below: "169.253.255.255", above: "169.255.0.0"),
        Range(name: "172.16/12 private", first: "172.16.0.0", last: "172.31.255.255", below: "172.15.255.255", above: "172.32.0.0"),
        Range(name: "192.0.0/24 protocol assignments", first: "192.0.0.0", last: "192.0.0.255",
              below: "191.255.255.255", above: "192.0.1.0"),
        Range(name: "192.168/16 private", first: "192.168.0.0", last: "192.168.255.255",
              below: "192.167.255.255", above: "192.169.0.0"),
        Range(name: "198.18/15 benchmarking", first: "198.18.0.0", last: "198.19.255.255",
              below: "198.17.255.255", above: "198.20.0.0"),
        Range(name: "224/3 multicast, reserved, broadcast", first: "224.0.0.0", last: "255.255.255.255",
              below: "223.255.255.255", above: nil),
    ]

    static let ipv6: [Range] = [
        Range(name: "fc00::/7 unique local", first: "fc00::", last: "fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
              below: "fbff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", above: "fe00::"),
        Range(name: "fe80::/10 link-local", first: "fe80::", last: "febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
              below: "fe7f:ffff:ffff:ffff:ffff:ffff:ffff:ffff", above: nil),
        Range(name: "fec0::/10 site-local", first: "fec0::", last: "feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
              below: nil, above: nil),
        Range(name: "ff00::/8 multicast", first: "ff00::", last: "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", below: nil, above: nil),
    ]

    @Test(arguments: ipv4 + ipv6)
    func aRangeIsRefusedFromItsFirstToItsLastAddressAndNoFurther(range: Range) {
        #expect(HTTPDataLoader.AddressPolicy.isPrivate(range.first) == true, "\(range.first)")
        #expect(HTTPDataLoader.AddressPolicy.isPrivate(range.last) == true, "\(range.last)")
        for neighbour in [range.below, range.above].compactMap({ $0 }) {
            #expect(HTTPDataLoader.AddressPolicy.isPrivate(neighbour) == false, "\(neighbour), next to \(range.name)")
        }
    }

    /// IPv6 forms that carry an IPv4 address are judged as that address, in every IPv4 range:
    /// IPv4-compatible (`::a.b.c.d`), mapped (`::ffff:a.b.c.d`), NAT64 (`64:ff9b::a.b.c.d`) and
    /// 6to4 (`2002:aabb:ccdd::/48`).
    @Test(arguments: ipv4)
    func anIPv6AddressCarryingAnIPv4OneIsJudgedAsThatAddress(range: Range) throws {
        let cases = [(range.first, true), (range.last, true)] + [range.below, range.above].compactMap { $0 }.map { ($0, false) }
        for (address, refused) in cases {
            for disguised in ["::\(address)", "::ffff:\(address)", "64:ff9b::\(address)", try Self.sixToFour(address)] {
                #expect(HTTPDataLoader.AddressPolicy.isPrivate(disguised) == refused, "\(disguised) carries \(address)")
            }
        }
    }

    @Test func theUnspecifiedAndLoopbackAddressesAndPublicOnesOfEachForm() {
        for address in ["::", "::1", "0.0.0.0"] {
            #expect(HTTPDataLoader.AddressPolicy.isPrivate(address) == true, "\(address)")
        }
        for address in ["2606:4700::1111", "2001:4860:4860::8888", "2002:808:808::1", "::8.8.8.8", "1.1.1.1"] {
            #expect(HTTPDataLoader.AddressPolicy.isPrivate(address) == false, "\(address)")
        }
        for text in ["example.com", "", "10.0.0", "::g", "[::1]"] {
            #expect(HTTPDataLoader.AddressPolicy.isPrivate(text) == nil, "\(text)")
        }
    }

    /// The 6to4 address for `address`: 2002:aabb:ccdd::1.
    static func sixToFour(_ address: String) throws -> String {
        let octets = try address.split(separator: ".").map { try #require(UInt8($0)) }
        let hex = octets.map { String($0, radix: 16) }.map { $0.count == 1 ? "0" + $0 : $0 }
        return "2002:\(hex[0])\(hex[1]):\(hex[2])\(hex[3])::1"
    }
}
