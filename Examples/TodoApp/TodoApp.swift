import Foundation
import HearthAuth
import HearthDatabase

/// Writes a line to standard output at once (a pipe would otherwise buffer it).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

/// An item of the list: a title, and where it is stored.
struct Item {
    var ref: DatabaseReference?
    var title: String?

    init(snapshot: DataSnapshot) {
        ref = snapshot.ref
        let data = snapshot.value as? [String: String] ?? [:]
        title = data["title"]
    }
}

/// The seed's screens as commands: the login and sign-up views, and the items table view.
final class TodoApp: @unchecked Sendable {
    private var items = [Item]()
    private var ref: DatabaseReference = Database.database().reference()
    private var databaseHandles: [DatabaseHandle] = []
    private var observedUser: String?
    private let lock = NSLock()
    /// Each command waits for its answer before the next is read, as taps do in the seed.
    private let answered = DispatchSemaphore(value: 0)

    func run(_ command: String, _ words: [String]) {
        switch (command, words.count) {
        case ("signup", 2): didTapSignUp(email: words[0], password: words[1])
        case ("signin", 2): didTapSignIn(email: words[0], password: words[1])
        case ("reset", 1): didRequestPasswordReset(email: words[0])
        case ("add", _): didTapAddItem(words.joined(separator: " "))
        case ("remove", _): didDeleteItem(titled: words.joined(separator: " "))
        case ("list", 0): printItems()
        case ("signout", 0): didTapSignOut()
        default:
            say("error: unknown command \(command)")
            return
        }
    }

    private func showAlert(_ message: String) {
        say(message)
    }

    // MARK: Login

    private func didTapSignIn(email: String, password: String) {
        Auth.auth().signIn(withEmail: email, password: password) { user, error in
            defer { self.answered.signal() }
            guard let user else {
                if let error = error {
                    if let errCode = AuthErrorCode(rawValue: error._code) {
                        switch errCode {
                        case .userNotFound:
                            self.showAlert("User account not found. Try registering")
                        case .wrongPassword, .invalidCredential:
                            self.showAlert("Incorrect username/password combination")
                        default:
                            self.showAlert("Error: \(error.localizedDescription)")
                        }
                    }
                    return
                }
                assertionFailure("user and error are nil")
                return
            }
            self.signIn(user.user)
        }
        answered.wait()
    }

    private func didRequestPasswordReset(email: String) {
        Auth.auth().sendPasswordReset(withEmail: email) { error in
            defer { self.answered.signal() }
            if let error = error {
                if let errCode = AuthErrorCode(rawValue: error._code) {
                    switch errCode {
                    case .userNotFound:
                        self.showAlert("User account not found. Try registering")
                    default:
                        self.showAlert("Error: \(error.localizedDescription)")
                    }
                }
                return
            }
            self.showAlert("You'll receive an email shortly to reset your password.")
        }
        answered.wait()
    }

    // MARK: Sign up

    private func didTapSignUp(email: String, password: String) {
        Auth.auth().createUser(withEmail: email, password: password) { user, error in
            defer { self.answered.signal() }
            if let error = error {
                if let errCode = AuthErrorCode(rawValue: error._code) {
                    switch errCode {
                    case .invalidEmail:
                        self.showAlert("Enter a valid email.")
                    case .emailAlreadyInUse:
                        self.showAlert("Email already in use.")
                    default:
                        self.showAlert("Error: \(error.localizedDescription)")
                    }
                }
                return
            }
            if let user { self.signIn(user.user) }
        }
        answered.wait()
    }

    private func signIn(_ user: User) {
        showAlert("signed in as \(user.email ?? user.uid)")
        startObservingDatabase(for: user)
    }

    // MARK: Items

    /// Observes `users/$uid/items`: each item added or removed, by this program or another
    /// signed in as the same user, is printed as it happens.
    func startObservingDatabase(for user: User) {
        stopObservingDatabase()
        let items = ref.child("users/\(user.uid)/items")
        let added = items.observe(.childAdded) { snapshot in
            let item = Item(snapshot: snapshot)
            self.lock.withLock { self.items.append(item) }
            say("+ \(item.title ?? "")")
        }
        let removed = items.observe(.childRemoved) { snapshot in
            let item = Item(snapshot: snapshot)
            self.lock.withLock { self.items.removeAll { $0.ref?.key == snapshot.key } }
            say("- \(item.title ?? "")")
        }
        lock.withLock {
            databaseHandles = [added, removed]
            observedUser = user.uid
        }
    }

    private func stopObservingDatabase() {
        let (handles, uid) = lock.withLock { () -> ([DatabaseHandle], String?) in
            defer {
                databaseHandles = []
                items = []
            }
            return (databaseHandles, observedUser)
        }
        guard let uid else { return }
        for handle in handles { ref.child("users/\(uid)/items").removeObserver(withHandle: handle) }
    }

    private func didTapAddItem(_ userInput: String) {
        guard let user = Auth.auth().currentUser else { return showAlert("Sign in first.") }
        ref.child("users").child(user.uid).child("items").childByAutoId().child("title").setValue(userInput) { error, _ in
            defer { self.answered.signal() }
            if let error { self.showAlert("Error: \(error.localizedDescription)") }
        }
        answered.wait()
    }

    private func didDeleteItem(titled title: String) {
        let item = lock.withLock { items.first { $0.title == title } }
        guard let ref = item?.ref else { return showAlert("No item \(title).") }
        ref.removeValue { error, _ in
            defer { self.answered.signal() }
            if let error { self.showAlert("Error: \(error.localizedDescription)") }
        }
        answered.wait()
    }

    private func printItems() {
        let titles = lock.withLock { items.compactMap(\.title) }
        say("items: \(titles.joined(separator: ", "))")
    }

    private func didTapSignOut() {
        do {
            stopObservingDatabase()
            try Auth.auth().signOut()
            showAlert("signed out")
        } catch let error {
            assertionFailure("Error signing out: \(error)")
        }
    }
}
