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
        try Subprocess(tool: "swift-api-digester", arguments: [
            "-dump-sdk", "-abi", "-avoid-location", "-avoid-tool-args", "-module", module,
        ] + searchArguments + ["-use-interface-for-module", module, "-o", output.path])
            .succeed("swift-api-digester -dump-sdk on \(module)")
    }

    /// What changed in the library's ABI since the dump `baseline`.
    func findings(against baseline: URL) throws -> ABIFindings {
        try requireInterface()
        let report = try Subprocess(tool: "swift-api-digester", arguments: [
            "-diagnose-sdk", "-abi", "-baseline-path", baseline.path, "-module", module,
        ] + searchArguments + ["-use-interface-for-module", module])
            .succeed("swift-api-digester -diagnose-sdk on \(module) against \(baseline.path)")
        return ABIFindings(report: report)
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
