/// Argon2 (RFC 9106): the memory-hard password hash, in its three variants and two versions.
///
/// Lanes are filled one after another on the calling thread; the result is the same as with
/// parallel lanes, only slower.
enum Argon2 {
    /// The variant, with its type number y.
    enum Variant: UInt32 {
        /// Data-dependent addressing throughout.
        case d = 0
        /// Data-independent addressing throughout.
        case i = 1
        /// Data-independent for the first half of the first pass, then data-dependent.
        case id = 2
    }

    /// The version number v. Version 0x13 XORs each block of the second and later passes into
    /// its previous value; version 0x10 overwrites it.
    enum Version: UInt32 {
        case v10 = 0x10
        case v13 = 0x13
    }

    /// 1 KiB blocks of 128 little-endian 64-bit words.
    private static let blockWords = 128
    /// Slices per pass (the synchronization points of the lanes).
    private static let slices = 4

    /// The `tagLength`-byte tag. The caller checks RFC 9106's ranges: iterations ≥ 1,
    /// parallelism ≥ 1, memoryKiB ≥ 8 × parallelism, tagLength ≥ 4.
    static func hash(
        password: [UInt8],
        salt: [UInt8],
        secret: [UInt8] = [],
        associatedData: [UInt8] = [],
        iterations: Int,
        memoryKiB: Int,
        parallelism: Int,
        tagLength: Int,
        variant: Variant,
        version: Version
    ) -> [UInt8] {
        precondition(
            iterations >= 1 && parallelism >= 1 && memoryKiB >= 8 * parallelism && tagLength >= 4,
            "Argon2 parameters outside RFC 9106's ranges")
        var h0Input: [UInt8] = []
        for value in [parallelism, tagLength, memoryKiB, iterations] {
            h0Input += littleEndian32(value)
        }
        h0Input += littleEndian32(Int(version.rawValue)) + littleEndian32(Int(variant.rawValue))
        for field in [password, salt, secret, associatedData] {
            h0Input += littleEndian32(field.count) + field
        }
        let h0 = Blake2b.hash(h0Input, outputByteCount: 64)

        let matrix = Matrix(
            lanes: parallelism,
            segmentLength: memoryKiB / (slices * parallelism),
            iterations: iterations,
            variant: variant,
            version: version
        )
        return matrix.run(h0: h0, tagLength: tagLength)
    }

    /// H′: BLAKE2b stretched to any output length (RFC 9106 §3.3).
    static func variableHash(_ input: [UInt8], length: Int) -> [UInt8] {
        let prefixed = littleEndian32(length) + input
        guard length > 64 else {
            return Blake2b.hash(prefixed, outputByteCount: length)
        }
        let fullBlocks = (length + 31) / 32 - 2
        var block = Blake2b.hash(prefixed, outputByteCount: 64)
        var output = Array(block.prefix(32))
        for _ in 1..<fullBlocks {
            block = Blake2b.hash(block, outputByteCount: 64)
            output += block.prefix(32)
        }
        return output + Blake2b.hash(block, outputByteCount: length - 32 * fullBlocks)
    }

