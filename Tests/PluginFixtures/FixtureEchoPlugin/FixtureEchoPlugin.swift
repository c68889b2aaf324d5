import Distributed
import FixtureRemoteContracts
import Glibc
import PluginActors
import PluginAPI

/// Provides the echo service, a distributed actor of PluginActors' system: handed out as itself in
/// process, served to the host from a process of its own otherwise. It does what it is asked, which
/// includes crashing, exiting and hanging the process that serves it.
struct EchoPlugin: Plugin {
    static let metadata = PluginMetadata(name: "fixture-echo", version: "1.0.0", provides: [RemoteKeys.echo])
    static let contractLibraries: [LibraryVersion] = [.pluginActors, .fixtureRemoteContracts]

    func registerServices(in registrar: ModuleRegistrar) throws {
        try registrar.addLazyService(key: RemoteKeys.echo) { EchoService() }
    }
}

distributed actor EchoService: Echo {
    typealias ActorSystem = PluginActorSystem

    init() {
        actorSystem = .shared
    }

    distributed func echo(_ message: EchoMessage) -> EchoMessage { message }

    distributed func ping() {}

    distributed func fail(_ text: String) throws {
        throw EchoFailure(text: text)
    }

    distributed func crash() {
        fatalError("fixture-echo crashes as asked")
    }

    distributed func exit(_ status: Int32) {
        Glibc.exit(status)
    }

    distributed func hang() {
        // Blocks its thread: cancellation cannot reach a call that never suspends.
        while true { sleep(3600) }
    }

    distributed func allocate(megabytes: Int) {
        let pageSize = Int(sysconf(Int32(_SC_PAGESIZE)))
        let count = max(0, megabytes) << 20
        guard let memory = malloc(count) else { fatalError("fixture-echo could not take \(megabytes) MiB") }
        // Touched page by page, so that the memory is resident, not only reserved.
        for offset in stride(from: 0, to: count, by: pageSize) {
            memory.storeBytes(of: 1, toByteOffset: offset, as: UInt8.self)
        }
        // Never freed: the memory stays taken until the process ends.
    }

    distributed func spin(seconds: Int) {
        var start = timespec(), now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start)
        repeat {
            clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        } while now.tv_sec - start.tv_sec < seconds
    }

    distributed func pid() -> Int32 { getpid() }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(EchoPlugin.self) }
