/// Comparison of secret byte strings without data-dependent early exits.
package enum ConstantTime {
    /// Whether `lhs` and `rhs` hold the same bytes. The running time depends on the lengths only,
    /// which are not secret (a stored hash's length is a property of its algorithm).
    package static func equal(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in lhs.indices {
            difference |= lhs[index] ^ rhs[index]
        }
        return difference == 0
    }
}
