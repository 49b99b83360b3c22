import HearthStorageRules
import Testing

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The worked examples of the storage rules specification (spec storage-api §17, S1–S16).
@Suite struct StorageRulesExampleTests {
    let alice = user("alice")
    let bob = user("bob")

    @Test func s1OwnerFolder() throws {
        let rules = try storageRules(
            """
            match /users/{uid}/{allPaths=**} {
              allow read, write: if request.auth != null && request.auth.uid == uid;
            }
            """)
        let upload = proposed("users/alice/a.png")
        #expect(rules.allows(.create, "users/alice/a.png", auth: alice, requestResource: upload))
        #expect(!rules.allows(.create, "users/alice/a.png", auth: bob, requestResource: upload))
        #expect(!rules.allows(.get, "users/alice/a.png", resource: stored("users/alice/a.png")))
        #expect(rules.allows(.list, "users/alice", auth: alice))
        #expect(!rules.allows(.list, "users", auth: alice))
    }

    @Test func s2ImageSizeAndType() throws {
        let rules = try storageRules(
            """
            match /images/{imageId} {
              allow read;
              allow write: if request.resource.size < 5 * 1024 * 1024
                           && request.resource.contentType.matches('image/.*');
            }
            """)
        #expect(rules.allows(.create, "images/x", requestResource: proposed("images/x", size: 1_000_000, contentType: "image/png")))
        #expect(!rules.allows(.create, "images/x", requestResource: proposed("images/x", size: 6_000_000, contentType: "image/png")))
        #expect(!rules.allows(.create, "images/x", requestResource: proposed("images/x", size: 1_000, contentType: "text/plain")))
        #expect(rules.allows(.get, "images/x", resource: stored("images/x")))
        #expect(!rules.allows(.delete, "images/x", resource: stored("images/x")))
        #expect(!rules.allows(.create, "images/sub/x.png", requestResource: proposed("images/sub/x.png", contentType: "image/png")))
    }

    @Test func s3SignedInOnly() throws {
        let rules = try storageRules("match /{allPaths=**} { allow read, write: if request.auth != null; }")
        #expect(!rules.allows(.list, ""))
        #expect(rules.allows(.get, "a/b.png", auth: alice, resource: stored("a/b.png")))
        #expect(!rules.allows(.get, "a/b.png", resource: stored("a/b.png")))
    }

    @Test func s4ListWithoutGet() throws {
        let inner = "match /public/{allPaths=**} { allow list; }"
        let rules = try storageRules(inner)
        #expect(rules.allows(.list, "public"))
        #expect(!rules.allows(.get, "public/a", resource: stored("public/a")))
        let versionOne = try storageRules(inner, version: 1)
        #expect(!versionOne.allows(.list, "public"))
        #expect(!versionOne.allows(.list, "public/sub"))
    }

    @Test func s5NoOverwrite() throws {
        let rules = try storageRules("match /upload/allowIfNoExistingFile.txt { allow create: if resource == null; }")
        let path = "upload/allowIfNoExistingFile.txt"
        #expect(rules.allows(.create, path, requestResource: proposed(path)))
        #expect(!rules.allows(.create, path, resource: stored(path), requestResource: proposed(path)))
    }

    @Test func s6DeleteGuardedByContentType() throws {
        let rules = try storageRules(
            "match /delete/disallowIfContentTypeText { allow create; allow delete: if resource.contentType != 'text/plain'; }")
        let path = "delete/disallowIfContentTypeText"
        #expect(rules.allows(.create, path, requestResource: proposed(path, contentType: "text/plain")))
        #expect(!rules.allows(.delete, path, resource: stored(path, contentType: "text/plain")))
        #expect(rules.allows(.delete, path, resource: stored(path, contentType: "image/png")))
    }

    @Test func s7RejectEmptyFiles() throws {
        let rules = try storageRules("match /disallowSize0 { allow create: if request.resource.size != 0; }")
        #expect(!rules.allows(.create, "disallowSize0", requestResource: proposed("disallowSize0", size: 0)))
        #expect(rules.allows(.create, "disallowSize0", requestResource: proposed("disallowSize0", size: 3)))
    }

