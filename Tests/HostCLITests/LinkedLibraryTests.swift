import Foundation
import TestSupport
import Testing

/// Every library a plugin brings is checked before `dlopen` as the plugin is. Run through `host`,
/// which links no contract library, so the clock plugin's `libSampleContracts.so` is one the dynamic
/// linker would newly map, from beside the plugin (its RUNPATH has `$ORIGIN`).
extension HostCommandTests {
    /// A folder with the clock plugin and a copy of its contract library; `tamper` changes the copy.
    private func clockBeside(_ tamper: (TemporaryFolder, String) throws -> Void) throws -> (TemporaryFolder, String) {
        let folder = try TemporaryFolder()
        let plugin = try folder.copy("ClockPlugin", as: "clock.so")
        let library = try folder.copy("SampleContracts", as: "libSampleContracts.so")
        try tamper(folder, library)
        return (folder, plugin)
    }

    /// Runs `host check` on `plugin`, killed if it still runs after 60 s (a pipe the loader opened
    /// would hang it for ever: the bound is the point, and generous for a busy machine).
    private func check(_ plugin: String, _ options: [String] = []) async throws -> Run {
        let child = try Child(["check", "--plugins", plugin] + options)
        let exited = try await poll(atMost: .seconds(60)) { !child.process.isRunning }
        if !exited { kill(child.process.processIdentifier, SIGKILL) }
        child.process.waitUntilExit()
        #expect(exited, "host hung on \(plugin)")
        #expect(child.process.terminationReason == .exit, "ended by signal \(child.process.terminationStatus)")
        return Run(status: child.process.terminationStatus, output: child.output, errors: child.errors)
    }

