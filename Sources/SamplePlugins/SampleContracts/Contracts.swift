import PluginAPI

/// Tells the time; provided by the clock plugin.
public protocol Clock: Sendable {
    /// Seconds since 1970.
    func now() -> Double
    /// The hour of the day (0-23, UTC).
    func hour() -> Int
}

/// Greets people; provided by the greeter plugin, which needs a ``Clock``.
public protocol Greeter: Sendable {
    /// A greeting for `name` that fits the time of day.
    func greet(_ name: String) -> String
}

/// A message prepared for one recipient; made from parameters on every get.
public struct Greeting: Sendable, Equatable {
    public let recipient: String
    public let text: String

    public init(recipient: String, text: String) {
        self.recipient = recipient
        self.text = text
    }
}

/// A small in-memory notebook shared by everyone who gets it.
public protocol Notebook: AnyObject, Sendable {
    /// Adds a note and returns how many there are.
    @discardableResult func add(_ note: String) -> Int
    /// Every note, oldest first.
    func all() -> [String]
}

/// The keys of the sample services: what host and plugins agree on.
public enum SampleKeys {
    /// `any Clock`, `atOne`.
    public static let clock = ServiceLocatorEasyKey<any Clock>(name: "sample.clock")
    /// `any Greeter`, `lazy`.
    public static let greeter = ServiceLocatorEasyKey<any Greeter>(name: "sample.greeter")
    /// A ``Greeting`` for the recipient passed as parameter, `many`.
    public static let greeting = ServiceLocatorParamsEasyKey<Greeting, String>(name: "sample.greeting")
    /// A new request id (`req-1`, `req-2`, ...) on every get, `many`.
    public static let requestID = ServiceLocatorEasyKey<String>(name: "sample.request-id")
    /// `any Notebook`, `weak`: one notebook while someone holds it.
    public static let notebook = ServiceLocatorEasyKey<any Notebook>(name: "sample.notebook")
}
