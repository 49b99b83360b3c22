import Foundation
import HearthAuth
import HearthDatabase

/// The seed's anonymous sign-in and account linking.
struct GuestAccount {
    let ref: DatabaseReference = Database.database().reference()

    func run(_ arguments: [String]) async throws {
        switch (arguments.first, arguments.count) {
        case ("start", 1): try await start()
        case ("add", 2): try await add(arguments[1])
        case ("cart", 1): try await showCart()
        case ("link-email", 3): try await link(EmailAuthProvider.credential(withEmail: arguments[1], password: arguments[2]))
        case ("link-google", 2): try await link(GoogleAuthProvider.credential(withIDToken: arguments[1], accessToken: ""))
        default: throw GuestError.usage
        }
    }

    private func start() async throws {
        let authResult = try await Auth.auth().signInAnonymously()
        let user = authResult.user
        let isAnonymous = user.isAnonymous  // true
        let uid = user.uid
        print("uid \(uid) anonymous \(isAnonymous)")
    }

    private func currentUser() throws -> User {
        guard let user = Auth.auth().currentUser else { throw GuestError.signedOut }
        return user
    }

    private func add(_ item: String) async throws {
        let uid = try currentUser().uid
        try await ref.child("carts/\(uid)").childByAutoId().setValue(item)
        print("added \(item)")
    }

    private func showCart() async throws {
        let uid = try currentUser().uid
        let snapshot = try await ref.child("carts/\(uid)").getData()
        let items = snapshot.children.compactMap { ($0 as? DataSnapshot)?.value as? String }
        print("cart \(items.joined(separator: ", "))")
    }

    /// Links the credential to the anonymous account: the uid, and the cart under it, stay.
    private func link(_ credential: AuthCredential) async throws {
        let user = try currentUser()
        do {
            let result = try await user.link(with: credential)
            print("uid \(result.user.uid) anonymous \(result.user.isAnonymous)")
        } catch let error where AuthErrorCode(rawValue: error._code) == .credentialAlreadyInUse {
            print("already in use: \(error.localizedDescription)")
        } catch let error where AuthErrorCode(rawValue: error._code) == .emailAlreadyInUse {
            print("already in use: \(error.localizedDescription)")
        }
    }
}

enum GuestError: Error, LocalizedError {
    case usage, signedOut

    var errorDescription: String? {
        switch self {
        case .usage: "usage: guest-account [--host H] [--port P] start|add ITEM|cart|link-email EMAIL PASSWORD|link-google ID_TOKEN"
        case .signedOut: "start first"
        }
    }
}
