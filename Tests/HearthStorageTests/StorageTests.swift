import AsyncHTTPClient
import Crypto
import Foundation
import HearthApp
import HearthAuth
import HearthStorage
import HearthTestSupport
import NIOCore
import Testing

/// Every test's signed-in users are kept under the tests' data directory.
private var userDataDirectory: String { sdkUserDataDirectory }

/// A storage of its own app, pointed at `port` (the server, or a proxy in front of it).
private func makeStorage(port: Int, chunk: Int64 = 1 << 20) -> Storage {
    _ = userDataDirectory
    let options = FirebaseOptions(googleAppID: "1:1234:ios:abcd", gcmSenderID: "1234")
    options.projectID = "demo-sdk"
    options.apiKey = "test-api-key"
    options.storageBucket = "demo-sdk.appspot.com"
    let name = "storage-\(UUID().uuidString)"
    FirebaseApp.configure(name: name, options: options)
    let storage = Storage.storage(app: FirebaseApp.app(name: name)!)
    storage.useEmulator(withHost: "127.0.0.1", port: port)
    storage.callbackQueue = DispatchQueue(label: "storage-test-callbacks")
    storage.uploadChunkSizeBytes = chunk
    return storage
}

private func randomData(_ count: Int) -> Data {
    var generator = SystemRandomNumberGenerator()
    var data = Data(capacity: count + 8)
    while data.count < count { withUnsafeBytes(of: generator.next() as UInt64) { data.append(contentsOf: $0) } }
    return data.prefix(count)
}

private func md5(_ data: Data) -> String {
    Data(Insecure.MD5.hash(data: data)).base64EncodedString()
}

private func storageCode(of body: () async throws -> Void) async -> StorageErrorCode? {
    do {
        try await body()
        return nil
    } catch {
        return StorageErrorCode(error)
    }
}

@Suite struct StorageTests {
    @Test func uploadReadChangeAndDeleteAnObject() async throws {
        try await withServer { server in
            let storage = makeStorage(port: server.port)
            let ref = storage.reference().child("images/cat.png")
            let metadata = StorageMetadata()
            metadata.contentType = "image/png"
            metadata.customMetadata = ["owner": "ada", "drop": "me"]
            let bytes = Data("not really a png".utf8)
            let done = Recorder<String>()
            ref.putData(bytes, metadata: metadata) { metadata, error in
                done.record(metadata?.md5Hash ?? "error \(String(describing: error))")
            }
            #expect(try await done.next(within: 60) == md5(bytes))
            #expect(try await ref.getData(maxSize: 1 << 20) == bytes)
            // A one-chunk upload still reports its progress, ending at 100%.
            let fractions = Recorder<Double>()
            _ = try await storage.reference(withPath: "images/small.txt").putDataAsync(bytes) {
                fractions.record($0?.fractionCompleted ?? -1)
            }
            #expect(try await fractions.next() == 1.0)
            // The Result forms of the completion calls.
            let results = Recorder<String>()
            storage.reference(withPath: "images/result.txt").putData(bytes) { (result: Result<StorageMetadata, any Error>) in
                results.record((try? result.get())?.name ?? "failed")
            }
            #expect(try await results.next() == "result.txt")
            storage.reference(withPath: "images/missing.txt").getMetadata { result in
                if case .failure(let error) = result { results.record("\(StorageErrorCode(error) ?? .unknown)") }
            }
            #expect(try await results.next() == "objectNotFound")
            let read = try await ref.getMetadata()
            #expect(read.isFile && !read.isFolder && !StorageMetadata().isFile)
            let copy = StorageMetadata(dictionary: read.dictionaryRepresentation())
            #expect(copy.dictionaryRepresentation() == read.dictionaryRepresentation())
            #expect(copy.timeCreated == read.timeCreated && copy.customMetadata == read.customMetadata && copy.size == read.size)
            #expect(read.contentType == "image/png" && read.size == Int64(bytes.count) && read.name == "cat.png")
            #expect(read.path == "images/cat.png" && read.bucket == "demo-sdk.appspot.com" && read.timeCreated != nil)
            read.contentType = "image/webp"
            read.customMetadata = ["owner": "ada"]
            let changed = try await ref.updateMetadata(read)
            #expect(changed.contentType == "image/webp" && changed.customMetadata == ["owner": "ada"] && changed.metageneration == 2)

            let url = try await ref.downloadURL()
            let fetched = try await HTTPClient.shared.execute(HTTPClientRequest(url: url.absoluteString), timeout: .seconds(10))
            #expect(Data(try await fetched.body.collect(upTo: 1 << 20).readableBytesView) == bytes)
            #expect(ref.parent()?.fullPath == "images" && ref.root().fullPath == "" && ref.name == "cat.png")
            #expect(storage.reference(forURL: "gs://demo-sdk.appspot.com/images/cat.png").fullPath == ref.fullPath)
            #expect(storage.reference(forURL: url.absoluteString).fullPath == ref.fullPath)

            try await ref.delete()
            #expect(await storageCode { _ = try await ref.getMetadata() } == .objectNotFound)
            // Firebase's error enum, its values, code and message.
            do {
                _ = try await ref.getData(maxSize: 10)
                Issue.record("a deleted object was downloaded")
            } catch StorageError.objectNotFound(let object, let serverError) {
                #expect(object == "images/cat.png" && serverError["ResponseErrorCode"] as? Int == 404)
                let error = StorageError.objectNotFound(object: object, serverError: serverError) as NSError
                #expect(error._code == -13010 && error.domain == StorageErrorDomain)
                #expect(error.localizedDescription == "Object images/cat.png does not exist.")
                let code = StorageErrorCode.objectNotFound as NSError
                #expect(code.domain == StorageErrorDomain && code.code == error.code)
            }
        }
    }

