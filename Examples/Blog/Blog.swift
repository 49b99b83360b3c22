import Foundation
import HearthAuth
import HearthDatabase
import HearthStorage

/// The blog's actions, written as the seeds write them.
struct Blog {
    let ref: DatabaseReference = Database.database().reference()

    func run(_ arguments: [String]) async throws {
        switch (arguments.first, arguments.count) {
        case ("signup", 4): try await signUp(email: arguments[1], password: arguments[2], username: arguments[3])
        case ("signin", 3): print("uid \(try await Auth.auth().signIn(withEmail: arguments[1], password: arguments[2]).user.uid)")
        case ("post", 3): try await writeNewPost(title: arguments[1], body: arguments[2])
        case ("star", 2): try await toggleStar(postID: arguments[1])
        case ("increment-star", 2): try await incrementStars(postID: arguments[1])
        case ("avatar", 2): try await uploadProfilePicture(URL(fileURLWithPath: arguments[1]))
        case ("show", 2):
            print(
                String(
                    decoding: try JSONSerialization.data(
                        withJSONObject: try await ref.child("posts/\(arguments[1])").getData().value ?? NSNull(),
                        options: [.sortedKeys, .fragmentsAllowed]), as: UTF8.self))
        default: throw BlogError.usage
        }
    }

    private func currentUser() throws -> User {
        guard let user = Auth.auth().currentUser else { throw BlogError.signedOut }
        return user
    }

    private func signUp(email: String, password: String, username: String) async throws {
        let user = try await Auth.auth().createUser(withEmail: email, password: password).user
        try await ref.child("users").child(user.uid).setValue(["username": username, "email": email])
        print("uid \(user.uid)")
    }

    /// A post under `posts` and the author's `user-posts`, in one atomic update.
    private func writeNewPost(title: String, body: String) async throws {
        let userID = try currentUser().uid
        let username = try await ref.child("users/\(userID)/username").getData().value as? String ?? "Unknown"
        guard let key = ref.child("posts").childByAutoId().key else { return }
        let post = ["uid": userID, "author": username, "title": title, "body": body]
        let childUpdates = ["/posts/\(key)": post, "/user-posts/\(userID)/\(key)/": post]
        try await ref.updateChildValues(childUpdates)
        print("post \(key)")
    }

    /// Stars or unstars the post in a transaction, as the seed does.
    private func toggleStar(postID: String) async throws {
        let uid = try currentUser().uid
        let (committed, snapshot) = try await ref.child("posts/\(postID)").runTransactionBlock {
            (currentData: MutableData) -> TransactionResult in
            if var post = currentData.value as? [String: AnyObject] {
                var stars: [String: Bool]
                stars = post["stars"] as? [String: Bool] ?? [:]
                var starCount = post["starCount"] as? Int ?? 0
                if stars[uid] != nil {
                    // Unstar the post and remove self from stars
                    starCount -= 1
                    stars.removeValue(forKey: uid)
                } else {
                    // Star the post and add self to stars
                    starCount += 1
                    stars[uid] = true
                }
                post["starCount"] = starCount as AnyObject?
                post["stars"] = stars as AnyObject?

                // Set value and report transaction success
                currentData.value = post

                return TransactionResult.success(withValue: currentData)
            }
            return TransactionResult.success(withValue: currentData)
        }
        let count = snapshot.childSnapshot(forPath: "starCount").value as? Int ?? 0
        print("starCount \(count) committed \(committed)")
    }

    /// Stars the post with server-side increments, in the post and in its author's copy.
    private func incrementStars(postID: String) async throws {
        let userID = try currentUser().uid
        let authorID = try await ref.child("posts/\(postID)/uid").getData().value as? String ?? ""
        let updates =
            [
                "posts/\(postID)/stars/\(userID)": true,
                "posts/\(postID)/starCount": ServerValue.increment(1),
                "user-posts/\(authorID)/\(postID)/stars/\(userID)": true,
                "user-posts/\(authorID)/\(postID)/starCount": ServerValue.increment(1),
            ] as [String: Any]
        try await Database.database().reference().updateChildValues(updates)
        print("incremented")
    }

    /// Uploads the picture, and keeps its download URL in the user's profile.
    private func uploadProfilePicture(_ file: URL) async throws {
        let uid = try currentUser().uid
        let imageRef = Storage.storage().reference().child("images/\(uid)/avatar.jpg")
        let metadata = StorageMetadata()
        metadata.contentType = "image/jpeg"
        _ = try await imageRef.putFileAsync(from: file, metadata: metadata)
        let url = try await imageRef.downloadURL()
        try await ref.child("users/\(uid)/photoURL").setValue(url.absoluteString)
        print("avatar \(url.absoluteString)")
    }
}

enum BlogError: Error, LocalizedError {
    case usage, signedOut

    var errorDescription: String? {
        switch self {
        case .usage: "usage: blog [--host H] [--port P] signup|signin|post|star|increment-star|avatar|show …"
        case .signedOut: "sign in first"
        }
    }
}
