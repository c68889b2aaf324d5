import Foundation

/// A baseline made from a git tag: the library's sources as the tag has them, compiled on their own
/// (`swiftc -emit-module -enable-library-evolution -emit-module-interface`, against the modules the
/// current build holds for its dependencies) into a temporary folder, then dumped. Nothing needs to be
/// committed but the tag.
struct TagBaseline {
    /// The library's module name.
    let module: String
    /// The git tag (or any commit name) of the release.
    let tag: String
    /// The library's sources now, inside a git work tree; the same path at `tag` is compiled.
    let sources: URL
    /// The current build's modules: the library's dependencies are found there.
    let modules: URL

    /// Extracts, compiles and dumps the release's library under `work`.
    func make(in work: URL) throws -> Baseline {
        let git = { (arguments: [String], what: String) throws -> String in
            try Subprocess(tool: "git", arguments: arguments, folder: self.sources).succeed(what)
                .trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let root = try git(["rev-parse", "--show-toplevel"], "finding the git repository of \(sources.path)")
        let prefix = try git(["rev-parse", "--show-prefix"], "finding \(sources.path) in its git repository")
        let (status, _) = try Subprocess(tool: "git", arguments: ["rev-parse", "--verify", "--quiet", "\(tag)^{commit}"],
                                         folder: sources).run()
        guard status == 0 else {
            throw GateError.toolFailed(what: "finding the baseline", output: "no tag or commit '\(tag)' in the git repository \(root)")
        }
        let archive = work.appendingPathComponent("release.tar")
        try Subprocess(tool: "git", arguments: ["archive", "--format=tar", "-o", archive.path, tag, "--",
                                                prefix.isEmpty ? "." : prefix], folder: URL(fileURLWithPath: root))
            .succeed("taking \(prefix.isEmpty ? "the repository" : prefix) as tag '\(tag)' has it")
        let extracted = work.appendingPathComponent("release")
        try FileManager.default.createDirectory(at: extracted, withIntermediateDirectories: true)
        try Subprocess(tool: "tar", arguments: ["-xf", archive.path, "-C", extracted.path]).succeed("unpacking \(archive.path)")
        let releaseSources = extracted.appendingPathComponent(prefix)

        let version = try VersionDeclaration.read(module: module, in: releaseSources)
        let built = work.appendingPathComponent("module")
        try compile(VersionDeclaration.swiftFiles(in: releaseSources), into: built)
        let dump = work.appendingPathComponent("\(module).abi.json")
        try APIDigester(module: module, searchPaths: [built, modules]).dump(to: dump)
        return Baseline(dump: dump, version: version, origin: "tag \(tag)", atRelease: "at the release, tag it")
    }

    /// Compiles the release's `files` to a module and its interface in `folder`.
    private func compile(_ files: [URL], into folder: URL) throws {
        guard !files.isEmpty else {
            throw GateError.toolFailed(what: "compiling \(module) as tag '\(tag)' has it", output: "no .swift files there")
        }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let arguments = ["-emit-module", "-enable-library-evolution", "-emit-module-interface", "-parse-as-library",
                         "-module-name", module,
                         "-emit-module-path", folder.appendingPathComponent("\(module).swiftmodule").path,
                         "-emit-module-interface-path", folder.appendingPathComponent("\(module).swiftinterface").path,
                         "-I", modules.path]
            + languageFlags() + moduleMaps().flatMap { ["-Xcc", "-fmodule-map-file=\($0.path)"] }
            + files.map(\.path)
        try Subprocess(tool: "swiftc", arguments: arguments).succeed("compiling \(module) as tag '\(tag)' has it")
    }

    /// The language mode and features the library is built with now, from its interface's
    /// `// swift-module-flags:` line: the release is compiled the same way.
    private func languageFlags() -> [String] {
        let interface = modules.appendingPathComponent("\(module).swiftinterface")
        guard let text = try? String(contentsOf: interface, encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("// swift-module-flags:") }) else {
            return ["-swift-version", "6"]
        }
        let words = line.split(separator: " ").map(String.init)
        var kept: [String] = []
        for (index, word) in words.enumerated() where index + 1 < words.count {
            if ["-swift-version", "-enable-upcoming-feature", "-enable-experimental-feature"].contains(word) {
                kept += [word, words[index + 1]]
            }
        }
        return kept.contains("-swift-version") ? kept : ["-swift-version", "6"] + kept
    }

    /// The module maps of the build's C targets (SwiftPM puts each in `<build>/<Target>.build/`), for a
    /// library that imports one.
    private func moduleMaps() -> [URL] {
        let build = modules.deletingLastPathComponent()
        let folders = (try? FileManager.default.contentsOfDirectory(atPath: build.path)) ?? []
        return folders.filter { $0.hasSuffix(".build") }.sorted()
            .map { build.appendingPathComponent($0).appendingPathComponent("module.modulemap") }
            .filter { FileManager.default.fileExists(atPath: $0.path) }
    }
}
