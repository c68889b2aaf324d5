import Glibc

/// A plugin package generated into `$TMPDIR` and built once in release, with literal keys like a
/// hand-written plugin. Its library is then copied as often as a case needs: each copy is a new file,
/// so the loader maps it as a new image (a library is never unloaded, so no copy can be opened twice).
///
/// Its `Package.swift` depends on this repository's `Sources/PluginAPI` by absolute path, so the ABI
/// version matches the `libPluginAPI.so` that the benchmark has already loaded and the loader reuses.
enum GeneratedPlugin {
    /// What type the generated services have.
    enum ServiceType {
        /// `GeneratedService`, a class of the plugin's own, as a hand-written plugin's services are.
        /// Each copy's is a type of its own, so the host cannot get one by type (start-up only loads).
        case pluginClass
        /// `Int`: a type every copy shares with the host, so the host can get a service by its key.
        case shared

        var name: String {
            switch self {
            case .pluginClass: "GeneratedService"
            case .shared: "Int"
            }
        }

        /// The factory's body for service `index`.
        func instance(_ index: Int) -> String {
            switch self {
            case .pluginClass: "GeneratedService(index: \(index))"
            case .shared: "\(index)"
            }
        }

        /// Names the package's folder apart from the other type's (the start-up one keeps its name).
        var folderSuffix: String {
            switch self {
            case .pluginClass: ""
            case .shared: "-int"
            }
        }
    }

    /// Stands for the plugin's number in every string of the generated library; each copy gets its
    /// own number by patching these bytes (`generated-plugin-017`), so its name and keys are its own.
    static let marker = Array("generated-plugin-@@@".utf8)

    /// The store key of service `index` of the copy numbered `number` (`generated-plugin-017.service3`).
    static func key(_ number: String, service index: Int) -> String {
        "generated-plugin-\(number).service\(index)"
    }

    /// The built library, read into memory, and the places where its plugin number stands.
    struct Image {
        let path: String
        let bytes: [UInt8]
        let markers: [Int]

        init(path: String) {
            self.path = path
            bytes = Files.read(path)
            markers = GeneratedPlugin.occurrences(of: GeneratedPlugin.marker, in: bytes)
            guard !markers.isEmpty else { fail("no '\(String(decoding: GeneratedPlugin.marker, as: UTF8.self))' in \(path)") }
        }

        /// The library with `number` (three digits) patched over every `@@@`.
        func numbered(_ number: some StringProtocol) -> [UInt8] {
            let marker = GeneratedPlugin.marker
            var copy = bytes
            for offset in markers {
                copy.replaceSubrange(offset + marker.count - 3..<offset + marker.count, with: number.utf8)
            }
            return copy
        }
    }

    /// `dlopen(RTLD_NOW | RTLD_LOCAL)` and `dlsym` of the entry symbol, nothing else: the baseline of
    /// every plugin case. Nil if either failed.
    static func openBare(_ file: String) -> UnsafeMutableRawPointer? {
        dlsym(dlopen(file, RTLD_NOW | RTLD_LOCAL), "swift_plugin_entry")
    }

    static func lastDlerror() -> String {
        dlerror().map { String(cString: $0) } ?? "no dlerror"
    }

    /// The plugin's source, written like a hand-made plugin: literal keys, one `add` call per service.
    /// Every literal is longer than 15 bytes, so it lives in the library's read-only data (shorter
    /// strings are encoded in the instructions) where the copies patch it.
    private static func source(services: Int, type: ServiceType) -> String {
        let name = String(decoding: marker, as: UTF8.self)
        let keys = (0..<services).map { "\"\(name).service\($0)\"" }
        let adds = (0..<services).map { index in
            """
                    try registrar.addLazyService(key: ServiceLocatorEasyKey<\(type.name)>(name: \(keys[index]))) {
                        \(type.instance(index))
                    }
            """
        }
        return """
            import PluginAPI

            /// What every generated slot holds.
            final class GeneratedService: Sendable {
                let index: Int
                init(index: Int) { self.index = index }
            }

            struct GeneratedPlugin: Plugin {
                static var metadata: PluginMetadata {
                    PluginMetadata(name: "\(name)", version: "1.0.0", provides: [
                        \(keys.map { "ServiceLocatorEasyKey<\(type.name)>(name: \($0))" }.joined(separator: ",\n            "))
                    ])
                }

                func registerServices(in registrar: ModuleRegistrar) throws {
            \(adds.joined(separator: "\n"))
                }
            }

            @c(swift_plugin_entry)
            public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(GeneratedPlugin.self) }

            """
    }

