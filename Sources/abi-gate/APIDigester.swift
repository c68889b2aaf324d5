import Foundation

/// `swift-api-digester` on a library built for library evolution. It reads the library's module
/// interface, not its binary module: a debug build is testable, so its binary module also carries
/// internal declarations, and a change to one of those is no break for any client.
struct APIDigester {
    /// The library's module name.
    let module: String
    /// The folders to find it and the modules it imports in, searched in order.
    let searchPaths: [URL]

    /// Writes the library's ABI (a JSON dump, as `api/<Module>.abi.json` holds) to `output`.
    func dump(to output: URL) throws {
        try requireInterface()
        let said = try Subprocess(tool: "swift-api-digester", arguments: [
            "-dump-sdk", "-abi", "-avoid-location", "-avoid-tool-args", "-module", module,
        ] + searchArguments + ["-use-interface-for-module", module, "-o", output.path])
            .succeed("swift-api-digester -dump-sdk on \(module)")
        try requireLoaded(said, doing: "-dump-sdk")
    }

    /// What changed in the library's ABI since the dump `baseline`: the digester's report, with a new
    /// requirement whose default not every old conformer gets counted a break (``UnwitnessedRequirements``).
    func findings(against baseline: URL) throws -> ABIFindings {
        try requireInterface()
        let report = try Subprocess(tool: "swift-api-digester", arguments: [
            "-diagnose-sdk", "-abi", "-baseline-path", baseline.path, "-module", module,
        ] + searchArguments + ["-use-interface-for-module", module])
            .succeed("swift-api-digester -diagnose-sdk on \(module) against \(baseline.path)")
        try requireLoaded(report, doing: "-diagnose-sdk")
        // The digester takes any extension member of a new requirement's name for its default; the
        // library's own dump tells which defaults every old conformer gets.
        let now = FileManager.default.temporaryDirectory.appendingPathComponent("abi-gate-\(module)-\(UUID().uuidString).json")
        defer { try? FileManager.default.removeItem(at: now) }
        try dump(to: now)
        return ABIFindings(report: report).breaking(try UnwitnessedRequirements(baseline: baseline, now: now).declarations)
    }

    /// The digester exits 0 when it cannot load the module (its interface does not build: a module
    /// it imports is not in the search paths, say) and then dumps an empty module, or reports its
    /// compiler errors as if they were findings: that is no verdict, and no baseline.
    private func requireLoaded(_ said: String, doing what: String) throws {
        guard said.contains("Failed to load module: \(module)") else { return }
        throw GateError.toolFailed(what: "swift-api-digester \(what) on \(module), which could not load it from "
                                   + searchPaths.map(\.path).joined(separator: ", ")
                                   + " (are the modules it imports there too?)", output: said)
    }

    private var searchArguments: [String] { searchPaths.flatMap { ["-I", $0.path] } }

    /// Only a library built with -enable-library-evolution has an interface; without it the digester
    /// would say something less clear.
    private func requireInterface() throws {
        let found = searchPaths.contains { folder in
            FileManager.default.fileExists(atPath: folder.appendingPathComponent("\(module).swiftinterface").path)
        }
        guard found else {
            throw GateError.noBuiltModule(module: module, modules: searchPaths.map(\.path).joined(separator: ", "))
        }
    }
}
