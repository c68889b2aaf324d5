import PluginAPI

/// `fixturesettings` 1.0.0 (a name of letters only, as swift-configuration's scopes need): reads its
/// own settings while it registers (typed, with defaults, a secret, and a key that would be another
/// plugin's setting if scopes were joined by dots) and says what it read through its service.
struct SettingsPlugin: Plugin {
    static let said = ServiceLocatorEasyKey<String>(name: "fixture.settings.said")
    static let metadata = PluginMetadata(name: "fixturesettings", version: "1.0.0", provides: [said])

    func registerServices(in registrar: ModuleRegistrar) throws {
        let settings = registrar.services.settings
        let greeting = try settings.string(forKey: "greeting", default: "hello")
        let times = try settings.int(forKey: "times", default: 1)
        let loud = try settings.bool(forKey: "loud", default: false)
        let ratio = try settings.double(forKey: "ratio", default: 0.5)
        let token = try settings.secret(forKey: "token")
        // Another plugin's setting, if a source joined the plugin's name and the key with dots.
        let other = (try? settings.string(forKey: "fixture-logger.token")) ?? nil
        let said = "greeting=\(greeting) times=\(times) loud=\(loud) ratio=\(ratio) token=\(token.map { "\($0)" } ?? "none")"
            + " tokenLength=\(token?.value.count ?? 0) other=\(other ?? "none")"
        try registrar.addLazyService(key: Self.said) { said }
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(SettingsPlugin.self) }
