import Crypto
import Foundation
import HostKit
import PluginHostDigests
import Testing

/// `DigestAllowlist.swiftCrypto`: a list `sha256sum` wrote, checked with swift-crypto's SHA-256;
/// and HostKit's own SHA-256 against swift-crypto's on every file a load shows its check.
@Suite struct DigestTests {
    /// A new folder holding copies of the clock and greeter sample plugins (files no load has opened).
    private static func plugins() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("digests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["ClockPlugin", "GreeterPlugin", "NotesPlugin"] {
            try FileManager.default.copyItem(atPath: "\(Samples.directory)/lib\(name).so",
                                             toPath: folder.appendingPathComponent("lib\(name).so").path)
        }
        return folder
    }

    /// `sha256sum NAMES...` in `folder`, written to its SHA256SUMS; returns that file's path.
    private static func sha256sum(_ names: [String], in folder: URL) throws -> String {
        let list = folder.appendingPathComponent("SHA256SUMS").path
        _ = FileManager.default.createFile(atPath: list, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = names
        process.currentDirectoryURL = folder
        process.standardOutput = FileHandle(forWritingAtPath: list)
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return list
    }

    @Test func aListCheckedWithSwiftCryptoLoadsWhatItNamesOnly() throws {
        let folder = try Self.plugins()
        defer { try? FileManager.default.removeItem(at: folder) }
        let list = try Self.sha256sum(["libClockPlugin.so", "libGreeterPlugin.so"], in: folder)
        let host = PluginHost(discovery: PluginDiscovery(fileCheck: try DigestAllowlist.swiftCrypto(contentsOf: list)))
        defer { host.shutdown() }
        let report = host.load([.directory(folder.path)])
        #expect(report.loaded.compactMap(\.metadata?.name).sorted() == ["clock", "greeter"], "\(report.text)")
        let notes = try Data(contentsOf: folder.appendingPathComponent("libNotesPlugin.so"))
        let digest = SHA256.hash(data: notes).map { String(format: "%02x", $0) }.joined()
        #expect(report.problems == [.fileRefused(path: folder.appendingPathComponent("libNotesPlugin.so").path,
                                                 reason: "it is not in the digest list \(list); its SHA-256 is \(digest)")])
    }

    /// Every file a load shows its check, digested by HostKit and by swift-crypto: the same digest.
    @Test func hostKitsSha256IsSwiftCryptos() throws {
        let folder = try Self.plugins()
        defer { try? FileManager.default.removeItem(at: folder) }
        let check = BothDigests()
        let host = PluginHost(discovery: PluginDiscovery(fileCheck: check))
        defer { host.shutdown() }
        let report = host.load([.directory(folder.path)])
        // Each plugin file is shown before it is mapped (the notes plugin is refused later, for the
        // account service it requires, which is not in the folder).
        let pairs = check.pairs
        #expect(pairs.map(\.0).sorted() == ["ClockPlugin", "GreeterPlugin", "NotesPlugin"].map {
            folder.appendingPathComponent("lib\($0).so").path
        }, "\(report.text)")
        for (path, hostKit, swiftCrypto) in pairs {
            #expect(hostKit == swiftCrypto && hostKit.count == 32, "\(path)")
        }
    }
}

/// A check that accepts every file and records both digests of each.
private final class BothDigests: PluginFileCheck, @unchecked Sendable {
    // @unchecked: `recorded` is only touched under `lock`.
    private let lock = NSLock()
    private var recorded: [(String, [UInt8], [UInt8])] = []

    var pairs: [(String, [UInt8], [UInt8])] { lock.withLock { recorded } }

    func check(_ file: PluginFile) throws {
        var hash = SHA256()
        try file.read { hash.update(data: $0) }
        let entry = (file.path, try file.sha256(), Array(hash.finalize()))
        lock.withLock { recorded.append(entry) }
    }
}
