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

    /// Runs `host check` on `plugin`, killed if it still runs after 20 s (a pipe the loader opened
    /// would hang it for ever).
    private func check(_ plugin: String, _ options: [String] = []) async throws -> Run {
        let child = try Child(["check", "--plugins", plugin] + options)
        let exited = try await poll(atMost: .seconds(20)) { !child.process.isRunning }
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
}
