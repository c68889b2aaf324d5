import Foundation

/// The target and product names of a package and of every package it depends on by path, as SwiftPM
/// itself reads them (`swift package dump-package`): SwiftPM refuses a package graph in which two
/// packages have a target of one name, so a package `host new` writes must take none of them
/// (`host new plugin Greeter` would write the target GreeterPlugin, and the host package has one).
struct PackageGraphNames {
    /// SwiftPM could not read a package's manifest: what it said.
    struct Unreadable: Error {
        let package: String
        let said: String
    }

    /// Who has each name, by the name lowercased (a case-insensitive file system, as on macOS, takes
    /// `Greeterplugin` for `GreeterPlugin`): "a target of the package SwiftPluginHost".
    private var owners: [String: String] = [:]

    /// Reads the package at `root` (a real path) and the packages it depends on by path, each once.
    init(root: String) throws(Unreadable) {
        var queue = [root], seen: Set<String> = []
        while let folder = queue.popLast() {
            guard seen.insert(folder).inserted else { continue }
            let manifest = try Self.dump(folder)
            let package = manifest.name ?? URL(fileURLWithPath: folder).lastPathComponent
            for (names, what) in [(manifest.targets, "a target"), (manifest.products, "a product")] {
                for name in names ?? [] where owners[name.name.lowercased()] == nil {
                    owners[name.name.lowercased()] = "\(what) of the package \(package)"
                }
            }
            queue += (manifest.dependencies ?? []).flatMap { $0.fileSystem ?? [] }.compactMap(\.path)
        }
    }

    /// Who has `name` already (SwiftPM would refuse a second), or nil if it is free.
    func owner(of name: String) -> String? { owners[name.lowercased()] }

    /// What `swift package dump-package` says of the package in `folder`: only what is read here.
    private struct Manifest: Decodable {
        struct Named: Decodable { let name: String }
        struct Dependency: Decodable {
            struct Local: Decodable { let path: String? }
            let fileSystem: [Local]?
        }
        let name: String?
        let targets: [Named]?
        let products: [Named]?
        let dependencies: [Dependency]?
    }

    private static func dump(_ folder: String) throws(Unreadable) -> Manifest {
        // What SwiftPM says on stderr goes to a file: read after it exits, it cannot fill a pipe
        // while stdout is being read.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("host-new-\(UUID().uuidString)")
        let said = scratch.appendingPathExtension("txt")
        defer {
            try? FileManager.default.removeItem(at: said)
            try? FileManager.default.removeItem(at: scratch)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // A scratch folder of its own: the package's `.build` may be locked by a build that runs this
        // very `host` (its tests do), and SwiftPM would wait for that build to end.
        process.arguments = ["swift", "package", "--package-path", folder, "--scratch-path", scratch.path, "dump-package"]
        let output = Pipe()
        process.standardOutput = output
        process.standardInput = FileHandle.nullDevice
        do {
            guard FileManager.default.createFile(atPath: said.path, contents: nil) else {
                throw CocoaError(.fileWriteUnknown)
            }
            process.standardError = try FileHandle(forWritingTo: said)
            try process.run()
        } catch {
            throw Unreadable(package: folder, said: "cannot run swift package dump-package: \(error.localizedDescription)")
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let manifest = try? JSONDecoder().decode(Manifest.self, from: data) else {
            let text = (try? String(contentsOf: said, encoding: .utf8)) ?? ""
            throw Unreadable(package: folder, said: text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        return manifest
    }
}
