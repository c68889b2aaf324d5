import PluginAPI

// This library is built for library evolution (see ARCHITECTURE.md): a plugin built against an older
// release keeps working with a newer one when the newer one only adds. The blocks marked
// `since 1.1 { ... }` are such additions; `ContractEvolutionTests` builds a plugin against a copy
// without them (release 1.0) and loads it into a host of today.

/// Tells the time; provided by the clock plugin.
public protocol Clock: Sendable {
    /// Seconds since 1970.
    func now() -> Double
    /// The hour of the day (0-23, UTC).
    func hour() -> Int
    // since 1.1 {
    /// The clock's time zone. Added in 1.1, with a default, so a clock of a 1.0 plugin still works.
    func zone() -> String
    // }
}

// since 1.1 {
extension Clock {
    /// `"UTC"`, for clocks written before ``zone()`` existed.
    public func zone() -> String { "UTC" }
}
// }

/// Greets people; provided by the greeter plugin, which needs a ``Clock``.
public protocol Greeter: Sendable {
    /// A greeting for `name` that fits the time of day.
    func greet(_ name: String) -> String
}

/// A message prepared for one recipient; made from parameters on every get.
public struct Greeting: Sendable, Equatable {
    public let recipient: String
    public let text: String
    // since 1.1 {
    /// The greeting's language. Added in 1.1: a greeting made by a 1.0 plugin says `"en"`.
    public var language = "en"
    // }

    public init(recipient: String, text: String) {
        self.recipient = recipient
        self.text = text
    }
    // since 1.1 {

    /// A greeting in `language`.
    public init(recipient: String, text: String, language: String) {
        self.init(recipient: recipient, text: text)
        self.language = language
    }
    // }
}

/// A small in-memory notebook shared by everyone who gets it.
public protocol Notebook: AnyObject, Sendable {
    /// Adds a note and returns how many there are.
    @discardableResult func add(_ note: String) -> Int
    /// Every note, oldest first.
    func all() -> [String]
}

/// The signed-in user: the session the account service is bound to.
public struct UserSession: ServiceSession, Equatable {
    public let user: String
    public var key: AnyHashable { user }

    public init(user: String) {
        self.user = user
    }
}

/// The signed-in user's account; made per user, kept while the user is away and reactivated when
/// the user is back.
public protocol Account: AnyObject, Sendable {
    /// Whose account it is.
    var user: String { get }
    /// How many times this account became the current one.
    var activations: Int { get }
}

/// Where the notes plugin writes what happened: a file opened when the plugin starts and closed
/// when it shuts down.
public protocol Journal: AnyObject, Sendable {
    /// The file's path.
    var path: String { get }
    /// True between the plugin's start and shutdown.
    var isOpen: Bool { get }
    /// Appends a line; returns false if the journal is closed.
    @discardableResult func write(_ line: String) -> Bool
}

/// An archive that must connect before use: made by an async factory.
public protocol Archive: Sendable {
    /// How many connections were made since the process started (one, however many asked).
    var connections: Int { get }
    /// Stores `text` and returns its number.
    func store(_ text: String) async -> Int
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
    /// The mediator of ``UserSession``s, `atOne`: switch users with `updateSession`.
    public static let sessions = ServiceLocatorEasyKey<ServiceSessionMediator<UserSession>>(name: "sample.sessions")
    /// `any Account` of the current user, `lazy`, bound to ``sessions``.
    public static let account = ServiceLocatorEasyKey<any Account>(name: "sample.account")
    /// `any Journal`, `atOne`, open while the notes plugin runs.
    public static let journal = ServiceLocatorEasyKey<any Journal>(name: "sample.journal")
    /// `any Archive`, async `lazy`: get it with `await tryServiceAsync(key:)`.
    public static let archive = ServiceLocatorEasyKey<any Archive>(name: "sample.archive")
}
