/// The `Package.swift` of a package `host new` writes: one target, built as one dynamic library of
/// the same name, depending on products of the SwiftPluginHost package (`PluginAPI`, and `PluginActors`
/// for a distributed contract) and on `others`.
struct PackageManifest {
    /// A package the target depends on by path, as its product of the same name.
    struct Dependency {
        let name: String
        /// As the manifest says it: relative to the new package when it can be.
        let path: String
        /// Why the target needs it, a line of comment above it.
        let reason: String
    }

    /// The package, its target and its library.
    let library: String
    /// What the package is, as comment lines under the tools version.
    let about: [String]
    /// Why the library is dynamic, comment lines above the product.
    let productReason: [String]
    /// The path of the SwiftPluginHost package, as the manifest says it.
    let hostPackage: String
    var others: [Dependency] = []
    /// The SwiftPluginHost package's products the target depends on.
    var hostProducts = ["PluginAPI"]
    /// Flags for the compiler beside Swift 6 language mode.
    var unsafeFlags: [String] = []

    var text: String {
        let library = ScaffoldFile.literal(library)
        let packages = others.map {
            "\n        // \($0.reason)\n        .package(name: \(ScaffoldFile.literal($0.name)), path: \(ScaffoldFile.literal($0.path))),"
        }.joined()
        let products = others.map {
            ",\n" + String(repeating: " ", count: 27)
                + ".product(name: \(ScaffoldFile.literal($0.name)), package: \(ScaffoldFile.literal($0.name)))"
        }.joined()
        let host = hostProducts.map { ".product(name: \(ScaffoldFile.literal($0)), package: \"SwiftPluginHost\")" }
            .joined(separator: ",\n" + String(repeating: " ", count: 27))
        let flags = unsafeFlags.isEmpty ? "" : ", .unsafeFlags([\(unsafeFlags.map(ScaffoldFile.literal).joined(separator: ", "))])"
        return """
            // swift-tools-version:6.0
            \(about.map { "// " + $0 }.joined(separator: "\n"))
            import PackageDescription

            let package = Package(
                name: \(library),
                products: [
                    \(productReason.map { "// " + $0 }.joined(separator: "\n        "))
                    .library(name: \(library), type: .dynamic, targets: [\(library)]),
                ],
                dependencies: [
                    // The host repository. Its PluginAPI product re-exports the shared libPluginAPI.so, so this
                    // library and the host use one copy of PluginAPI's types. `name:` lets the target say
                    // "SwiftPluginHost" whatever the clone's folder is called.
                    .package(name: "SwiftPluginHost", path: \(ScaffoldFile.literal(hostPackage))),\(packages)
                ],
                targets: [
                    .target(
                        name: \(library),
                        dependencies: [\(host)\(products)],
                        swiftSettings: [.swiftLanguageMode(.v6)\(flags)]
                    ),
                ]
            )

            """
    }
}
