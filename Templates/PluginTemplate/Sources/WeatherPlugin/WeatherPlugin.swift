import PluginAPI
import WeatherContracts

/// Provides the weather service the message of the day uses.
struct WeatherPlugin: Plugin {
    static let metadata = PluginMetadata(name: "weather", version: "1.0.0", provides: [WeatherKeys.service])
    static let contractLibraries: [LibraryVersion] = [.weatherContracts]

    func registerServices(in registrar: ModuleRegistrar) throws {
        try registrar.addService(key: WeatherKeys.service, service: FixedWeather())
    }
}

/// Always fine weather: a real plugin would ask a weather station.
struct FixedWeather: WeatherService {
    func today() -> Forecast { Forecast(summary: "sunny", celsius: 21) }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(WeatherPlugin.self) }
