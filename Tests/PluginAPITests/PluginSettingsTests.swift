import Foundation
@_spi(HostKit) import PluginAPI
import Synchronization
import Testing

/// `PluginSettings`: typed reads, one answer per key for the settings' life, what a host compares at
/// a reload, and secrets that never print.
@Suite struct PluginSettingsTests {
    /// A source whose values a test changes, counting what it is asked.
    final class Values: PluginSettingsSource {
        let values: Mutex<[String: String]>
        let asked = Mutex<[String]>([])
        let failing = Mutex<Set<String>>([])

        init(_ values: [String: String]) {
            self.values = Mutex(values)
        }

        func value(forKey key: String, of plugin: String) throws -> String? {
            asked.withLock { $0.append("\(plugin):\(key)") }
            if failing.withLock({ $0.contains(key) }) { throw Broken() }
            return values.withLock { $0[key] }
        }

        struct Broken: Error, CustomStringConvertible {
            var description: String { "the source is broken" }
        }
    }

    @Test func typedReadsParseTheTextAndUnsetIsTheDefault() throws {
        let source = Values(["port": "8080", "neg": "-1", "ratio": "1e3", "on": "YES", "off": "0", "name": "x", "bad": "80a"])
        let settings = PluginSettings(plugin: "p", source: source)
        #expect(try settings.int(forKey: "port") == 8080 && settings.int(forKey: "neg") == -1)
        #expect(try settings.double(forKey: "ratio") == 1000 && settings.double(forKey: "port") == 8080)
        #expect(try settings.bool(forKey: "on") == true && settings.bool(forKey: "off") == false)
        #expect(try settings.string(forKey: "name") == "x" && settings.string(forKey: "port") == "8080")
        #expect(try settings.int(forKey: "unset", default: 7) == 7 && settings.bool(forKey: "unset") == nil)
        #expect(try settings.string(forKey: "unset", default: "d") == "d" && settings.double(forKey: "unset", default: 2) == 2)
        #expect(try settings.secret(forKey: "unset") == nil)
        // Set but not of the type read: an error naming plugin and key, not the value; not the default.
        #expect {
            try settings.int(forKey: "bad", default: 1)
        } throws: { error in
            "\(error)" == "plugin 'p' setting 'bad': its value is not a whole number"
        }
        #expect(throws: PluginSettingsError.self) { try settings.bool(forKey: "name") }
        #expect(throws: PluginSettingsError.self) { try settings.double(forKey: "name", default: 1) }
    }

    /// The first read of a key asks the source; later reads give that answer though the source
    /// changed, so a plugin never sees half of an edit. The host sees which keys changed.
    @Test func aKeyKeepsItsFirstAnswerAndTheHostSeesWhatChanged() throws {
        let source = Values(["a": "1", "b": "2"])
        let settings = PluginSettings(plugin: "p", source: source)
        #expect(try settings.string(forKey: "a") == "1" && settings.string(forKey: "unset") == nil)
        source.values.withLock { $0 = ["a": "changed", "b": "changed", "unset": "now set"] }
        #expect(try settings.string(forKey: "a") == "1" && settings.int(forKey: "a") == 1)
        #expect(try settings.string(forKey: "unset") == nil)
        #expect(source.asked.withLock { $0 } == ["p:a", "p:unset"])
        // `b` was never read: its change is not the plugin's business.
        #expect(settings.changedKeys == ["a", "unset"])
        source.values.withLock { $0 = ["a": "1", "b": "3"] }
        #expect(settings.changedKeys.isEmpty)
    }

    /// A read the source could not answer throws its reason each time; it counts as changed at a
    /// reload once the source can answer it (which then reads it anew), not while it still cannot (a
    /// new instance would get the same failure); one it answered counts once it cannot.
    @Test func aFailedReadThrowsAndCountsAsChanged() throws {
        let source = Values(["a": "1", "b": "2"])
        source.failing.withLock { $0 = ["a"] }
        let settings = PluginSettings(plugin: "p", source: source)
        for _ in 0 ..< 2 {
            #expect { try settings.string(forKey: "a") } throws: {
                "\($0)" == "plugin 'p' setting 'a': the source is broken"
            }
        }
        #expect(try settings.string(forKey: "b") == "2")
        #expect(settings.changedKeys.isEmpty)
        source.failing.withLock { $0 = ["b"] }
        #expect(settings.changedKeys == ["a", "b"])
    }

    @Test func aSecretNeverPrints() throws {
        let settings = PluginSettings(plugin: "p", source: Values(["token": "hunter2"]))
        let secret = try #require(try settings.secret(forKey: "token"))
        #expect(secret.value == "hunter2")
        var dumped = ""
        dump(secret, to: &dumped)
        let shown = ["\(secret)", String(describing: secret), String(reflecting: secret), dumped,
                     "\([secret])", "\(Optional(secret) as Any)", "\(["k": secret])"]
        for text in shown { #expect(!text.contains("hunter2"), "\(text)") }
        #expect("\(secret)" == "<secret>")
        #expect(Mirror(reflecting: secret).children.isEmpty)
    }

    /// Reflecting the settings reaches neither the host's source (every plugin's values) nor the answers.
    @Test func reflectionShowsNothingOfTheSettings() throws {
        let settings = PluginSettings(plugin: "p", source: Values(["token": "hunter2"]))
        _ = try settings.string(forKey: "token")
        var dumped = ""
        dump(settings, to: &dumped)
        #expect(!dumped.contains("hunter2") && !dumped.contains("Values"), "\(dumped)")
        #expect(Mirror(reflecting: settings).children.isEmpty)
    }

    @Test func aResolverNoHostLentHasNothingSet() throws {
        let locator = ServiceLocator()
        #expect(try locator.settings.string(forKey: "anything") == nil)
        #expect(locator.settings.changedKeys.isEmpty)
    }
}
