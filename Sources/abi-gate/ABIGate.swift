import Foundation

/// `abi-gate`: a contract library's ABI against the baseline of its last release, and the version
/// rule. The `check-abi` command plugin and `.ci/api-check` run it; see `GateOptions.usage`.
@main enum ABIGate {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        if arguments.contains("--help") || arguments.contains("-h") {
            print(GateOptions.usage)
            exit(0)
        }
        do {
            exit(try run(GateOptions(arguments)) ? 0 : 1)
        } catch {
            // stdout first, so that with 2>&1 the reason comes after what was printed before it.
            fflush(nil)
            FileHandle.standardError.write(Data("abi-gate: \(error)\n".utf8))
            exit(2)
        }
    }

    /// Checks the library, or writes its baseline; returns whether the rule holds.
    static func run(_ options: GateOptions) throws -> Bool {
        let version = try VersionDeclaration.read(module: options.module, in: options.sources)
        let digester = APIDigester(module: options.module, searchPaths: [options.modules])
        switch options.baseline {
        case let .folder(folder):
            let committed = CommittedBaseline(module: options.module, folder: folder)
            if options.update {
                // A release's baseline replaces the last one only if the release keeps the rule
                // against it: else --update would hide the break it should have stopped.
                if try committed.exists, !(try judge(options.module, version, try committed.read(), digester)) {
                    print("\(options.module): the baseline was not written: fix what failed first")
                    return false
                }
                try committed.write(digester: digester, version: version)
                print("\(options.module): wrote \(committed.dumpFile.relativePath) and \(committed.versionFile.relativePath) (\(version))")
                return true
            }
            return try judge(options.module, version, try committed.read(), digester)
        case let .tag(tag):
            let work = FileManager.default.temporaryDirectory.appendingPathComponent("abi-gate-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: work) }
            let baseline = try TagBaseline(module: options.module, tag: tag, sources: options.sources, modules: options.modules)
                .make(in: work)
            return try judge(options.module, version, baseline, digester)
        }
    }

    private static func judge(_ module: String, _ version: SemanticVersion, _ baseline: Baseline,
                              _ digester: APIDigester) throws -> Bool {
        let verdict = Verdict(module: module, version: version, baseline: baseline,
                              findings: try digester.findings(against: baseline.dump))
        verdict.lines.forEach { print($0) }
        return verdict.passed
    }
}
