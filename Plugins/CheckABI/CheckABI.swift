import Foundation
import PackagePlugin

/// `swift package check-abi`: builds the package's contract libraries (its dynamic library products
/// built with -enable-library-evolution, or the `--target`s given) and runs `abi-gate` on each, against
/// the baseline in the package's `api/` folder or, with `--baseline-tag TAG`, the library's sources at
/// that git tag. `--update` (with `--allow-writing-to-package-directory`) writes the baselines at a
/// release. Fails if any library breaks the version rule or cannot be compared.
@main struct CheckABI: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var extractor = ArgumentExtractor(arguments)
        let named = extractor.extractOption(named: "target")
        let tags = extractor.extractOption(named: "baseline-tag")
        let update = extractor.extractFlag(named: "update") > 0
        guard extractor.remainingArguments.isEmpty, tags.count <= 1 else {
            throw CheckABIError.usage("unexpected \(extractor.remainingArguments + tags.dropFirst()); "
                + "usage: swift package check-abi [--target NAME]... [--baseline-tag TAG | --update]")
        }
        let gate = try context.tool(named: "abi-gate").url
        let package = context.package
        let libraries = try Self.libraries(of: package, named: named)
        guard !libraries.isEmpty else {
            throw CheckABIError.usage("package \(package.displayName) has no dynamic library product; "
                + "name the contract library with --target NAME")
        }

        var worst: Int32 = 0
        var checked = 0
        for library in libraries {
            let result = try build(library)
            let modules = Self.modulesFolder(of: result, in: package)
            let interface = modules.appendingPathComponent("\(library.target.moduleName).swiftinterface")
            // An interface from an earlier build stays when library evolution is turned off since, and
            // nothing in the build folder tells the two apart (a compiler keeps an unchanged interface
            // file, so its time says nothing): the module and its interfaces are made again (seconds
            // for a contract library), so that only what this build emits is judged.
            if FileManager.default.fileExists(atPath: interface.path) {
                for suffix in ["swiftinterface", "private.swiftinterface", "package.swiftinterface", "swiftmodule"] {
                    try? FileManager.default.removeItem(at: modules.appendingPathComponent("\(library.target.moduleName).\(suffix)"))
                }
                _ = try build(library)
            }
            // A library product not built for library evolution has no stable ABI to hold: a plugin, say.
            if !library.named && !FileManager.default.fileExists(atPath: interface.path) {
                // ... unless it had a baseline: then it was one, and losing library evolution breaks every plugin.
                let baseline = package.directoryURL.appendingPathComponent("api/\(library.target.moduleName).abi.json")
                if FileManager.default.fileExists(atPath: baseline.path) {
                    print("\(library.target.name): FAILED: it has a baseline (api/\(library.target.moduleName).abi.json) but is no "
                        + "longer built with -enable-library-evolution: plugins built against it would break")
                    worst = max(worst, 1)
                    continue
                }
                print("\(library.target.name): not built with -enable-library-evolution, not a contract library; skipped")
                continue
            }
            var gateArguments = [library.target.moduleName, "--modules", modules.path,
                                 "--sources", library.target.directoryURL.path]
            if let tag = tags.first {
                gateArguments += ["--baseline-tag", tag]
            } else {
                // Relative to the package, where the gate runs: its messages then name api/<Module>.abi.json.
                gateArguments += ["--baseline", "api"]
            }
            if update { gateArguments.append("--update") }
            worst = max(worst, try Self.run(gate, gateArguments, in: package.directoryURL))
            checked += 1
        }
        // A plugins-only package has nothing to check: saying "ok" there would hide a wrong folder.
        guard checked > 0 else {
            throw CheckABIError.usage("package \(package.displayName) has no contract library (a dynamic library built with "
                + "-enable-library-evolution); run check-abi in the contract library's package, or name it with --target NAME")
        }
        if worst != 0 {
            throw CheckABIError.gateFailed(worst)
        }
    }

    /// Builds `library` (debug, as the gate reads the modules of that build); throws if the build fails.
    private func build(_ library: Library) throws -> PackageManager.BuildResult {
        let result = try packageManager.build(library.build, parameters: .init(configuration: .debug, logging: .concise))
        guard result.succeeded else {
            print(result.logText)
            throw CheckABIError.buildFailed(library.target.name)
        }
        return result
    }

    /// One library to check: its target, how to build it, whether the user named it.
    private struct Library {
        let target: SwiftSourceModuleTarget
        let build: PackageManager.BuildSubset
        let named: Bool
    }

    /// The targets named with `--target`, or else the Swift targets of the package's dynamic library products.
    private static func libraries(of package: Package, named: [String]) throws -> [Library] {
        if !named.isEmpty {
            return try package.targets(named: named).map { target in
                guard let source = target as? SwiftSourceModuleTarget else {
                    throw CheckABIError.usage("target \(target.name) is no Swift library target")
                }
                return Library(target: source, build: .target(target.name), named: true)
            }
        }
        return package.products.compactMap { $0 as? LibraryProduct }.filter { $0.kind == .dynamic }.flatMap { product in
            product.targets.compactMap { $0 as? SwiftSourceModuleTarget }
                .map { Library(target: $0, build: .product(product.name), named: false) }
        }
    }

    /// Where the build put the modules: `Modules/` beside the built library (SwiftPM 6), or the build
    /// folder itself (earlier releases).
    private static func modulesFolder(of result: PackageManager.BuildResult, in package: Package) -> URL {
        let folder = result.builtArtifacts.first?.url.deletingLastPathComponent()
            ?? package.directoryURL.appendingPathComponent(".build/debug")
        let modules = folder.appendingPathComponent("Modules")
        return FileManager.default.fileExists(atPath: modules.path) ? modules : folder
    }

    /// Runs `abi-gate`, its output going where this plugin's goes; returns its exit status.
    private static func run(_ gate: URL, _ arguments: [String], in folder: URL) throws -> Int32 {
        let process = Process()
        process.executableURL = gate
        process.arguments = arguments
        process.currentDirectoryURL = folder
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// Why `check-abi` failed, beside what `abi-gate` printed.
enum CheckABIError: Error, CustomStringConvertible {
    case usage(String)
    case buildFailed(String)
    case gateFailed(Int32)

    var description: String {
        switch self {
        case let .usage(text): text
        case let .buildFailed(target): "building \(target) failed"
        case let .gateFailed(status):
            status == 1 ? "a contract library breaks the version rule (see above)"
                : "a contract library could not be compared with its baseline (see above)"
        }
    }
}