    @Test func aContractLibraryOthersCanWriteIsRefusedNamingIt() async throws {
        let (folder, plugin) = try clockBeside { _, library in
            try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: library)
        }
        let run = try await check(plugin)
        #expect(run.status == 1, "\(run.output)")
        #expect(run.errors.contains("\(plugin): not loaded, the library it links libSampleContracts.so "
                                    + "(\(folder.path)/libSampleContracts.so) is refused: "), "\(run.errors)")
        #expect(run.errors.contains("writable by"), "\(run.errors)")
        // HostKit names its option, the host its flag.
        #expect(run.errors.contains("PluginDiscovery.allowUntrusted loads it anyway; --allow-untrusted loads it anyway"),
                "\(run.errors)")
        // Allowed as the plugin would be: the same rule for both.
        #expect(try await check(plugin, ["--allow-untrusted"]).status == 0)
    }

    @Test func aTruncatedContractLibraryIsRefusedBeforeTheLoaderTouchesIt() async throws {
        let (folder, plugin) = try clockBeside { folder, library in
            let bytes = try Data(contentsOf: URL(fileURLWithPath: library))
            try folder.write("libSampleContracts.so", Array(bytes.prefix(bytes.count / 2)), mode: 0o755)
        }
        let run = try await check(plugin)
        withExtendedLifetime(folder) {}
        #expect(run.status == 1, "\(run.output)")
        #expect(run.errors.contains("the library it links libSampleContracts.so"), "\(run.errors)")
        #expect(run.errors.contains("truncated"), "\(run.errors)")
    }

    @Test func aContractLibraryThatIsAPipeIsRefusedWithoutAHang() async throws {
        let (folder, plugin) = try clockBeside { _, library in
            try FileManager.default.removeItem(atPath: library)
            #expect(mkfifo(library, 0o644) == 0)
        }
        let run = try await check(plugin)
        withExtendedLifetime(folder) {}
        #expect(run.status == 1, "\(run.output)")
        #expect(run.errors.contains("is refused: not a regular file (a pipe)"), "\(run.errors)")
    }

    /// Also when the file's `PT_DYNAMIC` offset points at a decoy (16 zero bytes: an empty dynamic
    /// section): the loader reads the section at its address, and so must the check.
    @Test(arguments: [false, true])
    func aLibraryFoundThroughARunPathInAFolderOthersCanWriteIsRefused(decoyOffset: Bool) async throws {
        let folder = try TemporaryFolder()
        // The plugin's RUNPATH, rewritten in place (same length, NUL-padded) to a folder beside it.
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: BuiltPlugins.path("ClockPlugin"))))
        let old = Array("/opt/swift/usr/lib/swift/linux:$ORIGIN".utf8)
        let new = Array("$ORIGIN/shared".utf8)
        let start = try #require(bytes.indices.first { bytes[$0...].starts(with: old) })
        bytes.replaceSubrange(start..<start + old.count, with: new + [UInt8](repeating: 0, count: old.count - new.count))
        if decoyOffset {
            func integer(_ offset: Int) -> Int {
                Int(bytes.withUnsafeBytes { UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) })
            }
            let table = integer(32), entrySize = Int(bytes[54]) | Int(bytes[55]) << 8, count = Int(bytes[56]) | Int(bytes[57]) << 8
            let dynamic = try #require((0..<count).map { table + $0 * entrySize }.first { bytes[$0] == 2 && bytes[$0 + 1...$0 + 3].allSatisfy { $0 == 0 } })
            let zeros = try #require(stride(from: 64, to: bytes.count - 16, by: 8).first { at in bytes[at..<at + 16].allSatisfy { $0 == 0 } })
            withUnsafeBytes(of: UInt64(zeros).littleEndian) { bytes.replaceSubrange(dynamic + 8..<dynamic + 16, with: $0) }
        }
        let plugin = try folder.write("clock.so", bytes, mode: 0o755)
        let shared = folder.file("shared")
        try FileManager.default.createDirectory(atPath: shared, withIntermediateDirectories: false,
                                                attributes: [.posixPermissions: 0o777])
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: shared)
        try folder.copy("SampleContracts", as: "shared/libSampleContracts.so")
        let run = try await check(plugin)
        #expect(run.status == 1, "\(run.output)")
        #expect(run.errors.contains("libSampleContracts.so (\(shared)/libSampleContracts.so) is refused"), "\(run.errors)")
        #expect(run.errors.contains(shared), "\(run.errors)")
    }

    @Test func aMissingContractLibraryIsNamedWithWhereItBelongs() async throws {
        let (folder, plugin) = try clockBeside { _, library in try FileManager.default.removeItem(atPath: library) }
        let run = try await check(plugin)
        withExtendedLifetime(folder) {}
        #expect(run.status == 1, "\(run.output)")
        #expect(run.errors.contains("the library it links libSampleContracts.so is not found where the dynamic linker "
                                    + "looks for it"), "\(run.errors)")
        #expect(run.errors.contains("ship it beside the plugin"), "\(run.errors)")
    }

    /// An entry symbol for a C file that stands for a plugin: a file without one is no plugin and is
    /// never opened, so the checks of the libraries it brings would not be reached.
    private static let entry = "void *swift_plugin_entry(void) { return 0; }\n"

    /// Builds a C shared library `name` in `folder` from `source`, linked with `arguments`.
    private func buildC(_ name: String, _ source: String, in folder: TemporaryFolder, _ arguments: [String]) async throws -> String {
        let file = folder.file("\(name).c")
        try source.write(toFile: file, atomically: true, encoding: .utf8)
        let output = folder.file(name)
        let url = URL(fileURLWithPath: folder.path)
        let build = try await runChild("/usr/bin/env", ["cc", "-shared", "-fPIC", "-o", output, file] + arguments, in: url, log: url)
        try #require(build.status == 0, "cc failed: \(build.output)")
        return output
    }

    /// A library that links `libClockPlugin.so` by that bare name, with the clock plugin loaded by its
    /// path beside it: the loader matches the names an object was loaded under, not its file name, so
    /// it searches the name and maps the file its run path finds (here a folder anyone can write).
    /// Taking the loaded plugin's file name for an answer let that file in unchecked.
    @Test func aNameALoadedPluginsFileHasIsStillLookedUp() async throws {
        let folder = try TemporaryFolder()
        let open = folder.file("open")
        try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o777])
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: open)
        _ = try await buildC("open/libClockPlugin.so", "int planted(void) { return 1; }\n", in: folder, [])
        let user = try await buildC("libUserPlugin.so", "int planted(void);\nint use(void) { return planted(); }\n" + Self.entry, in: folder,
                                    ["-L\(open)", "-lClockPlugin", "-Wl,--enable-new-dtags,-rpath,\(open)"])
        let run = try await check(plugin("ClockPlugin"), ["--plugins", user, "--allow-other-compiler"])
        withExtendedLifetime(folder) {}
        #expect(run.errors.contains("libUserPlugin.so: not loaded, the library it links libClockPlugin.so (\(open)/libClockPlugin.so) is refused"),
                "\(run.errors)")
    }

    /// The loader maps a plugin's own needs before theirs (breadth first): a soname a deeper library
    /// brings does not answer the plugin's own need of that name, which is looked up, and refused here.
    @Test func aSonameFromADeeperLibraryDoesNotHideThePluginsOwnNeed() async throws {
        let folder = try TemporaryFolder()
        let open = folder.file("open")
        try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o777])
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: open)
        let trusted = folder.file("lib")
        try FileManager.default.createDirectory(atPath: trusted, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o755])
        // lib/libL1.so has the soname libX.so.1; lib/libA.so needs it; open/libX.so.1 is planted.
        _ = try await buildC("lib/libL1.so", "int deep(void) { return 1; }\n", in: folder, ["-Wl,-soname,libX.so.1"])
        _ = try await buildC("lib/libA.so", "int deep(void);\nint a(void) { return deep(); }\n", in: folder,
                             ["-L\(trusted)", "-l:libL1.so", "-Wl,--enable-new-dtags,-rpath,\(trusted)"])
        _ = try await buildC("open/libX.so.1", "int deep(void) { return 2; }\n", in: folder, ["-Wl,-soname,libX.so.1"])
        // The plugin needs libA.so, then libX.so.1, searched in lib/ then open/.
        let user = try await buildC("libTwoPlugin.so", "int a(void);\nint deep(void);\nint both(void) { return a() + deep(); }\n" + Self.entry,
                                    in: folder, ["-L\(trusted)", "-lA", "-L\(open)", "-l:libX.so.1",
                                                 "-Wl,--enable-new-dtags,-rpath,\(trusted):\(open)"])
        let run = try await check(user, ["--allow-other-compiler"])
        withExtendedLifetime(folder) {}
        #expect(run.errors.contains("the library it links libX.so.1 (\(open)/libX.so.1) is refused"), "\(run.errors)")
    }

    /// An entry symbol that is data or an indirect function is refused from the file's symbol table,
    /// before `dlopen`: the data library's initializer and the IFUNC's resolver (plugin code, which
    /// `dlsym` would run) never run. Before, both ran, and the IFUNC was said to be data.
    @Test func anEntryThatIsNoFunctionIsRefusedBeforeAnythingOfTheFileRuns() async throws {
        let folder = try TemporaryFolder()
        let marker = { (name: String) in folder.file("\(name)-ran") }
        let touch = { (name: String) in #"close(open(""# + marker(name) + #"", O_CREAT | O_WRONLY, 0644));"# }
        let headers = "#include <fcntl.h>\n#include <unistd.h>\n"
        let data = try await buildC("libDataPlugin.so", headers + "__attribute__((constructor)) static void ran(void) { "
                                    + touch("data") + " }\nint swift_plugin_entry = 7;\n", in: folder, [])
        let indirect = try await buildC("libIfuncPlugin.so", headers + "static void *real(void) { return 0; }\n"
                                        + "static void *(*resolve(void))(void) { " + touch("ifunc") + " return real; }\n"
                                        + "void *swift_plugin_entry(void) __attribute__((ifunc(\"resolve\")));\n", in: folder, [])
        let dataRun = try await check(data, ["--allow-other-compiler"])
        let indirectRun = try await check(indirect, ["--allow-other-compiler"])
        #expect(dataRun.errors.contains("libDataPlugin.so: its entry symbol 'swift_plugin_entry' is not a function of its own, so it "
                                        + "was not called: the file's symbol of that name is data, not a function"), "\(dataRun.errors)")
        #expect(indirectRun.errors.contains("libIfuncPlugin.so: its entry symbol 'swift_plugin_entry' is not a function of its own, "
                                            + "so it was not called: the file's symbol of that name is an indirect function (IFUNC)"),
                "\(indirectRun.errors)")
        #expect(!FileManager.default.fileExists(atPath: marker("data")), "the data library was opened")
        #expect(!FileManager.default.fileExists(atPath: marker("ifunc")), "the IFUNC's resolver ran")
        withExtendedLifetime(folder) {}
    }

    /// The entry symbol is looked for among the symbols the file defines, not in its string table:
    /// GNU ld keeps one string for a name that is the tail of another (`my_swift_plugin_entry`), so a
    /// string search took this plugin for no plugin; and a file that only needs the name is none.
    @Test func theEntrySymbolIsOneTheFileDefines() async throws {
        let folder = try TemporaryFolder()
        let tail = try await buildC("libTailPlugin.so", "void *my_swift_plugin_entry(void) { return 0; }\n" + Self.entry,
                                    in: folder, [])
        let opened = try await check(tail, ["--allow-other-compiler"])
        #expect(opened.errors.contains("libTailPlugin.so: the plugin entry returned nothing"), "opened as a plugin: \(opened.errors)")
        let user = try await buildC("libUserOfEntry.so", "void *swift_plugin_entry(void);\nvoid *use(void) { return swift_plugin_entry(); }\n",
                                    in: folder, ["-Wl,--allow-shlib-undefined"])
        let none = try await check(user, ["--allow-other-compiler"])
        withExtendedLifetime(folder) {}
        #expect(none.errors.contains("libUserOfEntry.so: not a plugin, no entry symbol 'swift_plugin_entry'"), "\(none.errors)")
    }

    /// A library that asks for an executable stack is refused before `dlopen`, which would make every
    /// thread's stack in the host executable: as a plugin, and as a library a plugin brings.
    @Test func aLibraryAskingForAnExecutableStackIsRefused() async throws {
        let folder = try TemporaryFolder()
        let library = try await buildC("libStackPlugin.so", "int f(void) { return 1; }\n", in: folder, ["-Wl,-z,execstack"])
        let run = try await check(library, ["--allow-other-compiler"])
        withExtendedLifetime(folder) {}
        #expect(run.status == 1)
        #expect(run.errors.contains("it asks for an executable stack"), "\(run.errors)")
    }

    /// A contract library whose version symbol is data, not a function (SECURITY.md's "version
    /// function that is data"): the version check jumped into it and the host died of the signal. It
    /// is called only if it is a function of the file named for the library; data of that name is a
    /// copy that says no version, and the plugin is refused for it.
    @Test func aVersionSymbolThatIsDataIsNotCalled() async throws {
        let folder = try TemporaryFolder()
        _ = try await buildC("libDataVersion.so", "unsigned long long swift_library_version_DataVersion = 0x100000000ULL;\n",
                             in: folder, [])
        // A header (format 4) that records PluginAPI and DataVersion 1.0.0; its descriptor is never read.
        let header = """
            extern unsigned long long swift_library_version_DataVersion;
            struct record { const char *name; unsigned long long version; };
            static struct record records[2] = { { "PluginAPI", 0x400000000ULL }, { "DataVersion", 0x100000000ULL } };
            static struct { unsigned long long magic; unsigned int format, size; const void *descriptor, *records;
                            unsigned int count, unused; } header = { 0x4E4947554C505753ULL, 4, 40, records, records, 2, 0 };
            void *linked(void) { return &swift_library_version_DataVersion; }
            void *swift_plugin_entry(void) { return &header; }

            """
        let plugin = try await buildC("libDataVersionUser.so", header, in: folder,
                                      ["-L\(folder.path)", "-Wl,--no-as-needed", "-lDataVersion", "-Wl,--enable-new-dtags,-rpath,$ORIGIN"])
        let run = try await check(plugin, ["--allow-other-compiler"])
        withExtendedLifetime(folder) {}
        #expect(run.status == 1, "\(run.output)")
        #expect(run.errors.contains("built against DataVersion 1.0.0, but no shared DataVersion loaded here says its version"),
                "\(run.errors)")
    }
}
