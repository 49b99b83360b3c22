import HearthEdge
import NIOCore
import Testing

@testable import HearthStorageServer
@testable import HearthServer

/// The encodings Storage answers with: checksums, timestamps, ranges and routes (spec
/// storage-api §1.2, §2, §3).
@Suite struct StorageEncodingTests {
    static let crcVectors: [([UInt8], UInt32)] = [
        ([], 0),
        (Array("123456789".utf8), 3_808_858_755),
        (Array("hello world".utf8), 3_381_945_770),
        ((0..<768).map { UInt8($0 % 256) }, 2_678_231_987),
    ]

    @Test(arguments: crcVectors)
    func crc32cMatchesKnownValues(bytes: [UInt8], expected: UInt32) {
        var whole = CRC32C()
        bytes.withUnsafeBytes { whole.update($0) }
        #expect(whole.value == expected)
        // Fed in uneven pieces, the checksum is the same.
        var pieces = CRC32C()
        var start = 0
        var length = 1
        while start < bytes.count {
            let end = min(bytes.count, start + length)
            bytes[start..<end].withUnsafeBytes { pieces.update($0) }
            start = end
            length += 3
        }
        #expect(pieces.value == expected)
    }

    @Test func checksumsAreBase64OfTheBigEndianBytes() {
        #expect(CRC32C.base64(3_381_945_770) == "yZRlqg==")
        var digest = ContentDigest()
        digest.update(ByteBuffer(string: "hello world"))
        let (md5, crc) = digest.finish()
        #expect(Base64URL.standard(md5) == "XrY7u+Ae7tCTyyK7j1rNww==")
        #expect(crc == 3_381_945_770)
        #expect(digest.size == 11)
    }

    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z") as (Int64, String),
        (1_600_388_693_328, "2020-09-18T00:24:53.328Z"),
        (951_782_400_000, "2000-02-29T00:00:00.000Z"),
        (4_102_444_799_999, "2099-12-31T23:59:59.999Z"),
        (-1, "1969-12-31T23:59:59.999Z"),
    ])
    func timestampsHaveThreeFractionalDigits(milliseconds: Int64, expected: String) {
        #expect(StorageTimestamp.format(milliseconds: milliseconds) == expected)
    }

    @Test func rangesFollowTheEmulator() {
        #expect(ObjectDownload.byteRange("bytes=0-4", size: 11) == 0..<5)
        #expect(ObjectDownload.byteRange("bytes=3-", size: 11) == 3..<11)
        #expect(ObjectDownload.byteRange("bytes=-4", size: 11) == 7..<11)
        #expect(ObjectDownload.byteRange("bytes=-40", size: 11) == 0..<11)
        #expect(ObjectDownload.byteRange("bytes=5-1000", size: 11) == 5..<11)
        // Unsatisfiable or malformed ranges are ignored: the whole object is sent.
        #expect(ObjectDownload.byteRange("bytes=11-20", size: 11) == nil)
        #expect(ObjectDownload.byteRange("bytes=0-10", size: 0) == nil)
        #expect(ObjectDownload.byteRange("bytes=4-2", size: 11) == nil)
        #expect(ObjectDownload.byteRange("bytes=0-1,3-4", size: 11) == nil)
        #expect(ObjectDownload.byteRange("items=0-1", size: 11) == nil)
        #expect(ObjectDownload.byteRange("bytes=a-b", size: 11) == nil)
    }

    @Test func routesReadObjectNamesAsOneEncodedSegment() {
        #expect(StorageRoute(path: "/v0/") == .firebaseRoot)
        #expect(StorageRoute(path: "/v0/b/demo.appspot.com/o") == .firebaseObjects(bucket: "demo.appspot.com"))
        #expect(StorageRoute(path: "/v0/b/demo/o/dir%2Fa%20b.png") == .firebaseObject(bucket: "demo", name: "dir/a b.png"))
        #expect(StorageRoute(path: "/v0/b/demo/o/a+b") == .firebaseObject(bucket: "demo", name: "a+b"))
        #expect(StorageRoute(path: "/v0/b/demo/o/folder/file.png") == .invalid)
        #expect(StorageRoute(path: "/storage/v1/b") == .cloudBuckets)
        #expect(StorageRoute(path: "/b/demo") == .cloudBucket("demo"))
        #expect(StorageRoute(path: "/storage/v1/b/demo/o") == .cloudObjects(bucket: "demo"))
        #expect(StorageRoute(path: "/b/demo/o/x%2Fy") == .cloudObject(bucket: "demo", name: "x/y"))
        #expect(
            StorageRoute(path: "/storage/v1/b/a/o/x/rewriteTo/b/c/o/y%2Fz")
                == .cloudCopy(bucket: "a", name: "x", toBucket: "c", toName: "y/z"))
        #expect(StorageRoute(path: "/upload/storage/v1/b/demo/o") == .cloudUpload(bucket: "demo"))
        #expect(StorageRoute(path: "/download/storage/v1/b/demo/o/x%2Fy") == .cloudDownload(bucket: "demo", name: "x/y"))
        #expect(StorageRoute(path: "/internal/setRules") == .control("setRules"))
        #expect(StorageRoute.claims("/v0/b/x/o"))
        #expect(StorageRoute.claims("/b/x/o/data.json"))
        #expect(!StorageRoute.claims("/bx.json"))
        #expect(!StorageRoute.claims("/users/b.json"))
    }

    @Test func percentEncodingEscapesEverythingButUnreservedBytes() {
        #expect(PercentEncoding.encode("dir/a b+c~é.png") == "dir%2Fa%20b%2Bc~%C3%A9.png")
    }
}
