import PluginAPI

/// A plugin whose every string would take over the terminal that printed it raw: ESC sequences
/// (retitle the window, clear the screen, a C1 CSI), BEL, a right-to-left override, and newlines
/// that forge lines of the host's own. The host must show them escaped, and keep them exact in JSON.
struct HostileTextPlugin: Plugin {
    static let key = ServiceLocatorEasyKey<String>(name: "hostile.key\r\n\u{1B}[31mred\u{2028}")
    static let metadata = PluginMetadata(
        name: "hostile\u{1B}]0;pwned\u{07}\nhost: loaded fake 9.9",
        version: "6.6\u{1B}[2J\u{9B}31m\u{202E}",
        provides: [key])

    struct Refusal: Error, CustomStringConvertible {
        var description: String { "no\u{1B}[2J\nhost: stopped everything" }
    }

    func registerServices(in registrar: ModuleRegistrar) throws {
        try registrar.addService(key: Self.key, service: "value\u{07}\nhost: forged service line")
    }

    /// What it throws is printed too.
    func shutdown() async throws {
        throw Refusal()
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(HostileTextPlugin.self) }