    @Test func largeUploadsGoInChunksAndDownloadsStreamToFiles() async throws {
        try await withServer { server in
            let storage = makeStorage(port: server.port)
            let ref = storage.reference(withPath: "big/data.bin")
            let data = randomData(9 << 20 + 1234)
            let progress = Recorder<Int64>()
            let task = ref.putData(data)
            task.observe(.progress) { progress.record($0.progress?.completedUnitCount ?? -1) }
            let success = Recorder<String?>()
            task.observe(.success) { success.record($0.metadata?.md5Hash) }
            #expect(try await success.next(within: 60) == md5(data))
            #expect(progress.all.count >= 8 && progress.all == progress.all.sorted())
            do {
                _ = try await ref.getData(maxSize: 1 << 20)
                Issue.record("a download larger than maxSize succeeded")
            } catch StorageError.downloadSizeExceeded(let total, let maxSize) {
                #expect(total == Int64(data.count) && maxSize == 1 << 20)
            }

            let file = FileManager.default.temporaryDirectory.appendingPathComponent("download-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: file) }
            let written = try await ref.writeAsync(toFile: file)
            #expect(try Data(contentsOf: written) == data)

            let source = FileManager.default.temporaryDirectory.appendingPathComponent("upload-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: source) }
            let fileData = randomData(5 << 20)
            try fileData.write(to: source)
            let fromFile = try await storage.reference(withPath: "big/file.bin").putFileAsync(from: source)
            #expect(fromFile.md5Hash == md5(fileData) && fromFile.size == Int64(fileData.count))
            #expect(fromFile.contentType == "application/octet-stream")

            // A file's type comes from its extension unless the metadata names one.
            let photo = FileManager.default.temporaryDirectory.appendingPathComponent("photo-\(UUID().uuidString).JPG")
            defer { try? FileManager.default.removeItem(at: photo) }
            try Data("jpeg bytes".utf8).write(to: photo)
            #expect(try await storage.reference(withPath: "photos/a.jpg").putFileAsync(from: photo).contentType == "image/jpeg")
            let named = StorageMetadata()
            named.contentType = "image/x-custom"
            #expect(
                try await storage.reference(withPath: "photos/b.jpg").putFileAsync(from: photo, metadata: named).contentType
                    == "image/x-custom")
        }
    }

    @Test func listingPagesAndListAll() async throws {
        try await withServer { server in
            let storage = makeStorage(port: server.port)
            for path in ["album/1.jpg", "album/2.jpg", "album/trip/3.jpg"] {
                _ = try await storage.reference(withPath: path).putDataAsync(Data(path.utf8))
            }
            let album = storage.reference(withPath: "album")
            let all = try await album.listAll()
            #expect(all.items.map(\.fullPath) == ["album/1.jpg", "album/2.jpg"] && all.prefixes.map(\.fullPath) == ["album/trip"])
            let first = try await album.list(maxResults: 2)
            #expect(first.items.count == 2)
            let token = try #require(first.pageToken)
            let second = try await album.list(maxResults: 2, pageToken: token)
            #expect(second.prefixes.map(\.fullPath) == ["album/trip"] && second.pageToken == nil)
            #expect(await storageCode { _ = try await album.list(maxResults: 0) } == .invalidArgument)
        }
    }

    @Test func pauseResumeAndCancel() async throws {
        try await withServer { server in
            let storage = makeStorage(port: server.port, chunk: 262_144)
            let data = randomData(4 << 20)
            let task = storage.reference(withPath: "paused.bin").putData(data)
            let progress = Recorder<Int64>()
            let paused = Recorder<Bool>()
            task.observe(.progress) { snapshot in
                progress.record(snapshot.progress?.completedUnitCount ?? 0)
                if progress.all.count == 1 { task.pause() }
            }
            task.observe(.pause) { _ in paused.record(true) }
            _ = try await paused.next(within: 60)
            let countWhilePaused = progress.all.count
            try await Task.sleep(for: .milliseconds(300))
            #expect(progress.all.count <= countWhilePaused + 1)
            let finished = Recorder<String?>()
            task.observe(.success) { finished.record($0.metadata?.md5Hash) }
            task.resume()
            #expect(try await finished.next(within: 60) == md5(data))

            let cancelled = storage.reference(withPath: "cancelled.bin").putData(randomData(4 << 20))
            let failure = Recorder<Int?>()
            cancelled.observe(.failure) { failure.record(($0.error as? StorageError)?.code.rawValue) }
            cancelled.cancel()
            #expect(try await failure.next(within: 60) == StorageErrorCode.cancelled.rawValue)
            #expect(await storageCode { _ = try await storage.reference(withPath: "cancelled.bin").getMetadata() } == .objectNotFound)
        }
    }

    @Test func transfersSurviveDroppedConnections() async throws {
        try await withServer { server in
            let proxy = try await DroppingProxy(upstreamPort: server.port, lifetimes: 80...200)
            let flaky = makeStorage(port: proxy.port, chunk: 262_144)
            let data = randomData(3 << 20)
            let metadata = try await flaky.reference(withPath: "flaky.bin").putDataAsync(data)
            #expect(metadata.md5Hash == md5(data))
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("flaky-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: file) }
            _ = try await flaky.reference(withPath: "flaky.bin").writeAsync(toFile: file)
            #expect(try Data(contentsOf: file) == data)
            #expect(proxy.cutCount > 0)
            await proxy.close()
        }
    }

    @Test func requestsCarryTheSignedInUsersToken() async throws {
        try await withServer { server in
            let storage = makeStorage(port: server.port)
            let rules = """
                rules_version = '2';
                service firebase.storage {
                  match /b/{bucket}/o {
                    match /users/{uid}/{file=**} { allow read, write: if request.auth != null && request.auth.uid == uid; }
                  }
                }
                """
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(server.port)/internal/setRules")
            request.method = .PUT
            request.body = .bytes(
                ByteBuffer(
                    bytes: try JSONSerialization.data(withJSONObject: ["rules": ["files": [["name": "storage.rules", "content": rules]]]])))
            #expect(try await HTTPClient.shared.execute(request, timeout: .seconds(10)).status == .ok)

            #expect(
                await storageCode { _ = try await storage.reference(withPath: "users/nobody/a.txt").putDataAsync(Data("a".utf8)) }
                    == .unauthorized)
            let auth = Auth.auth(app: storage.app)
            auth.useEmulator(withHost: "127.0.0.1", port: server.port)
            let uid = try await auth.signInAnonymously().user.uid
            let mine = storage.reference(withPath: "users/\(uid)/a.txt")
            _ = try await mine.putDataAsync(Data("mine".utf8))
            #expect(try await mine.getData(maxSize: 100) == Data("mine".utf8))
            do {
                _ = try await storage.reference(withPath: "users/other/a.txt").getMetadata()
                Issue.record("another user's object was read")
            } catch let error as StorageError {
                guard case .unauthorized(let bucket, let object, _) = error else { throw error }
                #expect(bucket == "demo-sdk.appspot.com" && object == "users/other/a.txt")
                #expect(
                    error.localizedDescription == "User does not have permission to access gs://demo-sdk.appspot.com/users/other/a.txt.")
            }
            try auth.signOut()
            #expect(await storageCode { _ = try await mine.getData(maxSize: 100) } == .unauthorized)
        }
    }
}
