import Foundation

/// Protocol requirements added since the baseline that a conformer built against the baseline would
/// have no witness for. `swift-api-digester` calls a new requirement an addition as soon as the
/// protocol has an extension member of its name, even one in a constrained extension (`extension P
/// where Self: Equatable`): then an old conformer that is not so gets no witness, and a call through
/// the new requirement jumps to address 0. A requirement is an addition only if every old conformer
/// gets a witness: here, a member of the protocol's unconstrained extension with the requirement's
/// signature. A default anywhere else (a constrained extension, an extension of another protocol)
/// counts as none: the rule then asks a major version where one might not have been needed, never
/// the other way round.
struct UnwitnessedRequirements {
    /// Each such requirement, as the digester names declarations: `Func Forecaster.tomorrow()`.
    let declarations: [String]

    /// Compares the ABI dump of the baseline with the library's own now.
    init(baseline: URL, now: URL) throws {
        let old = try Self.protocols(in: baseline), new = try Self.protocols(in: now)
        declarations = new.flatMap { usr, proto -> [String] in
            // A protocol new since the baseline has no old conformers.
            guard let before = old[usr] else { return [] }
            let oldRequirements = Set(before.requirements.compactMap { $0["usr"] as? String })
            let defaults = Set(proto.defaults.map(Self.signature))
            return proto.requirements
                .filter { requirement in
                    !oldRequirements.contains(requirement["usr"] as? String ?? "") && !defaults.contains(Self.signature(requirement))
                }
                .map { "\($0["declKind"] as? String ?? "Decl") \(proto.name).\($0["printedName"] as? String ?? "?")" }
        }.sorted()
    }

    /// A protocol in a dump: its requirements, and the members of its extensions that may witness them.
    private struct ProtocolDecl {
        let name: String
        let requirements: [[String: Any]]
        let defaults: [[String: Any]]
    }

    /// Every protocol of the dump at `file`, by its USR, nested ones too.
    private static func protocols(in file: URL) throws -> [String: ProtocolDecl] {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: file))
        guard let root = (json as? [String: Any])?["ABIRoot"] as? [String: Any] else {
            throw GateError.toolFailed(what: "reading the ABI dump \(file.path)", output: "no ABIRoot in it")
        }
        var found: [String: ProtocolDecl] = [:]
        var nodes = [root]
        while let node = nodes.popLast() {
            let children = node["children"] as? [[String: Any]] ?? []
            nodes += children
            guard node["declKind"] as? String == "Protocol", let usr = node["usr"] as? String else { continue }
            found[usr] = ProtocolDecl(
                name: node["printedName"] as? String ?? usr,
                requirements: children.filter { $0["protocolReq"] as? Bool == true },
                defaults: children.filter { $0["isFromExtension"] as? Bool == true })
        }
        return found
    }

    /// What a requirement and its witness share: the declaration as the dump has it, less what tells a
    /// requirement from an extension member (names, flags, attributes). The generic signature stays:
    /// a constrained extension's adds its constraints.
    private static func signature(_ node: [String: Any]) -> String {
        let text = (try? JSONSerialization.data(withJSONObject: stripped(node), options: [.sortedKeys])) ?? Data()
        return String(decoding: text, as: UTF8.self)
    }

    private static let notSignature: Set<String> = [
        "usr", "mangledName", "protocolReq", "reqNewWitnessTableEntry", "isFromExtension", "sugared_genericSig",
        "declAttributes", "implicit",
    ]

    private static func stripped(_ value: Any) -> Any {
        if let node = value as? [String: Any] {
            return node.filter { !notSignature.contains($0.key) }.mapValues(stripped)
        }
        if let list = value as? [Any] { return list.map(stripped) }
        return value
    }
}
