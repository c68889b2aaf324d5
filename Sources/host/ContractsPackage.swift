import Foundation

/// The contracts package of `host new plugin --contracts PATH`: one `host new contracts` wrote, so the
/// plugin written for it can name its library, protocol, keys and version.
struct ContractsPackage {
    /// Its real path.
    let folder: String
    let names: ScaffoldNames
    /// True if its protocol is a distributed-actor one (`host new contracts --distributed`): its key
    /// is a `DistributedServiceEasyKey`, and a plugin serves it as a distributed actor.
    let isDistributed: Bool

    /// Reads the package at `path`; a usage error says what it lacks.
    init(_ path: String) throws(Arguments.UsageError) {
        func refuse(_ reason: String) -> Arguments.UsageError {
            Arguments.UsageError(description: "--contracts \(path): \(reason)", command: .new)
        }
        guard let folder = PackagePaths.real(path), let manifest = try? String(contentsOfFile: folder + "/Package.swift", encoding: .utf8) else {
            throw refuse("no Package.swift there")
        }
        guard let match = manifest.firstMatch(of: #/Package\(\s*name:\s*"([A-Za-z0-9_]+)"/#),
              NewArguments.isIdentifier(String(match.1)) else {
            throw refuse("its Package.swift names no package as host new contracts writes it: Package(name: \"NAMEContracts\", ...")
        }
        let names = ScaffoldNames(String(match.1), kind: .contracts)
        guard names.library == match.1 else {
            throw refuse("the package \(match.1) is no contracts package (its name does not end in Contracts)")
        }
        // The declarations the plugin is written against, as `host new contracts` writes them.
        let sources = folder + "/Sources/" + names.library
        let text = ((try? FileManager.default.contentsOfDirectory(atPath: sources)) ?? []).sorted()
            .filter { $0.hasSuffix(".swift") }
            .compactMap { try? String(contentsOfFile: sources + "/" + $0, encoding: .utf8) }.joined(separator: "\n")
        let expected = ["public protocol \(names.serviceProtocol)", "public enum \(names.keys)",
                        "public static var \(names.versionProperty): LibraryVersion"]
        let missing = expected.filter { !text.contains($0) }
        guard missing.isEmpty else {
            throw refuse("Sources/\(names.library) does not declare \(missing.joined(separator: ", ")) as host new contracts"
                         + " writes them; write the plugin without --contracts and add the dependency by hand")
        }
        self.folder = folder
        self.names = names
        isDistributed = text.contains("DistributedServiceEasyKey<any \(names.serviceProtocol),")
    }
}
