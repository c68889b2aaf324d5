import Foundation
import HostKit
@_spi(HostKit) import PluginAPI
import TestSupport
import Testing

let versionedKey = ServiceLocatorEasyKey<String>(name: "fixture.versioned")
let versionedUseKey = ServiceLocatorEasyKey<String>(name: "fixture.versioned.use")
let versionedUserKey = ServiceLocatorEasyKey<String>(name: "fixture.versioned.user")
let versionedUserNowKey = ServiceLocatorEasyKey<String>(name: "fixture.versioned.user.now")

/// A folder of plugin files that a host loads, and that a test changes as an operator would.
struct PluginFolder {
    let folder: TemporaryFolder
    let host: PluginHost

    /// `files` (file name to built product) installed in a new folder, loaded from `source` (the folder).
    init(_ files: [String: String], script: LifecycleScript,
         source: (TemporaryFolder) -> PluginSource = { .directory($0.path) }) throws {
        folder = try TemporaryFolder()
        for (name, product) in files { try folder.install(product, as: name) }
        host = try script.host()
        let report = host.load([source(folder)])
        #expect(report.problems.isEmpty, "\(report.problems)")
    }

    func install(_ product: String, as name: String) throws { try folder.install(product, as: name) }
    func remove(_ name: String) throws { try FileManager.default.removeItem(atPath: folder.file(name)) }
    func move(_ name: String, to other: String) throws { try FileManager.default.moveItem(atPath: folder.file(name), toPath: folder.file(other)) }
}

/// Counts each version's running instances from the fixtures' events; a `use` of a version with none
/// running is a violation.
final class VersionCounts: @unchecked Sendable {
    // @unchecked: both fields only under `lock` (an NSLock, so ThreadSanitizer sees it).
    private let lock = NSLock()
    private var running: [String: Int] = [:]
    private var found: [String] = []

    func record(_ event: String) -> String {
        let words = event.split(separator: " ")
        guard words.count == 3, words[1] == "versioned" else { return "ok" }
        let version = String(words[2])
        lock.withLock {
            switch words[0] {
            case "start": running[version, default: 0] += 1
            case "shutdown": running[version, default: 0] -= 1
            case "use" where running[version, default: 0] < 1: found.append("a get reached version \(version) after its shutdown began")
            default: break
            }
        }
        return "ok"
    }

    var violations: [String] { lock.withLock { found } }
}

/// A flag one task sets and others read.
final class Flag: @unchecked Sendable {
    // @unchecked: `value` only under `lock`.
    private let lock = NSLock()
    private var value = false
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}

/// Events told to a fixture's control, in order.
final class LockedEvents: @unchecked Sendable {
    // @unchecked: `log` only under `lock`.
    private let lock = NSLock()
    private var log: [String] = []
    func append(_ event: String) { lock.withLock { log.append(event) } }
    var all: [String] { lock.withLock { log } }
}
