import Foundation
import TestSupport
import Testing

/// The libraries are layers, each built only on those below it: the C target, the floor that reads
/// and maps files (DynamicLoading), HostKit, and `host`. Across targets the compiler refuses a use
/// upward already; this says which file names what, and holds for files moved between targets.
/// HostKit's folders are layers too, in the order of a load, which the compiler does not see at all:
/// there a file of a lower folder may not name a type of a higher one, nor call what only a higher
/// folder declares (an extension's member, a function at a file's top level), and each closure HostKit
/// stores, which a higher folder could hand down to be called, is reviewed (`reviewedClosures`).
@Suite struct LayerTests {
    /// The layers from the bottom up, each with its source folders.
    static let layers: [(name: String, folders: [String])] = [
        ("CDynamicLinker", ["Sources/CDynamicLinker"]),
        ("DynamicLoading", ["Sources/DynamicLoading"]),
        ("HostKit", ["Sources/HostKit"]),
        ("host", ["Sources/host"]),
    ]

    /// HostKit's folders from the bottom up, in the order a load crosses them: the reports and errors
    /// everything returns, the hooks' runner, discovery, the operator's settings (read as a load
    /// begins), opening, registration, the probe's parent side, the pipeline that runs a whole load,
    /// a plugin's own process (which the pipeline opens through its `OwnProcessPlacement`), reload,
    /// and the host that keeps what it staged.
    static let hostKitLayers: [(name: String, folders: [String])] =
        ["Reporting", "Hooks", "Discovery", "Settings", "Loading", "Registration", "Probe", "Pipeline", "OwnProcess", "Reload", "Lifecycle"].map {
            ($0, ["Sources/HostKit/" + $0])
        }

    @Test func noFileOfALowerLayerNamesATypeOfAHigherOne() throws {
        let (declared, uses) = try Self.upwardUses(in: Self.layers)
        #expect(declared[1].count > 10 && declared[2].count > 10, "types read: \(declared.map(\.count))")
        #expect(uses.isEmpty, "a lower layer uses a higher one:\n\(uses.joined(separator: "\n"))")
    }

    @Test func noFolderOfHostKitNamesATypeOfAHigherOne() throws {
        // Every folder of HostKit's sources is a layer: a new one is placed in the order, not left out.
        let base = repositoryRoot.appendingPathComponent("Sources/HostKit")
        let folders = try FileManager.default.contentsOfDirectory(atPath: base.path).filter { name in
            var isFolder: ObjCBool = false
            return FileManager.default.fileExists(atPath: base.appendingPathComponent(name).path, isDirectory: &isFolder)
                && isFolder.boolValue && !name.hasSuffix(".docc")
        }
        #expect(Set(folders) == Set(Self.hostKitLayers.map(\.name)), "HostKit's folders: \(folders.sorted())")
        let (declared, uses) = try Self.upwardUses(in: Self.hostKitLayers)
        #expect(declared.allSatisfy { !$0.isEmpty }, "types read: \(declared.map(\.count))")
        #expect(uses.isEmpty, "a lower folder of HostKit uses a higher one:\n\(uses.joined(separator: "\n"))")
    }

    /// The libraries HostKit is built on, below its lowest folder: a name they declare is no higher folder's.
    static let belowHostKit = ["Sources/PluginAPI", "Sources/PluginActors", "Sources/DynamicLoading", "Sources/ProcessSignals"]

    /// A file reaches up without naming a type too: it calls a method, a property or a nested type an
    /// extension in a higher folder adds to a type of its own (or of PluginAPI), or a function at a
    /// higher file's top level.
    @Test func noFolderOfHostKitCallsAMemberOnlyAHigherOneDeclares() throws {
        let sources = try Self.hostKitLayers.map { layer in try layer.folders.flatMap { try Self.sourceFiles(in: $0) } }
        let below = try Self.belowHostKit.flatMap { try Self.sourceFiles(in: $0) }
        let (reachable, uses) = Self.upwardCalls(of: sources, layerNames: Self.hostKitLayers.map(\.name), below: below)
        #expect(reachable.reduce(0) { $0 + $1.count } > 20, "extension members and top-level functions read: \(reachable.map(\.count))")
        #expect(uses.isEmpty, "a lower folder of HostKit calls a higher one:\n\(uses.joined(separator: "\n"))")
    }

