import Distributed
import FixtureDoors
import FixtureRemoteContracts
import Foundation
import PluginActors
import PluginAPI

/// Provides the sandbox probe (``SandboxProbe``): it tries the doors it is asked to from its own
/// process, and, in its start hook, the doors its `doors` setting names (lines separated by `;`),
/// each logged with its answer, and its process id. It reads its `workers` setting as a whole number
/// as it registers (another value fails its registration). With its `hangAtShutdown` setting `true` its
/// shutdown hook never returns (with the door `exit-handler`, nor does its process's exit).
struct SandboxProbePlugin: Plugin {
    /// What it declares it needs (the tests grant all but the last write, and more it does not declare).
    static let needs = PluginNeeds(read: ["/tmp/fixture-sandbox-probe/read"],
                                   write: ["/tmp/fixture-sandbox-probe/write", "/tmp/fixture-sandbox-probe-denied"],
                                   run: ["/bin/true"], tcpPorts: [29_101])
    static let metadata = PluginMetadata(name: "fixture-sandbox-probe", version: "1.0.0", provides: [RemoteKeys.sandboxProbe],
                                         needs: needs)
    static let contractLibraries: [LibraryVersion] = [.pluginActors, .fixtureRemoteContracts]

    let atStart = Attempts()
    let hangsAtShutdown = Attempts()

    func registerServices(in registrar: ModuleRegistrar) throws {
        // Read as it registers: a value of another type fails the registration, as an operator's typo would.
        _ = try registrar.services.settings.int(forKey: "workers")
        // As many lines as `registrationLines` says, for a host that ends right after registering (`check`).
        for line in 0..<(try registrar.services.settings.int(forKey: "registrationLines") ?? 0) {
            registrar.services.log.notice("registration line \(line)")
        }
        let atStart = atStart
        try registrar.addService(key: RemoteKeys.sandboxProbe) { ProbeService(atStart: atStart) }
    }

    func start(services: ServiceResolver) async throws {
        let doors = (try services.settings.string(forKey: "doors") ?? "").split(separator: ";").map(String.init)
        atStart.lines = ProbeService.attempt(doors)
        // Each door's answer reaches the host's log too, for a host run as a command.
        for (door, answer) in zip(doors, atStart.lines) {
            services.log.notice("door \(door) -> \(answer)")
        }
        services.log.notice("process \(getpid())")
        hangsAtShutdown.lines = try services.settings.string(forKey: "hangAtShutdown") == "true" ? ["hang"] : []
    }

    func shutdown() async throws {
        while !hangsAtShutdown.lines.isEmpty { sleep(3600) }
    }
}

distributed actor ProbeService: SandboxProbe {
    typealias ActorSystem = PluginActorSystem
    let atStart: Attempts

    init(atStart: Attempts) {
        actorSystem = .shared
        self.atStart = atStart
    }

    distributed func attempt(_ doors: [String]) -> [String] { Self.attempt(doors) }

    distributed func startAttempts() -> [String] { atStart.lines }

    /// `allowed` or `denied: REASON` for each `KIND TARGET`.
    static func attempt(_ doors: [String]) -> [String] {
        doors.map { door in
            let parts = door.split(separator: " ", maxSplits: 1).map(String.init)
            let error = door_try(parts.first ?? "", parts.count > 1 ? parts[1] : "")
            return error == 0 ? "allowed" : "denied: \(String(cString: strerror(error)))"
        }
    }
}

/// What the start hook's attempts said, set once and read by any thread (an `NSLock`: ThreadSanitizer
/// does not see through `Mutex` on Linux).
final class Attempts: @unchecked Sendable {
    private let lock = NSLock()
    private var value: [String] = []
    var lines: [String] {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(SandboxProbePlugin.self) }
