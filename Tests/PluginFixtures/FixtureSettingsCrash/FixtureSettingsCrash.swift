import Glibc
import PluginAPI

/// `fixturesettingscrash` 1.0.0: a careless plugin whose registration crashes (abort, SIGABRT) on one value
/// of its `endpoint` setting, `crash`, as a force unwrap of a URL it cannot parse would; with any
/// other value, or none, it registers and serves the endpoint it read.
struct SettingsCrashPlugin: Plugin {
    static let endpoint = ServiceLocatorEasyKey<String>(name: "fixture.settings-crash.endpoint")
    static let metadata = PluginMetadata(name: "fixturesettingscrash", version: "1.0.0", provides: [endpoint])

    func registerServices(in registrar: ModuleRegistrar) throws {
        let endpoint = try registrar.services.settings.string(forKey: "endpoint", default: "none")
        if endpoint == "crash" { abort() }
        try registrar.addLazyService(key: Self.endpoint) { endpoint }
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(SettingsCrashPlugin.self) }