    @Test func s8CustomMetadataOwnership() throws {
        let rules = try storageRules(
            """
            match /docs/{file} {
              allow get: if resource.metadata.owner == request.auth.uid;
              allow create: if request.resource.metadata.owner == request.auth.uid;
              allow update: if resource.metadata.owner == request.auth.uid
                            && request.resource.metadata.owner == resource.metadata.owner;
            }
            """)
        let owned = stored("docs/a", metadata: ["owner": "alice"])
        #expect(rules.allows(.create, "docs/a", auth: alice, requestResource: proposed("docs/a", metadata: ["owner": "alice"])))
        #expect(!rules.allows(.create, "docs/a", auth: alice, requestResource: proposed("docs/a")))
        #expect(!rules.allows(.get, "docs/a", auth: bob, resource: owned))
        #expect(rules.allows(.get, "docs/a", auth: alice, resource: owned))
        #expect(
            !rules.allows(.update, "docs/a", auth: alice, resource: owned, requestResource: proposed("docs/a", metadata: ["owner": "bob"])))
        #expect(
            rules.allows(
                .update, "docs/a", auth: alice, resource: owned,
                requestResource: proposed("docs/a", contentType: "text/plain", metadata: ["owner": "alice"])))
    }

    @Test func s9RequestPath() throws {
        let rules = try storageRules(
            """
            match /{allPaths=**} {
              allow read: if request.path[3] == 'dir' && request.path == path('/b/BUCKET/o/dir/sub/image.png');
            }
            """)
        #expect(rules.allows(.get, "dir/sub/image.png", bucket: "BUCKET"))
        #expect(!rules.allows(.get, "dir/sub/other.png", bucket: "BUCKET"))
    }

    @Test func s10Ternary() throws {
        let rules = try storageRules("match /{file} { allow read: if request.path[3] == 'test' ? true : false; }")
        #expect(rules.allows(.get, "test"))
        #expect(!rules.allows(.get, "someRandomFile"))
    }

    @Test func s11FunctionWithLetAndTimeWindow() throws {
        let rules = try storageRules(
            """
            function recent(res) { let age = request.time - res.timeCreated; return age < duration.value(1, 'h'); }
            match /drafts/{f} { allow get: if request.auth != null && recent(resource); allow create: if request.auth != null; }
            """)
        let tenMinutesAgo = stored("drafts/a", created: Date().addingTimeInterval(-600))
        let twoHoursAgo = stored("drafts/a", created: Date().addingTimeInterval(-7200))
        #expect(rules.allows(.get, "drafts/a", auth: alice, resource: tenMinutesAgo))
        #expect(!rules.allows(.get, "drafts/a", auth: alice, resource: twoHoursAgo))
        #expect(!rules.allows(.get, "drafts/a", auth: alice))
    }

    @Test func s12HashMustMatchExisting() throws {
        let rules = try storageRules("match /files/{file} { allow read, write: if request.resource.md5Hash == resource.md5Hash; }")
        let existing = stored("files/f", md5: "same")
        #expect(rules.allows(.update, "files/f", resource: existing, requestResource: proposed("files/f", md5: "same")))
        #expect(!rules.allows(.create, "files/f", resource: existing, requestResource: proposed("files/f", md5: "other")))
        #expect(!rules.allows(.create, "files/new", requestResource: proposed("files/new", md5: "other")))
    }

    @Test func s13SignInProviderClaim() throws {
        let rules = try storageRules(
            """
            match /testing { allow read: if true }
            match /testing/{allPaths=**} { allow write: if request.auth.token.firebase.sign_in_provider == 'anonymous'; }
            """)
        let upload = proposed("testing/x")
        #expect(rules.allows(.create, "testing/x", auth: user("anon-1", provider: "anonymous"), requestResource: upload))
        #expect(!rules.allows(.create, "testing/x", auth: alice, requestResource: upload))
        #expect(!rules.allows(.create, "testing/x", requestResource: upload))
        #expect(rules.allows(.get, "testing"))
    }

    @Test func s14FirestoreLookupIsRefusedAtLoad() throws {
        let error = #expect(throws: StorageRulesError.self) {
            try storageRules(
                "match /admin/{f} { allow write: if firestore.get(/databases/(default)/documents/users/$(request.auth.uid)).data.isAdmin; }"
            )
        }
        #expect(error?.message.contains("firestore.get()") == true)
        #expect(error?.line == 4)
        #expect(error?.column == 36)
    }

    @Test func s15NothingMatches() throws {
        let rules = try storageRules("match /a/{f} { allow read, write; }")
        #expect(!rules.allows(.create, "b/x", requestResource: proposed("b/x")))
        #expect(!rules.allows(.list, ""))
        #expect(rules.allows(.create, "a/x", requestResource: proposed("a/x")))
    }

    @Test func s16OverwriteWithCreateOnlyRules() throws {
        let rules = try storageRules("match /upload/replace.txt { allow read, create; }")
        let path = "upload/replace.txt"
        #expect(rules.allows(.create, path, requestResource: proposed(path)))
        #expect(rules.allows(.create, path, resource: stored(path), requestResource: proposed(path)))
        #expect(!rules.allows(.update, path, resource: stored(path), requestResource: proposed(path)))
        #expect(!rules.allows(.delete, path, resource: stored(path)))
    }

    @Test func denialsExplainEveryAllowStatement() throws {
        let rules = try storageRules(
            """
            match /docs/{file} {
              allow read: if request.auth.uid == 'admin';
              allow get: if resource.size < 5;
            }
            """)
        let decision = rules.evaluate(
            StorageRuleRequest(method: .get, bucket: "bucket", objectPath: "docs/a", resource: stored("docs/a", size: 10)))
        #expect(!decision.isAllowed)
        #expect(
            decision.explanation == [
                "line 5: allow read: if request.auth.uid == 'admin' → error: null value has no property 'uid'",
                "line 6: allow get: if resource.size < 5 → false",
            ])
        let unmatched = rules.evaluate(StorageRuleRequest(method: .get, bucket: "bucket", objectPath: "other"))
        #expect(unmatched.explanation == ["no allow statement for get matches /b/bucket/o/other"])
    }
}
