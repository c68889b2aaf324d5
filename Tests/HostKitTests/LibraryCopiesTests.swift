import Foundation
import PluginAPI
import TestSupport
import Testing

/// Two plugins built in packages of their own, each against its own copy of a contract library
/// (SampleContracts 1.0.0 and 1.2.0, changed and rebuilt), loaded by the `host` command, which links
/// no SampleContracts: which copy is used, and what is said about the copies. Nothing of a copy runs
/// before it is chosen: the choice reads the files' symbol tables.
@Suite(.serialized) struct LibraryCopiesTests {
    /// The two builds, shared by the tests (each package build costs about a minute): the plugin
    /// built against 1.0.0 and the one built against 1.2.0 (which calls a function only 1.2.0 has),
    /// each in its build folder beside its copy of SampleContracts.
    private static let builds = Task { () async throws -> (older: String, newer: String, work: [URL]) in
        let evolution = ContractEvolutionTests()
        let older = try evolution.workspace(.older, plugin: source(name: "compat-older", body: "StoppedClock()", key: "Clock"))
        let newer = try evolution.workspace(.newer, plugin: source(name: "compat-newer", body: "compatNewerGreeting()", key: "String"))
        return (try await evolution.build(older), try await evolution.build(newer), [older, newer])
    }

    private static func source(name: String, body: String, key: String) -> String {
        let service = key == "Clock" ? "any Clock" : "String"
        return """
            import PluginAPI
            import SampleContracts

            struct StoppedClock: Clock {
                func now() -> Double { 0 }
                func hour() -> Int { 0 }
            }

            struct CompatPlugin: Plugin {
                static let key = ServiceLocatorEasyKey<\(service)>(name: "\(name).service")
                static let metadata = PluginMetadata(name: "\(name)", version: "1.0.0", provides: [key])
                static let contractLibraries: [LibraryVersion] = [.sampleContracts]
                func registerServices(in registrar: ModuleRegistrar) throws {
                    try registrar.addLazyService(key: Self.key) { \(body) }
                }
            }

            @c(swift_plugin_entry)
            public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(CompatPlugin.self) }
            """
    }

    /// The real folder of the file at `path`: the reports name real paths.
    private static func folder(of path: String) -> String {
        URL(fileURLWithPath: path).resolvingSymlinksInPath().deletingLastPathComponent().path
    }

    private let host = "\(BuiltPlugins.directory)/host"