    /// The stored properties of function type in HostKit, each with why calling it calls no higher
    /// folder: a closure a higher folder hands down is a call upward that no name shows. A new one fails
    /// `everyStoredClosureOfHostKitIsReviewed` until it is read and listed here (or made a protocol of
    /// the lower folder that the higher one implements, as ``OwnProcessPlacement`` and
    /// ``PluginProcessOwner`` are).
    static let reviewedClosures: [String: String] = [
        "LoadedPlugin.makeModule":
            "makes the plugin's module, a PluginAPI Module: the plugin's descriptor's maker, or RemotePluginModule's init for a plugin in a process of its own, made by OwnProcess/ as the pipeline asks any plugin",
        "PluginStart.isStopping":
            "whether a shutdown is asked for: reads the count of pending shutdowns (a Lock the host hands over, not the host), or false in a child",
        "OwnProcessLauncher.report":
            "a sink of escaped text lines the application chose (PluginHost.processReport)",
        "PluginLogs.write":
            "a sink of plugins' log lines the application chose",
        "PluginHost.processReport":
            "a sink of text lines the application chose; Lifecycle/ is HostKit's top",
        "PluginHost.reportToStandardError":
            "the default sink of process lines: writes them to standard error",
        "DigestAllowlist.sha256":
            "how a plugin file's digest is computed: PluginFile.sha256 (Discovery/), or a test's",
    ]

    @Test func everyStoredClosureOfHostKitIsReviewed() throws {
        let found = Self.storedClosures(in: try Self.sourceFiles(in: "Sources/HostKit"))
        #expect(found.count >= 5, "stored closures found: \(found.keys.sorted())")
        let unreviewed = found.filter { Self.reviewedClosures[$0.key] == nil }.map { "\($0.key) (\($0.value))" }.sorted()
        #expect(unreviewed.isEmpty, "stored closures not reviewed (does calling it call up? say why not in reviewedClosures):\n\(unreviewed.joined(separator: "\n"))")
        let gone = Self.reviewedClosures.keys.filter { found[$0] == nil }.sorted()
        #expect(gone.isEmpty, "reviewed closures HostKit no longer stores: \(gone)")
    }

