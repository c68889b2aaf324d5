import PluginAPI

/// Today's weather; provided by the weather plugin, used by the message-of-the-day plugin.
public protocol WeatherService: Sendable {
    /// The forecast for today.
    func today() -> Forecast
}

/// One day's forecast.
public struct Forecast: Sendable, Equatable {
    /// In words, such as "sunny".
    public let summary: String
    /// The highest temperature, in degrees Celsius.
    public let celsius: Int

    public init(summary: String, celsius: Int) {
        self.summary = summary
        self.celsius = celsius
    }
}

/// The keys of the weather contracts.
public enum WeatherKeys {
    /// The weather service.
    public static let service = ServiceLocatorEasyKey<any WeatherService>(name: "weather.service")
}
