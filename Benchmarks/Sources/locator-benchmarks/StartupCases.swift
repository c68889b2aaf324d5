import Glibc
import HostKit

/// Start-up with many plugin libraries: HostKit's whole load against bare `dlopen` + `dlsym` of as many
/// fresh copies of the same library, in the same run.
///
/// One plugin package is generated and built once, with literal keys like a hand-written plugin. Each
/// copy of the library gets its own plugin number patched into its strings (`generated-plugin-017`,
/// keys `generated-plugin-017.service0` ...). A library is never unloaded, so every repetition of every
/// contestant opens its own fresh copies.
enum StartupCases {
    struct Size: Sendable {
        var plugins: Int
        var services: Int
    }

    struct Result: Sendable {
        let size: Size
        /// Milliseconds per repetition, by contestant.
        let host: [Double]
        let bare: [Double]
        let bareWithEntry: [Double]

        /// The host's median over bare `dlopen` + `dlsym`'s.
        var ratio: Double { host.median / bare.median }
    }

    static let name = "startup"

    /// The repository this benchmark lives in: `<repo>/Benchmarks/Sources/locator-benchmarks/<this file>`.
    static var repositoryRoot: String {
        String(#filePath).split(separator: "/", omittingEmptySubsequences: false).dropLast(4).joined(separator: "/")
    }

    static func run(_ size: Size, repetitions: Int) -> Result {
        let library = buildPlugin(services: size.services)
        let image = readFile(library)
        let markers = occurrences(of: marker, in: image)
        guard !markers.isEmpty else { fail("no '\(String(decoding: marker, as: UTF8.self))' in \(library)") }
        let runDirectory = makeTemporaryDirectory("locator-benchmarks-run")
        defer { _ = system("rm -rf '\(runDirectory)'") }

        // Writes `size.plugins` fresh copies into a new folder; returns their paths, sorted.
        var folders = 0
        func freshCopies() -> (folder: String, files: [String]) {
            folders += 1
            let folder = "\(runDirectory)/copies\(folders)"
            guard mkdir(folder, 0o755) == 0 else { fail("mkdir \(folder): \(String(cString: strerror(errno)))") }
            let files = (0..<size.plugins).map { index in
                let number = String(index + 1000).dropFirst()   // 000, 001, ...
                let path = "\(folder)/plugin-\(number).so"
                var copy = image
                for offset in markers {
                    copy.replaceSubrange(offset + marker.count - 3..<offset + marker.count, with: number.utf8)
                }
                writeFile(path, copy)
                return path
            }
            return (folder, files)
        }

        // Each contestant loads the copies in `folder` and returns a check, run after the clock stopped.
        typealias Contestant = (_ folder: String, _ files: [String]) -> () -> Void
        let contestants: [(String, Contestant)] = [
            ("host", { folder, files in
                let host = PluginHost()
                let report = host.load([.directory(folder)])
                return {
                    guard report.loaded.count == files.count, !report.hasProblems else { fail("PluginHost.load: \(report.text)") }
                    let slots = host.locator.slots.count
                    guard slots == size.plugins * size.services else { fail("PluginHost.load registered \(slots) slots") }
                }
            }),
            ("bare", { _, files in
                var entries: [UnsafeMutableRawPointer?] = []
                entries.reserveCapacity(files.count)
                for file in files {
                    let handle = dlopen(file, RTLD_NOW | RTLD_LOCAL)
                    entries.append(dlsym(handle, "swift_plugin_entry"))
                }
                return {
                    guard entries.allSatisfy({ $0 != nil }) else { fail("dlopen or dlsym failed: \(lastDlerror())") }
                    blackHole(UInt(bitPattern: entries.last??.hashValue ?? 0))
                }
            }),
            ("bareWithEntry", { _, files in
                typealias Entry = @convention(c) () -> UnsafeRawPointer?
                var headers: [UnsafeRawPointer?] = []
                headers.reserveCapacity(files.count)
                for file in files {
                    let entry = dlsym(dlopen(file, RTLD_NOW | RTLD_LOCAL), "swift_plugin_entry")
                    headers.append(entry.flatMap { unsafeBitCast($0, to: Entry.self)() })
                }
                return {
                    guard headers.allSatisfy({ $0 != nil }) else { fail("dlopen, dlsym or the entry failed: \(lastDlerror())") }
                    blackHole(UInt(headers.last??.load(as: UInt64.self) ?? 0))
                }
            }),
        ]

        var samples: [String: [Double]] = [:]
        // Repetition -1 warms up each contestant (first calls into HostKit, the loader's caches).
        for repetition in -1..<repetitions {
            let order = repetition.isMultiple(of: 2) ? contestants : contestants.reversed()
            for (name, load) in order {
                let (folder, files) = freshCopies()
                let start = now()
                let check = load(folder, files)
                let elapsed = Double(now() - start) / 1_000_000
                check()
                if repetition >= 0 { samples[name, default: []].append(elapsed) }
            }
        }
        return Result(size: size, host: samples["host"] ?? [], bare: samples["bare"] ?? [],
                      bareWithEntry: samples["bareWithEntry"] ?? [])
    }

    // MARK: The generated plugin

    /// Stands for the plugin's number in every string of the generated library; each copy gets its
    /// own number by patching these bytes (`generated-plugin-017`), so its name and keys are its own.
    static let marker = Array("generated-plugin-@@@".utf8)

    /// The plugin's source, written like a hand-made plugin: literal keys, one `add` call per service.
    /// Every literal is longer than 15 bytes, so it lives in the library's read-only data (shorter
    /// strings are encoded in the instructions) where the copies patch it.
    private static func pluginSource(services: Int) -> String {
        let name = String(decoding: marker, as: UTF8.self)
        let keys = (0..<services).map { "\"\(name).service\($0)\"" }
        let adds = (0..<services).map { index in
            """
                    try registrar.addLazyService(key: ServiceLocatorEasyKey<GeneratedService>(name: \(keys[index]))) {
                        GeneratedService(index: \(index))
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
                        \(keys.map { "ServiceLocatorEasyKey<GeneratedService>(name: \($0))" }.joined(separator: ",\n            "))
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

    private static func pluginManifest(pluginAPI: String) -> String {
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

    /// Generates the plugin package (in a temporary folder named after this repository's path, so a
    /// second run only rebuilds what changed) and builds it in release. Returns the library's path.
    private static func buildPlugin(services: Int) -> String {
        let pluginAPI = repositoryRoot + "/Sources/PluginAPI"
        guard access(pluginAPI + "/Package.swift", R_OK) == 0 else { fail("no PluginAPI package at \(pluginAPI)") }
        // The same PluginAPI source as this executable's own libPluginAPI.so, so the ABI versions match.
        // Named after PluginAPI's path and its list of files too: SwiftPM does not see a file added to a
        // path dependency it has built before, so a new list gets a package of its own.
        let files = fileNames(in: pluginAPI).sorted().joined(separator: "/")
        let package = "\(temporaryRoot)/locator-benchmarks-plugin-\(getuid())-\(fnv1a(pluginAPI + "|" + files))-s\(services)"
        for folder in [package, package + "/Sources", package + "/Sources/GeneratedPlugin"] {
            guard mkdir(folder, 0o755) == 0 || errno == EEXIST else { fail("mkdir \(folder): \(String(cString: strerror(errno)))") }
        }
        writeIfChanged(package + "/Package.swift", pluginManifest(pluginAPI: pluginAPI))
        writeIfChanged(package + "/Sources/GeneratedPlugin/GeneratedPlugin.swift", pluginSource(services: services))
        let log = package + "/build.log"
        printError("startup: building the generated plugin in \(package) ...")
        let start = now()
        guard system("swift build -c release --package-path '\(package)' > '\(log)' 2>&1") == 0 else {
            let text = String(decoding: readFile(log), as: UTF8.self)
            fail("building the generated plugin failed:\n\(text.split(separator: "\n").suffix(30).joined(separator: "\n"))")
        }
        printError("startup: built in \(Int(Double(now() - start) / 1e9)) s")
        return package + "/.build/release/libGeneratedPlugin.so"
    }

    /// The offsets at which `pattern` starts in `bytes`.
    private static func occurrences(of pattern: [UInt8], in bytes: [UInt8]) -> [Int] {
        guard let first = pattern.first, bytes.count >= pattern.count else { return [] }
        return (0...(bytes.count - pattern.count)).filter { offset in
            bytes[offset] == first && bytes[offset..<offset + pattern.count].elementsEqual(pattern)
        }
    }

    private static func lastDlerror() -> String {
        dlerror().map { String(cString: $0) } ?? "no dlerror"
    }

    // MARK: Files

    private static var temporaryRoot: String {
        getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    }

    private static func makeTemporaryDirectory(_ prefix: String) -> String {
        var template = Array("\(temporaryRoot)/\(prefix)-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            fail("mkdtemp: \(String(cString: strerror(errno)))")
        }
        return String(cString: made)
    }

    private static func readFile(_ path: String) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { fail("open \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        return bytes
    }

    private static func writeFile(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o755) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard descriptor >= 0 else { fail("create \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else { fail("write \(path): \(String(cString: strerror(errno)))") }
    }

    private static func writeIfChanged(_ path: String, _ text: String) {
        if access(path, R_OK) == 0, readFile(path) == Array(text.utf8) { return }
        writeFile(path, Array(text.utf8), mode: 0o644)
    }

    /// The names of the entries of `folder`.
    private static func fileNames(in folder: String) -> [String] {
        guard let directory = opendir(folder) else { fail("opendir \(folder): \(String(cString: strerror(errno)))") }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            names.append(withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
        }
        return names
    }

    /// A short, stable name for a path.
    private static func fnv1a(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return String(hash, radix: 16)
    }
}
