import Configuration
import Dispatch
import PluginAPI
import Synchronization

/// Plugins' settings read through swift-configuration: each plugin's under `plugins.NAME` of a
/// `ConfigReader` (files, the environment, any providers), as `reader.scoped(to: "plugins.NAME")`.
/// A `PluginSettingsSource` for `PluginHost(settings:)`.
///
/// ```swift
/// let settings = try await SwiftConfigurationPluginSettings {
///     ConfigReader(providers: [
///         EnvironmentVariablesProvider(),                                   // PLUGINS_GREETER_GREETING=...
///         try await FileProvider<JSONSnapshot>(filePath: "/etc/myapp/config.json"),  // {"plugins": {"greeter": ...}}
///     ])
/// }
/// let host = PluginHost(settings: settings)
/// ```
///
/// **Made again at each reload.** `makeReader` runs now and again as each load and reload of the
/// host begins (a `SIGHUP` through `PluginHostService`), so a file provider made in it reads its file
/// again; if it throws then, the reader before stays, and the reload's report says why. The host
/// runs a load or reload on a thread that it blocks, never one of Swift concurrency's (as
/// `PluginHostService` does): `makeReader` runs on those while that thread waits.
///
/// **A plugin's name must be lowercase letters and digits** (`greeter`, `notes2`). Environment
/// variables spell `plugins.my-plugin.port` and `plugins.my.plugin-port` alike
/// (`PLUGINS_MY_PLUGIN_PORT`), so with a dash, a dot, an underscore or a capital in names one plugin
/// could read another's settings. A plugin of another name reads none (each read throws, saying
/// why); HostKit's `PluginSettingsFile` has no such limit. A key's parts are joined by dots and may
/// not be empty.
///
/// Every read is marked secret (`isSecret: true`): an access reporter never logs a plugin's value,
/// whichever of them the plugin holds secret. A value of the provider's is text as it is, a number
/// as its text; a JSON `true` or `false` reads as `1` or `0` (swift-configuration reads JSON booleans
/// as numbers too), which a plugin's `bool(forKey:)` takes; a list is not read (unset).
public final class SwiftConfigurationPluginSettings: PluginSettingsSource {
    private let makeReader: @Sendable () async throws -> ConfigReader
    private let reader: Mutex<ConfigReader>

    /// Settings read from the reader `makeReader` makes, now and as each load and reload begins.
    public init(_ makeReader: @escaping @Sendable () async throws -> ConfigReader) async throws {
        self.makeReader = makeReader
        reader = Mutex(try await makeReader())
    }

    /// Makes the reader again (waiting for it on this thread); if that throws, the reader before stays.
    public func loadBegins() throws {
        let made = Self.wait(for: makeReader)
        let fresh = try made.get()
        reader.withLock { $0 = fresh }
    }

    /// The value of `key` under `plugins.PLUGIN`, as text, or nil if unset. Throws ``Refusal`` for a
    /// plugin name other than lowercase letters and digits, or a key with an empty part.
    public func value(forKey key: String, of plugin: String) throws -> String? {
        guard !plugin.isEmpty, plugin.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) }) else {
            throw Refusal(description: "plugin '\(plugin)' has no settings: in swift-configuration a plugin's name must "
                          + "be lowercase letters and digits, or environment variables could reach another plugin's")
        }
        let parts = key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard !parts.contains(where: \.isEmpty) else {
            throw Refusal(description: "'\(key)' is not a key: its parts between dots may not be empty")
        }
        let scoped = reader.withLock { $0 }.scoped(to: ConfigKey(["plugins", plugin]))
        let name = ConfigKey(parts)
        if let text = scoped.string(forKey: name, isSecret: true) { return text }
        if let number = scoped.int(forKey: name, isSecret: true) { return String(number) }
        if let number = scoped.double(forKey: name, isSecret: true) { return String(number) }
        if let flag = scoped.bool(forKey: name, isSecret: true) { return flag ? "true" : "false" }
        return nil
    }

    /// Why a read was refused.
    public struct Refusal: Error, CustomStringConvertible {
        /// What was refused, and why.
        public let description: String
    }

    /// `make`'s result, waited for on this thread (a task makes it on Swift concurrency's).
    private static func wait(for make: @escaping @Sendable () async throws -> ConfigReader) -> Result<ConfigReader, any Error> {
        let result = Mutex<Result<ConfigReader, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            let made: Result<ConfigReader, any Error>
            do {
                made = .success(try await make())
            } catch {
                made = .failure(error)
            }
            result.withLock { $0 = made }
            done.signal()
        }
        done.wait()
        return result.withLock { $0 } ?? .failure(CancellationError())
    }
}
