import Foundation

/// `host new plugin NAME` and `host new contracts NAME`: writes a package that builds as it is, and
/// whose library the host loads, into a new or empty folder; never over a file.
struct NewCommand {
    let arguments: NewArguments

    /// Writes the package and says what it wrote and what to run next; returns the exit status: 2 for
    /// what the command line can fix (a folder that is not empty, no host package, a name the host
    /// package has), 1 if a write failed or SwiftPM could not read the host package.
    func run() -> Int32 {
        let names = ScaffoldNames(arguments.name, kind: arguments.kind)
        // As printed before each file's path: without the slash a folder may be given with.
        let folder = arguments.folder.map { $0.count > 1 && $0.hasSuffix("/") ? String($0.dropLast()) : $0 } ?? names.library
        let hostPackage: String
        let contracts: ContractsPackage?
        do throws(Arguments.UsageError) {
            try Self.requireEmpty(folder)
            hostPackage = try self.hostPackage()
            try Self.requireOwnIdentity(folder, hostPackage: hostPackage)
            contracts = try arguments.contracts.map(ContractsPackage.init)
            if arguments.distributed, let contracts, !contracts.isDistributed {
                throw Arguments.UsageError(description: "--contracts \(contracts.folder): its protocol is not distributed (host new"
                                           + " contracts --distributed writes one); write the plugin without --distributed",
                                           command: .new)
            }
        } catch {
            Output.problem(error.description)
            Output.problem(error.hint)
            return 2
        }
        if let status = requireFreeName(names, hostPackage: hostPackage) { return status }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            Output.problem("cannot make the folder \(folder): \(error.localizedDescription)")
            return 1
        }
        guard let realFolder = PackagePaths.real(folder) else {
            Output.problem("cannot find the folder \(folder) just made")
            return 1
        }
        let host = PackagePaths.relative(hostPackage, from: realFolder)
        let files = switch arguments.kind {
        case .contracts: ContractsScaffold.files(names, hostPackage: host, distributed: arguments.distributed)
        case .plugin: PluginScaffold.files(names, hostPackage: host, contracts: contracts.map {
            PluginScaffold.Contracts(names: $0.names, path: PackagePaths.relative($0.folder, from: realFolder),
                                     isDistributed: $0.isDistributed, isUsed: arguments.uses)
        })
        }
        for file in files {
            if let failure = Self.write(file, in: realFolder) {
                Output.problem("cannot write \(folder)/\(file.path): \(failure)")
                return 1
            }
            Output.line("wrote \(folder)/\(file.path)")
        }
        Output.lines(["", "next:"] + nextCommands(names, folder: folder, contracts: contracts?.names).map { "  " + $0 })
        return 0
    }

    /// The folder must not exist, or be an empty folder: `host new` writes no file over another.
    private static func requireEmpty(_ folder: String) throws(Arguments.UsageError) {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) else { return }
        guard isFolder.boolValue else {
            throw Arguments.UsageError(description: "\(folder) is a file, not a folder: choose another --in FOLDER", command: .new)
        }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [""]
        guard entries.isEmpty else {
            throw Arguments.UsageError(description: "the folder \(folder) is not empty: host new writes into a new or empty"
                                       + " folder only, never over a file; choose another --in FOLDER", command: .new)
        }
    }

    /// SwiftPM knows a package by its folder's name, whatever its manifest says: a new package in a
    /// folder named as the host package's, or as a package inside it, would not build.
    private static func requireOwnIdentity(_ folder: String, hostPackage: String) throws(Arguments.UsageError) {
        // The packages the host package depends on (its Package.swift): PluginAPI and SampleContracts.
        let taken = [URL(fileURLWithPath: hostPackage).lastPathComponent, "PluginAPI", "SampleContracts"]
        let name = URL(fileURLWithPath: folder).lastPathComponent
        guard let clash = taken.first(where: { $0.lowercased() == name.lowercased() }) else { return }
        throw Arguments.UsageError(description: "the folder \(folder) is named as the package \(clash) of the host package, and"
                                   + " SwiftPM knows a package by its folder's name; choose another NAME or --in FOLDER",
                                   command: .new)
    }

    /// SwiftPM refuses a package graph in which two packages have a target (or product) of one name:
    /// the new package's, named `names.library`, must be none of the host package's or of a package it
    /// depends on, as SwiftPM reads them. Returns the exit status if it is taken (2, with a name that
    /// is free) or cannot be read (1); nil if it is free.
    private func requireFreeName(_ names: ScaffoldNames, hostPackage: String) -> Int32? {
        let taken: PackageGraphNames
        do throws(PackageGraphNames.Unreadable) {
            taken = try PackageGraphNames(root: hostPackage)
        } catch {
            Output.problem("cannot read the target names of the package at \(error.package) (swift package dump-package), which"
                           + " the new package's must not repeat:")
            error.said.split(separator: "\n").prefix(20).forEach { Output.problem("  " + $0) }
            return 1
        }
        guard let owner = taken.owner(of: names.library) else { return nil }
        let kind = arguments.kind
        // A NAME whose package would be free, to suggest: the first of a few.
        let free = (["My" + names.base] + (2...9).map { names.base + String($0) })
            .first { taken.owner(of: ScaffoldNames($0, kind: kind).library) == nil }
        Output.problem("host new \(kind.rawValue) \(arguments.name) would name its target and library \(names.library), the name of"
                       + " \(owner), and SwiftPM refuses a package graph with two of one name; choose another NAME"
                       + (free.map { ", such as \($0)" } ?? ""))
        Output.problem(Arguments.UsageError(description: "", command: .new).hint)
        return 2
    }

    /// `--host-package`, else the package this `host` was built from: its real path.
    private func hostPackage() throws(Arguments.UsageError) -> String {
        if let given = arguments.hostPackage {
            guard let real = PackagePaths.real(given), PackagePaths.isHostPackage(real) else {
                throw Arguments.UsageError(description: "--host-package \(given): no SwiftPluginHost package there (a"
                                           + " Package.swift with Package(name: \"SwiftPluginHost\", ...))", command: .new)
            }
            return real
        }
        guard let found = PackagePaths.runningHostPackage() else {
            throw Arguments.UsageError(description: "cannot find the SwiftPluginHost package this host was built from"
                                       + " (above \(PackagePaths.hostCommand)): pass --host-package PATH, your clone of it",
                                       command: .new)
        }
        return found
    }

    /// What to run after, each from the folder `host new` ran in: build the package, then load what it
    /// built (a contracts package: write a plugin for it, and check its ABI).
    private func nextCommands(_ names: ScaffoldNames, folder: String, contracts: ScaffoldNames?) -> [String] {
        let host = PackagePaths.shellWord(PackagePaths.hostCommand)
        let build = "swift build --package-path \(PackagePaths.shellWord(folder))"
        switch arguments.kind {
        case .contracts:
            return [build, "\(host) new plugin NAME --contracts \(PackagePaths.shellWord(folder))"
                    + (arguments.distributed ? " --distributed" : "") + "   (a plugin that provides \(names.serviceProtocol))",
                    "\(PackagePaths.shellWord(folder + "/ci/check-abi"))   (before each release; --update at the first)"]
        case .plugin:
            let library = PackagePaths.shellWord(folder + "/.build/debug/lib\(names.library).so")
            // It starts once a plugin that provides what it uses is loaded beside it.
            if arguments.uses, let contracts {
                return [build, "\(host) run --plugins PROVIDER.so --plugins \(library)   (PROVIDER.so: a plugin that provides "
                        + "\(contracts.serviceProtocol))"]
            }
            let key = contracts?.serviceKey ?? names.greetingKey
            return [build, "\(host) check --plugins \(library)", "\(host) resolve \(key) --plugins \(library)"]
        }
    }

    /// Writes `file` in `folder`, creating it, never over a file that exists; returns why it could
    /// not, or nil.
    private static func write(_ file: ScaffoldFile, in folder: String) -> String? {
        let path = URL(fileURLWithPath: folder + "/" + file.path)
        do {
            try FileManager.default.createDirectory(at: path.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(file.text.utf8).write(to: path, options: .withoutOverwriting)
            if file.executable { try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path.path) }
        } catch {
            return error.localizedDescription
        }
        return nil
    }
}
