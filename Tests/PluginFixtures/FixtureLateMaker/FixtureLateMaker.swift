import Foundation
import PluginAPI

/// Provides `fixture.late.maker`: a function that takes work to run in this plugin's shutdown hook.
/// The plugin that requires it (FixtureLateClosable) shuts down before it and hands it work that
/// makes that plugin's lazy closable for the first time: after its own services were closed.
struct LateMakerPlugin: Plugin {
    static let maker = ServiceLocatorEasyKey<@Sendable (@escaping @Sendable () -> Void) -> Void>(name: "fixture.late.maker")
    static let metadata = PluginMetadata(name: "fixture-late-maker", version: "1.0.0", provides: [maker])
    let work = ShutdownWork()

    func registerServices(in registrar: ModuleRegistrar) throws {
        let work = work
        try registrar.addService(key: Self.maker, service: { @Sendable job in work.add(job) })
    }

    func shutdown() async throws {
        work.runAll()
    }
}

/// The work handed to the maker, run by its shutdown hook.
final class ShutdownWork: @unchecked Sendable {
    // @unchecked: `jobs` is only touched under `lock`.
    private let lock = NSLock()
    private var jobs: [@Sendable () -> Void] = []

    func add(_ job: @escaping @Sendable () -> Void) { lock.withLock { jobs.append(job) } }
    func runAll() { for job in lock.withLock({ jobs }) { job() } }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(LateMakerPlugin.self) }
