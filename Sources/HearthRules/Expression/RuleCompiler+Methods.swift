import HearthCore

/// Method calls: the methods of snapshots (`child`, `val`, `hasChildren`, …) and of strings
/// (`contains`, `matches`, …).
extension RuleCompiler {
    func call(_ callee: RuleSyntax, _ arguments: [RuleSyntax], offset: Int) throws(RuleSyntaxError) -> Compiled {
        let target: RuleSyntax
        let name: String
        switch callee {
        case .member(let receiver, let method, _):
            (target, name) = (receiver, method)
        case .subscripted(let receiver, .string(let method), _):
            (target, name) = (receiver, method)
        case .subscripted(_, _, let offset):
            throw RuleSyntaxError(offset: offset, "a method named with [] must be a literal string")
        default:
            throw RuleSyntaxError(offset: offset, "only methods can be called")
        }
        let receiver = try compile(target)
        switch receiver.type {
        case .snapshot:
            return try snapshotMethod(name, of: receiver.evaluate, arguments, offset: offset)
        case .string, .object, .value:
            return try stringMethod(name, of: receiver.evaluate, arguments, offset: offset)
        default:
            throw RuleSyntaxError(offset: offset, "\(receiver.type.name) has no method '\(name)'")
        }
    }

    // MARK: Snapshots

    private func snapshotMethod(
        _ name: String, of receiver: @escaping CompiledExpression, _ arguments: [RuleSyntax], offset: Int
    ) throws(RuleSyntaxError) -> Compiled {
        let snapshot = { @Sendable (environment: RuleEnvironment) throws(RuleFailure) -> RuleSnapshot in
            guard case .snapshot(let snapshot) = try receiver(environment) else { throw RuleFailure("not a snapshot") }
            return snapshot
        }
        switch name {
        case "val", "exists", "isNumber", "isString", "isBoolean", "getPriority", "parent":
            try expectCount(0, arguments, name, offset: offset)
        case "child", "hasChild":
            try expectCount(1, arguments, name, offset: offset)
        case "hasChildren":
            guard arguments.count <= 1 else {
                throw RuleSyntaxError(offset: offset, "hasChildren() takes no argument or one array of child names")
            }
        default:
            throw RuleSyntaxError(offset: offset, "snapshots have no method '\(name)'")
        }
        switch name {
        case "val": return (.value, { environment throws(RuleFailure) in try snapshot(environment).value })
        case "exists": return (.boolean, { environment throws(RuleFailure) in .bool(!(try snapshot(environment).node.isNull)) })
        case "getPriority": return (.value, { environment throws(RuleFailure) in try snapshot(environment).priority })
        case "parent": return (.snapshot, { environment throws(RuleFailure) in .snapshot(try snapshot(environment).parent()) })
        case "isNumber", "isString", "isBoolean":
            return (
                .boolean,
                { environment throws(RuleFailure) in
                    guard case .leaf(let leaf, _) = try snapshot(environment).node else { return .bool(false) }
                    switch (leaf, name) {
                    case (.number, "isNumber"), (.string, "isString"), (.bool, "isBoolean"): return .bool(true)
                    default: return .bool(false)
                    }
                }
            )
        case "child", "hasChild":
            let path = try stringArgument(arguments[0], of: name, offset: offset)
            return (
                name == "child" ? .snapshot : .boolean,
                { environment throws(RuleFailure) in
                    let child = try snapshot(environment).child(try Self.string(path(environment), for: name))
                    return name == "child" ? .snapshot(child) : .bool(!child.node.isNull)
                }
            )
        default:  // hasChildren
            guard let argument = arguments.first else {
                return (
                    .boolean,
                    { environment throws(RuleFailure) in
                        guard case .object = try snapshot(environment).node else { return .bool(false) }
                        return .bool(true)
                    }
                )
            }
            guard case .array(let elements, _) = argument else {
                throw RuleSyntaxError(offset: offset, "hasChildren() takes an array of child names, such as ['name', 'age']")
            }
            var paths: [CompiledExpression] = []
            for element in elements { paths.append(try stringArgument(element, of: name, offset: offset)) }
            return (
                .boolean,
                { [paths] environment throws(RuleFailure) in
                    guard !paths.isEmpty else { throw RuleFailure("hasChildren() needs at least one child name") }
                    let parent = try snapshot(environment)
                    for path in paths where parent.child(try Self.string(path(environment), for: name)).node.isNull {
                        return .bool(false)
                    }
                    return .bool(true)
                }
            )
        }
    }