    static func littleEndian32(_ value: Int) -> [UInt8] {
        (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    /// The memory matrix, `lanes` rows of `4 × segmentLength` blocks, and the filling passes.
    private struct Matrix {
        let lanes: Int
        let segmentLength: Int
        let laneLength: Int
        let iterations: Int
        let variant: Variant
        let version: Version

        init(lanes: Int, segmentLength: Int, iterations: Int, variant: Variant, version: Version) {
            self.lanes = lanes
            self.segmentLength = segmentLength
            self.laneLength = slices * segmentLength
            self.iterations = iterations
            self.variant = variant
            self.version = version
        }

        /// Fills the first two blocks of every lane from H0, makes all passes, and hashes the XOR of
        /// the lanes' last blocks into the tag.
        func run(h0: [UInt8], tagLength: Int) -> [UInt8] {
            let blockCount = lanes * laneLength
            var storage = [UInt64](repeating: 0, count: (blockCount + Workspace.scratchBlocks) * blockWords)
            let final = storage.withUnsafeMutableBufferPointer { storage in
                let workspace = Workspace(base: storage.baseAddress!, blockCount: blockCount)
                for lane in 0..<lanes {
                    for column in 0..<2 {
                        let seed = h0 + littleEndian32(column) + littleEndian32(lane)
                        let bytes = variableHash(seed, length: 1024)
                        let block = workspace.block(lane * laneLength + column)
                        for word in 0..<blockWords {
                            block[word] = (0..<8).reduce(0) { value, byte in
                                value | UInt64(bytes[word * 8 + byte]) << (8 * UInt64(byte))
                            }
                        }
                    }
                }
                for pass in 0..<iterations {
                    for slice in 0..<slices {
                        for lane in 0..<lanes {
                            fillSegment(pass: pass, slice: slice, lane: lane, workspace: workspace)
                        }
                    }
                }
                var final = [UInt64](repeating: 0, count: blockWords)
                for lane in 0..<lanes {
                    let last = workspace.block(lane * laneLength + laneLength - 1)
                    for word in 0..<blockWords {
                        final[word] ^= last[word]
                    }
                }
                return final
            }
            let bytes = final.flatMap { word in (0..<8).map { UInt8(truncatingIfNeeded: word >> (8 * $0)) } }
            return variableHash(bytes, length: tagLength)
        }

        /// Computes one segment: the blocks of `lane` in `slice` of `pass`.
        private func fillSegment(pass: Int, slice: Int, lane: Int, workspace: Workspace) {
            let dataIndependent = variant == .i || (variant == .id && pass == 0 && slice < 2)
            let firstIndex = pass == 0 && slice == 0 ? 2 : 0
            let xorIntoPrevious = pass > 0 && version == .v13
            if dataIndependent {
                let input = [pass, lane, slice, lanes * laneLength, iterations, Int(variant.rawValue)]
                for (offset, value) in input.enumerated() {
                    workspace.addressInput[offset] = UInt64(value)
                }
            }
            for index in firstIndex..<segmentLength {
                if dataIndependent, index == firstIndex || index % blockWords == 0 {
                    workspace.makeAddresses(counter: UInt64(index / blockWords + 1))
                }
                let column = slice * segmentLength + index
                let current = lane * laneLength + column
                let previous = column == 0 ? current + laneLength - 1 : current - 1
                let pseudoRandom =
                    dataIndependent ? workspace.addresses[index % blockWords] : workspace.block(previous)[0]
                let referenceLane = pass == 0 && slice == 0 ? lane : Int((pseudoRandom >> 32) % UInt64(lanes))
                let referenceColumn = referenceColumn(
                    j1: pseudoRandom & 0xFFFF_FFFF,
                    pass: pass,
                    slice: slice,
                    index: index,
                    sameLane: referenceLane == lane
                )
                workspace.compress(
                    workspace.block(previous),
                    workspace.block(referenceLane * laneLength + referenceColumn),
                    into: workspace.block(current),
                    xorInto: xorIntoPrevious
                )
            }
        }

        /// The column of the reference block (RFC 9106 §3.4.2): J1 picks, with a bias towards recent
        /// blocks, one of the finished blocks that the current block may depend on.
        private func referenceColumn(j1: UInt64, pass: Int, slice: Int, index: Int, sameLane: Bool) -> Int {
            // Finished segments: all earlier ones in the first pass, the three others afterwards.
            let finished = pass == 0 ? slice * segmentLength : laneLength - segmentLength
            // In the current lane the blocks of this segment so far count too, except the previous
            // block; in another lane the segment's first block may not use that lane's last block.
            let areaSize = sameLane ? finished + index - 1 : finished - (index == 0 ? 1 : 0)
            let x = (j1 * j1) >> 32
            let y = (UInt64(areaSize) * x) >> 32
            let relative = areaSize - 1 - Int(y)
            let start = pass == 0 || slice == slices - 1 ? 0 : (slice + 1) * segmentLength
            return (start + relative) % laneLength
        }
    }

    /// The matrix's blocks followed by the working blocks of the compression function and of
    /// address generation, all in one allocation owned by the caller.
    private struct Workspace {
        static let scratchBlocks = 6

        private let base: UnsafeMutablePointer<UInt64>
        private let r: UnsafeMutablePointer<UInt64>
        private let z: UnsafeMutablePointer<UInt64>
        private let zero: UnsafeMutablePointer<UInt64>
        private let intermediate: UnsafeMutablePointer<UInt64>
        /// pass ‖ lane ‖ slice ‖ m′ ‖ t ‖ y ‖ counter ‖ zeros: the input of address generation.
        let addressInput: UnsafeMutablePointer<UInt64>
        /// The current 128 pseudo-random words of data-independent addressing.
        let addresses: UnsafeMutablePointer<UInt64>

        /// `base` must hold `blockCount + scratchBlocks` zeroed blocks.
        init(base: UnsafeMutablePointer<UInt64>, blockCount: Int) {
            self.base = base
            let scratch = base + blockCount * blockWords
            r = scratch
            z = scratch + blockWords
            zero = scratch + 2 * blockWords
            intermediate = scratch + 3 * blockWords
            addressInput = scratch + 4 * blockWords
            addresses = scratch + 5 * blockWords
        }

        func block(_ index: Int) -> UnsafeMutablePointer<UInt64> {
            base + index * blockWords
        }

        /// Sets `addresses` to G(0, G(0, addressInput with `counter`)).
        func makeAddresses(counter: UInt64) {
            addressInput[6] = counter
            compress(zero, addressInput, into: intermediate, xorInto: false)
            compress(zero, intermediate, into: addresses, xorInto: false)
        }

        /// G(X, Y) = P(X ⊕ Y) ⊕ X ⊕ Y, where P permutes the 8×8 matrix of 16-byte registers row by
        /// row and then column by column; the result is stored into `output` or XORed into it.
        func compress(
            _ x: UnsafeMutablePointer<UInt64>, _ y: UnsafeMutablePointer<UInt64>,
            into output: UnsafeMutablePointer<UInt64>, xorInto: Bool
        ) {
            for word in 0..<blockWords {
                r[word] = x[word] ^ y[word]
                z[word] = r[word]
            }
            for row in 0..<8 {
                let start = 16 * row
                permute(
                    start, start + 1, start + 2, start + 3, start + 4, start + 5, start + 6, start + 7,
                    start + 8, start + 9, start + 10, start + 11, start + 12, start + 13, start + 14, start + 15)
            }
            for column in 0..<8 {
                let start = 2 * column
                permute(
                    start, start + 1, start + 16, start + 17, start + 32, start + 33, start + 48, start + 49,
                    start + 64, start + 65, start + 80, start + 81, start + 96, start + 97, start + 112, start + 113)
            }
            for word in 0..<blockWords {
                output[word] = (xorInto ? output[word] : 0) ^ z[word] ^ r[word]
            }
        }

        /// The permutation P on 16 words of `z`: BLAKE2b's round with the multiplications of BlaMka
        /// and no message words.
        @inline(__always)
        private func permute(
            _ v0: Int, _ v1: Int, _ v2: Int, _ v3: Int, _ v4: Int, _ v5: Int, _ v6: Int, _ v7: Int,
            _ v8: Int, _ v9: Int, _ v10: Int, _ v11: Int, _ v12: Int, _ v13: Int, _ v14: Int, _ v15: Int
        ) {
            mix(v0, v4, v8, v12)
            mix(v1, v5, v9, v13)
            mix(v2, v6, v10, v14)
            mix(v3, v7, v11, v15)
            mix(v0, v5, v10, v15)
            mix(v1, v6, v11, v12)
            mix(v2, v7, v8, v13)
            mix(v3, v4, v9, v14)
        }

        /// GB: BLAKE2b's G where each addition a + b becomes a + b + 2 · lo32(a) · lo32(b).
        @inline(__always)
        private func mix(_ a: Int, _ b: Int, _ c: Int, _ d: Int) {
            var (va, vb, vc, vd) = (z[a], z[b], z[c], z[d])
            va = blaMka(va, vb)
            vd = (vd ^ va).rotatedRight(by: 32)
            vc = blaMka(vc, vd)
            vb = (vb ^ vc).rotatedRight(by: 24)
            va = blaMka(va, vb)
            vd = (vd ^ va).rotatedRight(by: 16)
            vc = blaMka(vc, vd)
            vb = (vb ^ vc).rotatedRight(by: 63)
            (z[a], z[b], z[c], z[d]) = (va, vb, vc, vd)
        }

        @inline(__always)
        private func blaMka(_ x: UInt64, _ y: UInt64) -> UInt64 {
            x &+ y &+ 2 &* (x & 0xFFFF_FFFF) &* (y & 0xFFFF_FFFF)
        }
    }
}

extension Argon2.Variant {
    init(_ hashType: PasswordHashAlgorithm.Argon2Parameters.HashType) {
        switch hashType {
        case .argon2d: self = .d
        case .argon2i: self = .i
        case .argon2id: self = .id
        }
    }
}

extension Argon2.Version {
    init(_ version: PasswordHashAlgorithm.Argon2Parameters.Version) {
        switch version {
        case .version10: self = .v10
        case .version13: self = .v13
        }
    }
}
