import Glibc
import PluginAPI
import WeatherContracts

/// Provides a message of the day, made once, on the first get, with the weather from the weather plugin.
struct MotdPlugin: Plugin {
    static let motd = ServiceLocatorEasyKey<String>(name: "template.motd")
    static let metadata = PluginMetadata(name: "motd", version: "1.0.0", provides: [motd],
                                         requires: [WeatherKeys.service])
    static let contractLibraries: [LibraryVersion] = [.weatherContracts]

    func registerServices(in registrar: ModuleRegistrar) throws {
        let services = registrar.services
        try registrar.addLazyService(key: Self.motd) {
            let weather = try services.tryService(key: WeatherKeys.service).today()
            return "Message of the day for process \(getpid()): \(weather.summary), \(weather.celsius) °C"
        }
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(MotdPlugin.self) }
