/// Blowfish (Schneier, 1993) with the expensive key schedule "Eksblowfish" that bcrypt is built on
/// (Provos and Mazières, "A Future-Adaptable Password Scheme", 1999).
struct Blowfish {
    /// The 18-word P-array followed by the four 256-word S-boxes.
    private var state: [UInt32]

    private static let sBoxOffset = 18
    private static let stateWords = 18 + 4 * 256

    /// Eksblowfish's setup: the initial state, one salted key expansion, then 2^cost rounds of
    /// expanding alternately with the key and with the salt, each without salting.
    init(cost: Int, salt: [UInt8], key: [UInt8]) {
        state = Self.initialP + Self.initialS
        state.withUnsafeMutableBufferPointer { state in
            Self.expand(state, key: key, salt: salt)
            for _ in 0..<(1 << cost) {
                Self.expand(state, key: key, salt: [])
                Self.expand(state, key: salt, salt: [])
            }
        }
    }

    /// Encrypts `blocks` (pairs of big-endian words, left half first) in ECB mode, in place.
    func encrypt(_ blocks: inout [UInt32]) {
        state.withUnsafeBufferPointer { state in
            for index in stride(from: 0, to: blocks.count, by: 2) {
                var (left, right) = (blocks[index], blocks[index + 1])
                Self.encipher(&left, &right, state)
                (blocks[index], blocks[index + 1]) = (left, right)
            }
        }
    }

    /// One Blowfish block encryption: 16 Feistel rounds and the output whitening.
    private static func encipher(
        _ left: inout UInt32, _ right: inout UInt32, _ state: UnsafeBufferPointer<UInt32>
    ) {
        var l = left
        var r = right
        for round in stride(from: 0, to: 16, by: 2) {
            l ^= state[round]
            r ^= feistel(l, state)
            r ^= state[round + 1]
            l ^= feistel(r, state)
        }
        left = r ^ state[17]
        right = l ^ state[16]
    }

    /// F(x) = ((S1[a] + S2[b]) ⊕ S3[c]) + S4[d], where a…d are the bytes of x, most significant first.
    @inline(__always)
    private static func feistel(_ x: UInt32, _ state: UnsafeBufferPointer<UInt32>) -> UInt32 {
        let a = state[sBoxOffset + Int(x >> 24)]
        let b = state[sBoxOffset + 256 + Int((x >> 16) & 0xFF)]
        let c = state[sBoxOffset + 512 + Int((x >> 8) & 0xFF)]
        let d = state[sBoxOffset + 768 + Int(x & 0xFF)]
        return ((a &+ b) ^ c) &+ d
    }

    /// Eksblowfish's ExpandKey: XOR the key (cycled) into the P-array, then replace the whole state
    /// pairwise by successive encryptions of a running block, which is first XORed with the next
    /// 64 bits of the cycled salt when a salt is given.
    private static func expand(_ state: UnsafeMutableBufferPointer<UInt32>, key: [UInt8], salt: [UInt8]) {
        var keyPosition = 0
        for index in 0..<18 {
            state[index] ^= nextWord(key, &keyPosition)
        }
        var saltPosition = 0
        var left: UInt32 = 0
        var right: UInt32 = 0
        let readOnly = UnsafeBufferPointer(state)
        for index in stride(from: 0, to: stateWords, by: 2) {
            if !salt.isEmpty {
                left ^= nextWord(salt, &saltPosition)
                right ^= nextWord(salt, &saltPosition)
            }
            encipher(&left, &right, readOnly)
            state[index] = left
            state[index + 1] = right
        }
    }

    /// The next four bytes of `bytes` read cyclically as a big-endian word.
    @inline(__always)
    private static func nextWord(_ bytes: [UInt8], _ position: inout Int) -> UInt32 {
        var word: UInt32 = 0
        for _ in 0..<4 {
            word = word << 8 | UInt32(bytes[position])
            position = position + 1 == bytes.count ? 0 : position + 1
        }
        return word
    }
}
