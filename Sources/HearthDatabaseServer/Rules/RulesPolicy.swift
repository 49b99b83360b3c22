import HearthRules

/// Which rules each namespace enforces, and how denials are reported.
///
/// A rules file (`--rules`, or the one `firebase.json` names) applies to every namespace and wins
/// over rules set through `/.settings/rules.json`, until the file changes again. Without a file,
/// a namespace enforces the rules last set through the REST API, else `fallback`.
public struct RulesPolicy: Sendable {
    /// The rules file's document, if the server was started with one.
    public var fileRules: RulesDocument?
    /// The rules of a namespace that has none of its own.
    public var fallback: RulesDocument
    /// Whether each denial is logged with the rule expressions that decided it.
    public var explainsDenials: Bool

    public init(fileRules: RulesDocument? = nil, fallback: RulesDocument, explainsDenials: Bool) {
        self.fileRules = fileRules
        self.fallback = fallback
        self.explainsDenials = explainsDenials
    }

    /// Development without a rules file: everything open, as the Firebase emulator does.
    public static let development = RulesPolicy(fallback: .open, explainsDenials: true)
}
