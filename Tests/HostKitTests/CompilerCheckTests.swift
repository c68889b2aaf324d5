import Foundation
import HostKit
import TestSupport
import Testing

/// A plugin another Swift toolchain built is refused before `dlopen`, naming both toolchains, unless
/// the discovery allows other compilers. The plugins here are real builds whose `.comment` section
/// was rewritten afterwards, as another toolchain (or a forger) would have written it.
@Suite struct CompilerCheckTests {
    /// A copy of the clock plugin whose toolchain line has `replacement` instead of `original`
    /// (same length, so the ELF file stays valid).
    private func rewritten(_ original: String, to replacement: String, in folder: TemporaryFolder) throws -> String {
        precondition(original.utf8.count == replacement.utf8.count)
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: BuiltPlugins.path("ClockPlugin"))))
        let needle = Array(original.utf8)
        let start = try #require(bytes.indices.first { bytes[$0...].starts(with: needle) }, "no '\(original)' in the plugin")
        bytes.replaceSubrange(start..<start + needle.count, with: Array(replacement.utf8))
        return try folder.write("clock.so", bytes, mode: 0o755)
    }

    /// The toolchain line of the clock plugin as built here.
    private var builtLine: String {
        get throws {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: BuiltPlugins.path("ClockPlugin"))))
            let marker = Array("clang version ".utf8)
            let start = try #require(bytes.indices.first { bytes[$0...].starts(with: marker) })
            let end = bytes[start...].firstIndex(of: 0) ?? bytes.endIndex
            return String(decoding: bytes[start..<end], as: UTF8.self)
        }
    }

    @Test func aPluginOfAnotherToolchainIsRefusedNamingBoth() throws {
        let folder = try TemporaryFolder()
        let line = try builtLine
        let version = try #require(line.split(separator: " ").dropFirst(2).first.map(String.init))
        let other = String(repeating: "9", count: version.count)
        let path = try rewritten("clang version \(version)", to: "clang version \(other)", in: folder)

        let report = PluginHost().load([.file(path)])
        guard case let .compilerMismatch(refused, plugin, host)? = report.problems.first else {
            Issue.record("expected compilerMismatch, got \(report.problems)")
            return
        }
        #expect(refused == path)
        #expect(plugin == line.replacingOccurrences(of: version, with: other))
        #expect(host == line)
        #expect(report.loaded.isEmpty)
        let message = String(describing: report.problems[0])
        #expect(message.contains("clang version \(other)") && message.contains("clang version \(version)"), "\(message)")
        #expect(message.hasSuffix("PluginDiscovery.allowOtherCompilers loads it anyway"), "\(message)")
        #expect(report.problems[0].allowedBy == \.allowOtherCompilers)

        // The user may accept it: then it loads (it is this toolchain's build after all).
        let accepted = PluginHost(discovery: PluginDiscovery(allowOtherCompilers: true)).load([.file(path)])
        #expect(accepted.problems.isEmpty, "\(accepted.problems)")
        #expect(accepted.loaded.map(\.metadata?.name) == ["clock"])
    }

    @Test func aPluginThatNamesNoToolchainIsRefused() throws {
        let folder = try TemporaryFolder()
        let path = try folder.copy("ClockPlugin", as: "stripped.so")
        let strip = Process()
        strip.executableURL = URL(fileURLWithPath: "/usr/bin/objcopy")
        strip.arguments = ["--remove-section", ".comment", path]
        try strip.run()
        strip.waitUntilExit()
        try #require(strip.terminationStatus == 0, "objcopy failed")

        let report = PluginHost().load([.file(path)])
        guard case let .compilerMismatch(_, plugin, _)? = report.problems.first else {
            Issue.record("expected compilerMismatch, got \(report.problems)")
            return
        }
        #expect(plugin.contains("no compiler named"), "\(plugin)")
    }

    /// The line comes from the file: control characters in it are printed escaped, never raw.
    @Test func aForgedToolchainLineIsPrintedEscaped() throws {
        let folder = try TemporaryFolder()
        let line = try builtLine
        let version = try #require(line.split(separator: " ").dropFirst(2).first.map(String.init))
        let forged = "\u{1B}[2J" + String(repeating: "x", count: version.utf8.count - 4)
        let path = try rewritten("clang version \(version)", to: "clang version \(forged)", in: folder)

        let report = PluginHost().load([.file(path)])
        let message = String(describing: try #require(report.problems.first))
        #expect(!message.unicodeScalars.contains("\u{1B}"), "\(message.debugDescription)")
        #expect(message.contains("\\u{1B}[2J"), "\(message.debugDescription)")
    }
}

extension CompilerCheckTests {
    /// Damaging the section headers (their table moved past the end of the file) does not skip the
    /// check: the file is refused as damaged, also where other compilers are allowed.
    @Test func unreadableSectionsDoNotSkipTheCheck() throws {
        let folder = try TemporaryFolder()
        var bytes = Array(try Data(contentsOf: URL(fileURLWithPath: BuiltPlugins.path("ClockPlugin"))))
        // e_shoff, the section header table's offset, at byte 40 of the ELF header.
        withUnsafeBytes(of: UInt64(bytes.count + 4096).littleEndian) { bytes.replaceSubrange(40..<48, with: $0) }
        let path = try folder.write("damaged.so", bytes, mode: 0o755)

        for discovery in [PluginDiscovery(), PluginDiscovery(allowOtherCompilers: true)] {
            let report = PluginHost(discovery: discovery).load([.file(path)])
            guard case let .notASharedLibrary(_, reason)? = report.problems.first else {
                Issue.record("expected notASharedLibrary, got \(report.problems)")
                return
            }
            #expect(reason.contains("truncated or damaged: its section headers end at byte"), "\(reason)")
        }
    }
}
