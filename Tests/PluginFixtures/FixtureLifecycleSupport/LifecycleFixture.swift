import Foundation
import PluginAPI

/// The store key of the control a test puts into its host's base locator: called with each hook's
/// event (`start b`, `shutdown c`), it records the event and returns what the hook should do:
/// `ok`, `throw`, `hang-async` (sleep an hour, ends when cancelled) or `hang-blocking` (block the
/// thread, ignoring cancellation, for at most a minute so the process can still exit).
/// A stdlib function type, so the cast works across the plugin boundary. The fixtures require it (a
/// plugin gets only the keys it declares): a host without one of its own loads FixtureQuietControl.
public let lifecycleControlKey = ServiceLocatorEasyKey<@Sendable (String) -> String>(name: "fixture.lifecycle")

/// The key `fixture.lifecycle.<letter>`, which the fixture of that letter provides.
func lifecycleKey(_ letter: String) -> ServiceLocatorEasyKey<String> {
    ServiceLocatorEasyKey(name: "fixture.lifecycle.\(letter)")
}

/// The key `fixture.lifecycle.<letter>.reach`: a lazy service of the fixture of that letter, made
/// through the resolver its registrar lent it. It lists the fixtures whose service that resolver
/// serves when it is first gotten, such as `a c`.
func reachKey(_ letter: String) -> ServiceLocatorEasyKey<String> {
    ServiceLocatorEasyKey(name: "fixture.lifecycle.\(letter).reach")
}

/// A lifecycle fixture plugin: `fixture-lifecycle-<letter>`, providing `fixture.lifecycle.<letter>`
/// (and its `reach` key) and requiring the keys of the letters in `requires`. Its hooks do what the host's control says.
public protocol LifecycleFixture: Plugin {
    static var letter: String { get }
    static var requires: [String] { get }
    /// If true, its start reports `reached at start: <letters>` to the control: the fixtures whose
    /// service the resolver its start got serves then.
    static var reportsReachAtStart: Bool { get }
    /// The control found at start, used again at shutdown.
    var hooks: LifecycleHooks { get }
}

extension LifecycleFixture {
    public static var metadata: PluginMetadata {
        PluginMetadata(name: "fixture-lifecycle-\(letter)", version: "1.0.0", provides: [lifecycleKey(letter), reachKey(letter)],
                       requires: [lifecycleControlKey] + requires.map(lifecycleKey))
    }

    public func registerServices(in registrar: ModuleRegistrar) throws {
        try registrar.addService(key: lifecycleKey(Self.letter), service: Self.letter)
        let services = registrar.services
        try registrar.addLazyService(key: reachKey(Self.letter)) {
            ["a", "b", "c", "d"].filter { services.getService(key: lifecycleKey($0)) != nil }.joined(separator: " ")
        }
    }

    public static var reportsReachAtStart: Bool { false }

    public func start(services: ServiceResolver) async throws {
        hooks.control = services.getService(key: lifecycleControlKey)
        try await hooks.perform("start \(Self.letter)")
        if Self.reportsReachAtStart, let control = hooks.control {
            let reached = ["a", "b", "c", "d"].filter { services.getService(key: lifecycleKey($0)) != nil }
            _ = control("reached at start: \(reached.joined(separator: " "))")
        }
    }

    public func shutdown() async throws {
        try await hooks.perform("shutdown \(Self.letter)")
    }
}

/// Holds a module's control between its hooks.
public final class LifecycleHooks: @unchecked Sendable {
    // @unchecked: `stored` is only touched under `lock` (an NSLock, so ThreadSanitizer sees it).
    private let lock = NSLock()
    private var stored: (@Sendable (String) -> String)?

    public init() {}

    public var control: (@Sendable (String) -> String)? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    struct Refused: Error, CustomStringConvertible {
        let event: String
        var description: String { "fixture refused to \(event)" }
    }

    /// Reports `event` to the control and behaves as it answers. A cancelled `hang-async` reports
    /// `cancelled <event>`. (In a `host` program a test runs, the control is FixtureQuietControl's.)
    public func perform(_ event: String) async throws {
        guard let control else { return }
        switch control(event) {
        case "throw":
            throw Refused(event: event)
        case "hang-async":
            do {
                try await Task.sleep(for: .seconds(3600))
            } catch {
                _ = control("cancelled \(event)")
                throw error
            }
        case "hang-blocking":
            for _ in 0..<6000 { usleep(10_000) }
        default:
            break
        }
    }
}

/// A closable service that reports its close to a test's control as `event` (`close shared`).
public final class ReportingClosable: ClosableService {
    let control: (@Sendable (String) -> String)?
    let event: String

    public init(control: (@Sendable (String) -> String)?, event: String) {
        self.control = control
        self.event = event
    }

    public func close() async throws {
        _ = control?(event)
    }
}

