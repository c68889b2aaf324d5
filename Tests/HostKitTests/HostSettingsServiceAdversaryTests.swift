import Distributed
import Foundation
@testable import HostKit
@_spi(HostKit) import PluginAPI
@_spi(HostKit) import PluginActors
import Synchronization
import Testing

/// A hostile process of a plugin asking the host for settings (``HostSettingsService``): whatever it
/// asks, the host answers its plugin's settings only, and remembers a bounded number of keys.
@Suite struct HostSettingsServiceAdversaryTests {
    /// Every key set to its own name, for any plugin; counts what it is asked.
    final class Echoing: PluginSettingsSource {
        let asked = Mutex<[String]>([])
        func value(forKey key: String, of plugin: String) throws -> String? {
            asked.withLock { $0.append("\(plugin):\(key)") }
            return key
        }
    }

    @Test func aChildReadsItsPluginsSettingsAndABoundedNumberOfKeys() async throws {
        let source = Echoing()
        let settings = PluginSettings(plugin: "real", source: source)
        let service = HostSettingsService(actorSystem: PluginActorSystem(), settings: settings)
        #expect(try await service.value(forKey: "a") == "a")
        #expect(source.asked.withLock { $0 } == ["real:a"])
        // A key longer than the bound is refused unasked.
        await #expect(throws: ChildRefusal.self) { try await service.value(forKey: String(repeating: "k", count: 2000)) }
        for index in 1 ..< HostSettingsService.keyLimit {
            _ = try await service.value(forKey: "key\(index)")
        }
        await #expect(throws: ChildRefusal.self) { try await service.value(forKey: "one more") }
        // A key asked before is answered again (kept), past the bound too.
        #expect(try await service.value(forKey: "a") == "a")
        #expect(source.asked.withLock { $0.count } == HostSettingsService.keyLimit)
        #expect(source.asked.withLock { $0 }.allSatisfy { $0.hasPrefix("real:") })
    }
}