    private static func manifest(pluginAPI: String) -> String {
        """
        // swift-tools-version:6.0
        // Generated by locator-benchmarks: one plugin, copied under many names for the start-up case.
        import PackageDescription

        let package = Package(
            name: "GeneratedPlugin",
            products: [.library(name: "GeneratedPlugin", type: .dynamic, targets: ["GeneratedPlugin"])],
            dependencies: [.package(path: "\(pluginAPI)")],
            targets: [
                .target(name: "GeneratedPlugin", dependencies: [.product(name: "PluginAPI", package: "PluginAPI")],
                        swiftSettings: [.swiftLanguageMode(.v6)]),
            ]
        )

        """
    }

    /// The repository this benchmark lives in: `<repo>/Benchmarks/Sources/locator-benchmarks/<this file>`.
    static var repositoryRoot: String {
        String(#filePath).split(separator: "/", omittingEmptySubsequences: false).dropLast(4).joined(separator: "/")
    }

    /// Generates the plugin package (in a temporary folder named after this repository's path, so a
    /// second run only rebuilds what changed) and builds it in release. `caseName` prefixes the
    /// progress lines. Returns the library's path.
    static func build(services: Int, type: ServiceType, for caseName: String) -> String {
        let pluginAPI = repositoryRoot + "/Sources/PluginAPI"
        guard access(pluginAPI + "/Package.swift", R_OK) == 0 else { fail("no PluginAPI package at \(pluginAPI)") }
        // The same PluginAPI source as this executable's own libPluginAPI.so, so the ABI versions match.
        // Named after PluginAPI's path and its list of files too, in every folder: SwiftPM does not see a
        // file added to a path dependency it has built before, so a new list gets a package of its own.
        // (Its top folder's names alone missed a file added to Engine/: the old package failed to build.)
        let files = Files.files(under: pluginAPI).sorted().joined(separator: "|")
        let package = "\(Files.temporaryRoot)/locator-benchmarks-plugin-\(getuid())-\(fnv1a(pluginAPI + "|" + files))"
            + "-s\(services)\(type.folderSuffix)"
        for folder in [package, package + "/Sources", package + "/Sources/GeneratedPlugin"] {
            Files.makeDirectory(folder, existing: true)
        }
        Files.writeIfChanged(package + "/Package.swift", manifest(pluginAPI: pluginAPI))
        Files.writeIfChanged(package + "/Sources/GeneratedPlugin/GeneratedPlugin.swift", source(services: services, type: type))
        let log = package + "/build.log"
        printError("\(caseName): building the generated plugin in \(package) ...")
        let start = now()
        guard system("swift build -c release --package-path '\(package)' > '\(log)' 2>&1") == 0 else {
            let text = String(decoding: Files.read(log), as: UTF8.self)
            fail("building the generated plugin failed:\n\(text.split(separator: "\n").suffix(30).joined(separator: "\n"))")
        }
        printError("\(caseName): built in \(Int(Double(now() - start) / 1e9)) s")
        return package + "/.build/release/libGeneratedPlugin.so"
    }

    /// The offsets at which `pattern` starts in `bytes`.
    private static func occurrences(of pattern: [UInt8], in bytes: [UInt8]) -> [Int] {
        guard let first = pattern.first, bytes.count >= pattern.count else { return [] }
        return (0...(bytes.count - pattern.count)).filter { offset in
            bytes[offset] == first && bytes[offset..<offset + pattern.count].elementsEqual(pattern)
        }
    }

    /// A short, stable name for a path.
    private static func fnv1a(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(hash, radix: 16)
    }
}