    @Test func aMemberOnlyAHigherFolderDeclaresIsAnUpwardCallAndOneALowerFolderDeclaresIsNot() {
        let lower = [("Low/Pipeline.swift", """
            struct Pipeline {
                func run(_ thing: Thing) {
                    // thing.quietly() in a comment calls nothing
                    let line = "helperAtTop() in a string calls nothing"
                    thing.reloadEverything()
                    _ = thing.count
                    thing.common()
                    helperAtTop()
                }
            }
            extension Thing {
                func common() {}
            }
            """)]
        let higher = [("High/Thing+Reload.swift", """
            extension Thing {
                func reloadEverything() { Pipeline().run(self) }
                var count: Int { 0 }
                func common() {}
                func quietly() {}
            }
            func helperAtTop() {}
            struct Host {
                func hostOnly() {}
            }
            """)]
        let (reachable, uses) = Self.upwardCalls(of: [lower, higher], layerNames: ["Low", "High"])
        #expect(Set(reachable[1].keys) == ["reloadEverything", "count", "common", "quietly", "helperAtTop"])
        #expect(uses == [
            "Low/Pipeline.swift (Low) calls count, which High/Thing+Reload.swift (High) declares",
            "Low/Pipeline.swift (Low) calls helperAtTop, which High/Thing+Reload.swift (High) declares",
            "Low/Pipeline.swift (Low) calls reloadEverything, which High/Thing+Reload.swift (High) declares",
        ])
        // Declared below HostKit too (in PluginAPI, say): no higher folder's.
        let withBelow = Self.upwardCalls(of: [lower, higher], layerNames: ["Low", "High"],
                                         below: [("Below/Thing.swift", "struct Thing { let count = 0 }")])
        #expect(withBelow.uses.count == 2)
    }

    @Test func storedClosuresAreFoundAndNoOtherProperty() {
        let text = """
            typealias Sink = @Sendable (String) -> Void
            struct Launcher {
                let report: @Sendable (String) -> Void
                var hooks: [() -> Void] = []
                private let sink: Sink
                let count: Int
                var computed: () -> Void { {} }
                struct Inner { var maybe: (@Sendable () -> Bool)? }
                func run(then: @escaping () -> Void) {
                    let local: () -> Void = then
                    local()
                }
            }
            extension Launcher { static let quiet: Sink = { _ in } }
            protocol Placement { var handler: (Int) -> Void { get } }
            let global: (Int) -> Int = { $0 }
            """
        let found = Self.storedClosures(in: [("A.swift", text)])
        #expect(Set(found.keys) == ["Launcher.report", "Launcher.hooks", "Launcher.sink", "Launcher.Inner.maybe", "Launcher.quiet", "global"])
    }

    /// Per layer of `sources` (named `layerNames`, from the bottom up), the names its files' extensions
    /// add and its top-level functions, by the file that declares each; and each call of one of them
    /// by a file of a lower layer, unless that layer, one below it or `below` declares the name too
    /// (any declaration: `run` or `load` is not one folder's).
    static func upwardCalls(of sources: [[(path: String, text: String)]], layerNames: [String],
                            below: [(path: String, text: String)] = []) -> (reachable: [[String: String]], uses: [String]) {
        let scanned = sources.map { files in files.map { (path: $0.path, declarations: declarations(in: code(of: $0.text))) } }
        let reachable = scanned.map { files in
            var names: [String: String] = [:]
            for file in files {
                for declaration in file.declarations where declaration.isExtensionMemberOrTopLevel && names[declaration.name] == nil {
                    names[declaration.name] = file.path
                }
            }
            return names
        }
        var own = Set(below.flatMap { Self.declarations(in: code(of: $0.text)).map(\.name) })
        var uses: [String] = []
        for (index, files) in sources.enumerated() {
            own.formUnion(scanned[index].flatMap { $0.declarations.map(\.name) })
            for file in files {
                let called = calledNames(in: code(of: file.text)).subtracting(own)
                for higher in (index + 1)..<sources.count {
                    for name in called.sorted() {
                        guard let declaring = reachable[higher][name] else { continue }
                        uses.append("\(file.path) (\(layerNames[index])) calls \(name), which \(declaring) (\(layerNames[higher])) declares")
                    }
                }
            }
        }
        return (reachable, uses)
    }

    /// The stored properties of function type in `files` (a closure, an optional one, an array of them,
    /// or a type alias of one), by their qualified name (``Declaration/qualifiedName``), each with its file.
    static func storedClosures(in files: [(path: String, text: String)]) -> [String: String] {
        let declared = files.map { (path: $0.path, declarations: declarations(in: code(of: $0.text))) }
        let aliases = Set(declared.flatMap(\.declarations).filter { $0.keyword == "typealias" && $0.rest.contains("->") }.map(\.name))
        var found: [String: String] = [:]
        for file in declared {
            for declaration in file.declarations where declaration.isStoredProperty {
                guard let type = declaration.storedType else { continue }
                let words = type.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init)
                if type.contains("->") || words.contains(where: aliases.contains) {
                    found[declaration.qualifiedName] = file.path
                }
            }
        }
        return found
    }

    /// The top-level types each of `layers` declares, and each use of a higher layer's type by a file
    /// of a lower one.
    static func upwardUses(in layers: [(name: String, folders: [String])]) throws -> (declared: [Set<String>], uses: [String]) {
        let sources = try layers.map { layer in
            try layer.folders.flatMap { try sourceFiles(in: $0) }
        }
        return upwardUses(of: sources, layerNames: layers.map(\.name))
    }

    /// The top-level types each layer of `sources` (named `layerNames`) declares, and each use of a higher
    /// layer's type by a file of a lower one.
    static func upwardUses(of sources: [[(path: String, text: String)]], layerNames: [String]) -> (declared: [Set<String>], uses: [String]) {
        let declared = sources.map { files in Set(files.flatMap { topLevelTypes(in: $0.text) }) }
        var uses: [String] = []
        for (index, files) in sources.enumerated() {
            // A name a layer declares itself, or one below it does, is its own (a nested `Refusal`, say).
            let own = declared[...index].reduce(Set<String>()) { $0.union($1) }
            for file in files {
                let used = identifiers(in: code(of: file.text))
                for higher in (index + 1)..<sources.count {
                    for name in used.intersection(declared[higher]).subtracting(own).sorted() {
                        uses.append("\(file.path) (\(layerNames[index])) names \(name), a type of \(layerNames[higher])")
                    }
                }
            }
        }
        return (declared, uses)
    }

    /// The Swift, C and header files under `folder`, by their path from the repository's root.
    static func sourceFiles(in folder: String) throws -> [(path: String, text: String)] {
        let base = repositoryRoot.appendingPathComponent(folder)
        let files = FileManager.default.enumerator(atPath: base.path)?.compactMap { $0 as? String } ?? []
        let sources = files.filter { file in
            [".swift", ".c", ".h"].contains { file.hasSuffix($0) } && !file.hasPrefix(".build/") && !file.contains("/.build/")
        }.sorted()
        return try sources.map { (folder + "/" + $0, try String(contentsOf: base.appendingPathComponent($0), encoding: .utf8)) }
    }

    /// The names of the types declared at a file's top level (column 0: not nested).
    static func topLevelTypes(in text: String) -> [String] {
        // Most lines are indented or closing braces: only the others are matched.
        text.split(separator: "\n").filter { $0.first.map { !$0.isWhitespace && $0 != "}" && $0 != "/" } ?? false }.compactMap { line in
            line.firstMatch(of: #/^(?:@\S+\s+)*(?:(?:public|package|internal|fileprivate|private|final|indirect|nonisolated|open|distributed)\s+)*(?:struct|class|enum|protocol|actor|typealias)\s+(\w+)/#)
                .map { String($0.1) }
        }
    }

    /// `text` without its comments and string literals: what the compiler reads as names. Read byte by
    /// byte (regular expressions took seconds for the sources).
    static func code(of text: String) -> String {
        let bytes = Array(text.utf8)
        var kept: [UInt8] = []
        var index = 0
        func at(_ offset: Int, _ string: String) -> Bool { bytes[(index + offset)...].starts(with: string.utf8) }
        let special: Set<UInt8> = [UInt8(ascii: "/"), UInt8(ascii: "\""), UInt8(ascii: "#")]
        while index < bytes.count {
            if !special.contains(bytes[index]) {
                kept.append(bytes[index])
                index += 1
            } else if at(0, "//") {
                while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
            } else if at(0, "/*") {
                index += 2
                while index < bytes.count, !at(0, "*/") { index += 1 }
                index += 2
            } else if at(0, "\"") || at(0, "#\"") {
                // A string: `#`s before it close it after its quote(s); a `\` escapes the next byte.
                let hashes = bytes[index...].prefix { $0 == UInt8(ascii: "#") }.count
                index += hashes
                let quote = at(0, "\"\"\"") ? "\"\"\"" : "\""
                index += quote.utf8.count
                let close = quote + String(repeating: "#", count: hashes)
                while index < bytes.count, !at(0, close) { index += hashes == 0 && bytes[index] == UInt8(ascii: "\\") ? 2 : 1 }
                index += close.utf8.count
                kept += Array("\"\"".utf8)
            } else {
                kept.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: kept, as: UTF8.self)
    }

    /// The capitalized identifiers in `code`: the names of types it may use.
    static func identifiers(in code: String) -> Set<String> {
        let words = code.utf8.split { !($0 == UInt8(ascii: "_") || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0)
                                        || (0x61...0x7A).contains($0) || $0 >= 0x80) }
        return Set(words.filter { (0x41...0x5A).contains($0.first ?? 0) }.map { String(decoding: $0, as: UTF8.self) })
    }
}
