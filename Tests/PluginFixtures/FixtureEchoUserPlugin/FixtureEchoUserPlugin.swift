import FixtureRemoteContracts
import PluginActors
import PluginAPI
import Foundation

/// Requires the echo service and calls it in its start hook, so that a requirement met from another
/// process is tested as one met in process is. Provides `fixture.echo-user.answer`, what that call
/// answered: the message echoed, the id of the process that served it and the type that served it.
struct EchoUserPlugin: Plugin {
    static let answer = ServiceLocatorEasyKey<String>(name: "fixture.echo-user.answer")
    static let metadata = PluginMetadata(name: "fixture-echo-user", version: "1.0.0", provides: [answer],
                                         requires: [RemoteKeys.echo])
    static let contractLibraries: [LibraryVersion] = [.pluginActors, .fixtureRemoteContracts]

    /// The answer its start hook got; `nil` before the start.
    let answered = Answer()

    func registerServices(in registrar: ModuleRegistrar) throws {
        let answered = answered
        try registrar.addService(key: Self.answer, mode: .many) {
            guard let text = answered.text else { throw NotStarted() }
            return text
        }
    }

    func start(services: ServiceResolver) async throws {
        let echo = try services.tryService(key: RemoteKeys.echo)
        let message = EchoMessage(text: "hello", number: 42, tags: ["a", "b"])
        let reply = try await echo.echo(message)
        let pid = try await echo.pid()
        answered.text = "\(reply.text) \(reply.number) \(reply.tags.joined(separator: ",")) from pid \(pid) "
            + "by \(String(reflecting: type(of: echo)))"
    }
}

/// The answer, set once by the start hook and read by any thread. An `NSLock`, not `Mutex`: the tests
/// run under ThreadSanitizer, which does not see through `Mutex` on Linux.
final class Answer: @unchecked Sendable {
    private let lock = NSLock()
    private var value: String?
    var text: String? {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}

/// `fixture.echo-user.answer` was asked for before the plugin started.
struct NotStarted: Error, CustomStringConvertible {
    var description: String { "fixture-echo-user has not started: no answer yet" }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(EchoUserPlugin.self) }
