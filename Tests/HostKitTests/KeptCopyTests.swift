import Foundation
@testable import HostKit
@_spi(HostKit) import PluginAPI
import TestSupport
import Testing

/// What a mapped image keeps open: the copy it was mapped from stays open only for a later load's
/// file check (PH-0032), so a host without one holds no more descriptors after many upgrades than
/// before, and a host with one holds one per image mapped (BENCHMARKS.md, "What a kept image costs").
@Suite struct KeptCopyTests {
    /// A check that accepts every file: a host that has one keeps each copy it maps.
    struct AcceptAll: PluginFileCheck {
        func check(_ file: PluginFile) throws {}
    }

    /// The versions the upgrades cycle through: each install is a new file, so each is a new image.
    static let versions = ["FixtureVersionOne", "FixtureVersionTwo", "FixtureVersionThree"]

    /// The descriptors of this process open on a file under `folder` (its copies' folder; a copy's
    /// name is gone once its load ends, and the link then ends in " (deleted)").
    static func descriptors(under folder: String) throws -> Int {
        try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count { entry in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + entry))?.hasPrefix(folder + "/") == true
        }
    }

    /// A host whose copies go to a folder of this test's, with `fileCheck`, that has loaded the first
    /// version and upgraded it `upgrades` times; the descriptors left open on its copies.
    static func descriptorsAfter(upgrades: Int, fileCheck: (any PluginFileCheck)?) throws -> Int {
        let plugins = try TemporaryFolder()
        let copies = try TemporaryFolder()
        let base = ServiceLocator()
        try base.addService(key: lifecycleControlKey, service: { (_: String) in "ok" })
        let host = try PluginHost(base: base, discovery: PluginDiscovery(shadowFolder: copies.path, fileCheck: fileCheck))
        defer { host.shutdown() }
        try plugins.install(versions[0], as: "libversioned.so")
        let first = host.load([.directory(plugins.path)])
        #expect(first.problems.isEmpty && first.loaded.count == 1, "\(first.text)")
        for upgrade in 1...upgrades {
            try plugins.install(versions[upgrade % versions.count], as: "libversioned.so")
            let report = host.reload()
            #expect(report.entries.map(\.action) == [.upgraded], "upgrade \(upgrade): \(report.text)")
        }
        return try descriptors(under: copies.path)
    }

    @Test func withoutAFileCheckUpgradesKeepNoCopyOpen() throws {
        #expect(try Self.descriptorsAfter(upgrades: 6, fileCheck: nil) == 0)
    }

    @Test func withAFileCheckEachImageMappedKeepsOneCopyOpen() throws {
        #expect(try Self.descriptorsAfter(upgrades: 6, fileCheck: AcceptAll()) == 7)
    }
}
