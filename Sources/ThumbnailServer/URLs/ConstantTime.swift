/// Comparison whose duration does not depend on where two byte strings differ,
/// so that a client cannot find a valid signature one byte at a time by timing 403s.
package enum ConstantTime {
    /// Whether `a` and `b` are equal, looking at every byte of `b` whatever the contents.
    /// A length difference is not hidden (a signature's length is public).
    package static func equal(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        let left = Array(a)
        var difference: UInt8 = left.count == b.count ? 0 : 1
        for (index, byte) in b.enumerated() {
            difference |= byte ^ (index < left.count ? left[index] : ~byte)
        }
        return difference == 0
    }
}