    // MARK: Strings

    private func stringMethod(
        _ name: String, of receiver: @escaping CompiledExpression, _ arguments: [RuleSyntax], offset: Int
    ) throws(RuleSyntaxError) -> Compiled {
        let string = { @Sendable (environment: RuleEnvironment) throws(RuleFailure) -> String in
            try Self.string(receiver(environment), for: name)
        }
        switch name {
        case "contains", "beginsWith", "endsWith":
            try expectCount(1, arguments, name, offset: offset)
            let argument = try stringArgument(arguments[0], of: name, offset: offset)
            return (
                .boolean,
                { environment throws(RuleFailure) in
                    let text = Array(try string(environment).utf8)
                    let part = Array(try Self.string(argument(environment), for: name).utf8)
                    switch name {
                    case "contains": return .bool(part.isEmpty || text.firstRange(of: part) != nil)
                    case "beginsWith": return .bool(text.starts(with: part))
                    default: return .bool(text.reversed().starts(with: part.reversed()))
                    }
                }
            )
        case "replace":
            try expectCount(2, arguments, name, offset: offset)
            let target = try stringArgument(arguments[0], of: name, offset: offset)
            let replacement = try stringArgument(arguments[1], of: name, offset: offset)
            return (
                .string,
                { environment throws(RuleFailure) in
                    let text = try string(environment)
                    let old = try Self.string(target(environment), for: name)
                    let new = try Self.string(replacement(environment), for: name)
                    return .string(Self.replacingEvery(old, with: new, in: text))
                }
            )
        case "toLowerCase", "toUpperCase":
            try expectCount(0, arguments, name, offset: offset)
            return (
                .string,
                { environment throws(RuleFailure) in
                    let text = try string(environment)
                    return .string(name == "toLowerCase" ? text.lowercased() : text.uppercased())
                }
            )
        case "matches":
            try expectCount(1, arguments, name, offset: offset)
            guard case .regex(let pattern, let flags, let regexOffset) = arguments[0] else {
                throw RuleSyntaxError(offset: offset, "matches() takes a regular expression literal such as /^[a-z]+$/")
            }
            let regex: RuleRegex
            do {
                regex = try RuleRegex(pattern: pattern, flags: flags)
            } catch {
                throw RuleSyntaxError(offset: regexOffset, error.problem)
            }
            return (
                .boolean,
                { environment throws(RuleFailure) in
                    guard let found = regex.firstMatchExists(in: try string(environment)) else {
                        throw RuleFailure("the regular expression /\(regex.pattern)/ took too long to match")
                    }
                    return .bool(found)
                }
            )
        default:
            throw RuleSyntaxError(offset: offset, "strings have no method '\(name)'")
        }
    }

    // MARK: Arguments

    private func expectCount(_ count: Int, _ arguments: [RuleSyntax], _ name: String, offset: Int) throws(RuleSyntaxError) {
        guard arguments.count == count else {
            let expected = count == 0 ? "no arguments" : count == 1 ? "one argument" : "\(count) arguments"
            throw RuleSyntaxError(offset: offset, "\(name)() takes \(expected), not \(arguments.count)")
        }
    }

    /// An argument that must be a string: refused when its known type is another.
    private func stringArgument(_ syntax: RuleSyntax, of name: String, offset: Int) throws(RuleSyntaxError) -> CompiledExpression {
        let compiled = try compile(syntax)
        guard compiled.type == .string || compiled.type.isUnknown else {
            throw RuleSyntaxError(offset: offset, "\(name)() takes a string, not \(compiled.type.name)")
        }
        return compiled.evaluate
    }

    static func string(_ value: RuleValue, for method: String) throws(RuleFailure) -> String {
        guard case .string(let string) = value else {
            throw RuleFailure("\(method)() needs a string, not \(value.typeName) \(value.summary)")
        }
        return string
    }

    /// `text` with every occurrence of `old` replaced, compared byte for byte.
    static func replacingEvery(_ old: String, with new: String, in text: String) -> String {
        guard !old.isEmpty else { return text }
        let bytes = Array(text.utf8)
        let pattern = Array(old.utf8)
        var result: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index...].starts(with: pattern) {
                result += new.utf8
                index += pattern.count
            } else {
                result.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: result, as: UTF8.self)
    }
}