    /// `--plugins OLDER --plugins NEWER` loaded the older folder's copy and refused the newer plugin;
    /// now both orders load both plugins with the newer copy, and `check` says which file each plugin
    /// uses, of which version, and that the older copy was not used (in text and in JSON).
    @Test(.timeLimit(BuildSlot.testTimeLimit))
    func theNewestCopyIsUsedWhateverTheOrderOfThePluginsAndEachCopyIsNamed() async throws {
        let (builtOlder, builtNewer, work) = try await Self.builds.value
        let (olderFolder, newerFolder) = (Self.folder(of: builtOlder), Self.folder(of: builtNewer))
        let (older, newer) = ("\(olderFolder)/libCompatPlugin.so", "\(newerFolder)/libCompatPlugin.so")
        let newerCopy = "\(newerFolder)/libSampleContracts.so", olderCopy = "\(olderFolder)/libSampleContracts.so"
        for folders in [[olderFolder, newerFolder], [newerFolder, olderFolder]] {
            let run = try await runChild(host, ["check"] + folders.flatMap { ["--plugins", $0] }, in: work[0], log: work[0])
            #expect(run.output.contains("loaded compat-older 1.0.0 (\(older)); built against SampleContracts 1.0.0, "
                                        + "uses 1.2.0 (\(newerCopy))"), "\(folders): \(run.output)")
            #expect(run.output.contains("loaded compat-newer 1.0.0 (\(newer)); built against SampleContracts 1.2.0, "
                                        + "uses 1.2.0 (\(newerCopy))"), "\(folders): \(run.output)")
            #expect(run.output.contains("library (\(olderCopy)), not used: this load uses SampleContracts 1.2.0 (\(newerCopy))\n"),
                    "\(folders): \(run.output)")
            #expect(run.output.contains("library SampleContracts 1.2.0 (\(newerCopy)), linked by compat-"), "\(folders): \(run.output)")
            #expect(run.output.contains("2 loaded, 0 problem(s)"), "\(folders): \(run.output)")
        }

        let json = try await runChild(host, ["check", "--json", "--plugins", olderFolder, "--plugins", newerFolder],
                                      in: work[0], log: work[0])
        #expect(json.status == 0, "\(json.output)")
        let object = try JSONSerialization.jsonObject(with: Data(json.output.utf8))
        let plugins = try #require((object as? [String: Any])?["plugins"] as? [[String: Any]], "\(json.output)")
        let plugin = try #require(plugins.first { $0["name"] as? String == "compat-older" }, "\(json.output)")
        #expect(plugin["builtAgainst"] as? [String] == ["PluginAPI \(LibraryVersion.pluginAPI)", "SampleContracts 1.0.0"], "\(plugin)")
        let uses = plugin["libraries"] as? [[String: String]]
        #expect(uses?.last == ["name": "SampleContracts", "version": "1.2.0", "file": newerCopy], "\(plugin)")
        let unused = try #require(plugins.first { $0["path"] as? String == olderCopy }, "\(json.output)")
        #expect(unused["status"] as? String == "library")
        #expect(unused["libraries"] == nil, "a copy left is never opened, so its version is not read: \(unused)")
        #expect(unused["usedInstead"] as? [String: String] == ["name": "SampleContracts", "version": "1.2.0", "file": newerCopy])
    }

    /// A file named as the contract library, alone in a folder that comes first, whose initializer
    /// would leave a file behind: no plugin brings it, so it is not chosen, and as it has no entry
    /// symbol it is not opened as a plugin either: nothing of it runs. The report says which copy the
    /// plugins use instead.
    @Test(.timeLimit(BuildSlot.testTimeLimit))
    func aCopyNoPluginBringsIsNeverOpenedAndTheReportNamesTheCopyUsed() async throws {
        let (builtOlder, builtNewer, work) = try await Self.builds.value
        let folder = try TemporaryFolder()
        let lone = folder.file("lone"), marker = folder.file("initializer-ran"), source = folder.file("copy.c")
        try FileManager.default.createDirectory(atPath: lone, withIntermediateDirectories: false)
        try """
            #include <fcntl.h>
            #include <unistd.h>
            __attribute__((constructor)) static void ran(void) { close(open("\(marker)", O_CREAT | O_WRONLY, 0644)); }
            """.write(toFile: source, atomically: true, encoding: .utf8)
        // The toolchain's clang, so that the compiler check does not refuse it before anything else.
        let built = try await runChild("/usr/bin/env", ["clang", "-shared", "-fPIC", "-o", "\(lone)/libSampleContracts.so", source],
                                       in: work[0], log: work[0])
        try #require(built.status == 0, "\(built.output)")

        let (olderFolder, newerFolder) = (Self.folder(of: builtOlder), Self.folder(of: builtNewer))
        let run = try await runChild(host, ["check", "--plugins", lone, "--plugins", olderFolder, "--plugins", newerFolder],
                                     in: work[0], log: work[0])
        #expect(!FileManager.default.fileExists(atPath: marker), "the lone copy was opened: \(run.output)")
        let realLone = URL(fileURLWithPath: lone).resolvingSymlinksInPath().path
        #expect(run.output.contains("library (\(realLone)/libSampleContracts.so), not used: this load uses SampleContracts 1.2.0 "
                                    + "(\(newerFolder)/libSampleContracts.so)\n"), "\(run.output)")
        #expect(run.output.contains("2 loaded, 0 problem(s)"), "\(run.output)")
    }

    /// The plugin that would bring the copy chosen is refused before the loader maps it (it links a
    /// library found nowhere): the next plugin maps its own copy, and the report says so, naming
    /// the copy each plugin and each file is.
    @Test(.timeLimit(BuildSlot.testTimeLimit))
    func whenTheChosenCopysPluginIsRefusedTheReportNamesTheCopyUsedInstead() async throws {
        let (builtOlder, builtNewer, work) = try await Self.builds.value
        let folder = try TemporaryFolder()
        let newerFolder = Self.folder(of: builtNewer), olderFolder = Self.folder(of: builtOlder)
        // The newer plugin, its link to libPluginAPI.so renamed in place (same length), beside its copy.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: "\(newerFolder)/libCompatPlugin.so"))
        let (from, to) = (Data("libPluginAPI.so\0".utf8), Data("libPluginAPX.so\0".utf8))
        let found = try #require(bytes.range(of: from), "no libPluginAPI.so in the plugin")
        bytes.replaceSubrange(found, with: to)
        try bytes.write(to: URL(fileURLWithPath: folder.file("libCompatPlugin.so")))
        try FileManager.default.copyItem(atPath: "\(newerFolder)/libSampleContracts.so", toPath: folder.file("libSampleContracts.so"))
        let real = URL(fileURLWithPath: folder.path).resolvingSymlinksInPath().path

        let run = try await runChild(host, ["check", "--plugins", folder.path, "--plugins", olderFolder], in: work[0], log: work[0])
        let olderCopy = "\(olderFolder)/libSampleContracts.so"
        #expect(run.output.contains("libPluginAPX.so"), "the renamed link is what refused it: \(run.output)")
        #expect(run.output.contains("loaded compat-older 1.0.0 (\(olderFolder)/libCompatPlugin.so); built against SampleContracts "
                                    + "1.0.0, uses 1.0.0 (\(olderCopy))"), "\(run.output)")
        #expect(run.output.contains("library (\(real)/libSampleContracts.so), not used: this load uses SampleContracts 1.0.0 "
                                    + "(\(olderCopy))\n"), "\(run.output)")
        #expect(run.output.contains("library SampleContracts 1.0.0 (\(olderCopy)), linked by compat-older"), "\(run.output)")
    }

    /// Beside the chosen copy, a library that is no plugin but links the contract library (another
    /// contract library, say): it is never opened, so it maps nothing, and the plugin that brings the
    /// chosen copy still goes first. (It was counted as bringing it: the other plugin went first and
    /// mapped its older copy, and the newer plugin was refused.)
    @Test(.timeLimit(BuildSlot.testTimeLimit))
    func aLibraryBesideTheChosenCopyThatLinksItDoesNotStandForItsPlugin() async throws {
        let (builtOlder, builtNewer, work) = try await Self.builds.value
        let folder = try TemporaryFolder()
        let newerFolder = Self.folder(of: builtNewer), olderFolder = Self.folder(of: builtOlder)
        for file in ["libCompatPlugin.so", "libSampleContracts.so"] {
            try FileManager.default.copyItem(atPath: "\(newerFolder)/\(file)", toPath: folder.file(file))
        }
        // libAW.so sorts before libCompatPlugin.so, and needs libSampleContracts.so beside it.
        try "int aw(void) { return 1; }\n".write(toFile: folder.file("aw.c"), atomically: true, encoding: .utf8)
        // The toolchain's clang: a file of another compiler would be refused before it counts at all.
        let built = try await runChild("/usr/bin/env", ["clang", "-shared", "-fPIC", "-o", folder.file("libAW.so"), folder.file("aw.c"),
                                                        "-L\(folder.path)", "-lSampleContracts", "-Wl,--enable-new-dtags,-rpath,$ORIGIN"],
                                       in: work[0], log: work[0])
        try #require(built.status == 0, "\(built.output)")
        let real = URL(fileURLWithPath: folder.path).resolvingSymlinksInPath().path

        let run = try await runChild(host, ["check", "--plugins", olderFolder, "--plugins", folder.path], in: work[0], log: work[0])
        #expect(run.output.contains("loaded compat-newer 1.0.0 (\(real)/libCompatPlugin.so); built against SampleContracts 1.2.0, "
                                    + "uses 1.2.0 (\(real)/libSampleContracts.so)"), "\(run.output)")
        #expect(run.output.contains("loaded compat-older 1.0.0 ("), "\(run.output)")
        // No plugin links libAW.so: it is said to be no plugin, as any stray library is.
        #expect(run.output.contains("\(real)/libAW.so: not a plugin, no entry symbol"), "\(run.output)")
        #expect(run.output.contains("2 loaded, 1 problem(s)"), "\(run.output)")
    }

    /// The plugin built against 1.2.0 beside the 1.0.0 copy: the loader finds a declaration missing
    /// (`Clock.zone()`, added in 1.1, which its clock implements).
    /// The refusal names the plugin once, the declaration in Swift terms, the library it belongs to
    /// and the copy it was bound to (whose version is not read: it was not loaded, and nothing of it
    /// runs; a loaded copy's version is named, `ContractEvolutionTests`); it no longer says the host's
    /// copy or a newer version.
    /// Copied without any copy of the library, the plugin is refused naming the library it needs
    /// and where it belongs.
    @Test(.timeLimit(BuildSlot.testTimeLimit))
    func aPluginMissingADeclarationOfTheCopyItIsBoundToIsRefusedNamingTheCopyAndItsVersion() async throws {
        let (older, newer, work) = try await Self.builds.value
        let folder = try TemporaryFolder()
        let plugin = folder.file("libCompatPlugin.so"), copy = folder.file("libSampleContracts.so")
        try FileManager.default.copyItem(atPath: newer, toPath: plugin)
        try FileManager.default.copyItem(atPath: "\(Self.folder(of: older))/libSampleContracts.so", toPath: copy)
        let real = URL(fileURLWithPath: plugin).resolvingSymlinksInPath().path
        let realCopy = URL(fileURLWithPath: copy).resolvingSymlinksInPath().path
        let run = try await runChild(host, ["check", "--plugins", plugin], in: work[0], log: work[0])
        #expect(run.status == 1, "\(run.output)")
        #expect(run.output.contains("\(real): cannot be loaded: undefined symbol: $s15SampleContracts5ClockP4zoneSSyFTq "
                                    + "(method descriptor for SampleContracts.Clock.zone() -> Swift.String): a declaration of SampleContracts "
                                    + "that the copy it was bound to, \(realCopy) (found for it, not loaded before, so nothing of it "
                                    + "ran to read its version), lacks: built against another version of SampleContracts, ship it "
                                    + "with the copy it was built against or rebuild it against that one"), "\(run.output)")
        #expect(run.output.components(separatedBy: real).count == 2, "the path once: \(run.output)")
        #expect(!run.output.contains("host's copy") && !run.output.contains("newer version"), "\(run.output)")

        try FileManager.default.removeItem(atPath: copy)
        let alone = try await runChild(host, ["check", "--plugins", plugin], in: work[0], log: work[0])
        #expect(alone.output.contains("\(real): not loaded, the library it links libSampleContracts.so is not found where "
                                      + "the dynamic linker looks for it"), "\(alone.output)")
        #expect(alone.output.contains("ship it beside the plugin"), "\(alone.output)")
        withExtendedLifetime(folder) {}
    }
}
