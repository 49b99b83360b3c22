import Crypto

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// Firebase's simple node hash (wire protocol §8.1): the `h` of listens and compare-and-set puts,
/// and Hearth's REST ETag.
///
/// Leaves hash the text `[priority:<p>:]<type>:<value>`, numbers as the 16 hex digits of their
/// IEEE-754 bits; objects hash `[priority:<p>:]` followed by `:<key>:<child hash>` for each child
/// in priority order. The result is base64 SHA-1, or the empty string for null.
public enum NodeHash {
    /// The hash of `node`, or `""` for null.
    public static func hash(_ node: Node) -> String {
        guard let text = hashText(node) else { return "" }
        return digest(text)
    }

    private static func digest(_ text: String) -> String {
        let digest = Insecure.SHA1.hash(data: Array(text.utf8))
        return Data(digest).base64EncodedString()
    }

    private static func hashText(_ node: Node) -> String? {
        switch node {
        case .null:
            return nil
        case .leaf(let value, let priority):
            return priorityText(priority) + leafText(value)
        case .object(let children, let priority):
            var text = priorityText(priority)
            for (key, child) in childrenInPriorityOrder(children) {
                let childHash = hash(child)
                guard !childHash.isEmpty else { continue }
                text += ":" + key.string + ":" + childHash
            }
            return text.isEmpty ? nil : text
        }
    }

    private static func priorityText(_ priority: Priority?) -> String {
        guard let priority else { return "" }
        return "priority:" + leafText(priority.leafValue) + ":"
    }

    private static func leafText(_ value: LeafValue) -> String {
        switch value {
        case .bool(let bool): return "boolean:" + (bool ? "true" : "false")
        case .number(let number): return "number:" + hexBits(number.doubleValue)
        case .string(let string): return "string:" + string
        }
    }

    private static func hexBits(_ double: Double) -> String {
        let hex = String(double.bitPattern, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    /// Children without priority first, then by priority, ties by key.
    private static func childrenInPriorityOrder(_ children: ChildMap) -> [(key: ChildKey, value: Node)] {
        let entries = Array(children)
        guard entries.contains(where: { $0.value.priority != nil }) else { return entries }
        return entries.sorted { left, right in
            switch (left.value.priority, right.value.priority) {
            case (nil, nil): return left.key < right.key
            case (nil, _): return true
            case (_, nil): return false
            case (let leftPriority?, let rightPriority?):
                if leftPriority != rightPriority { return leftPriority < rightPriority }
                return left.key < right.key
            }
        }
    }
}
