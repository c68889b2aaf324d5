import PluginAPI
import RouteContracts
import Synchronization

/// Provides the visit counter other plugins' routes use.
struct CounterPlugin: Plugin {
    static let metadata = PluginMetadata(name: "counter", version: "1.0.0", provides: [RouteKeys.counter])
    static let contractLibraries: [LibraryVersion] = [.routeContracts]

    func registerServices(in registrar: ModuleRegistrar) throws {
        try registrar.addLazyService(key: RouteKeys.counter) { AtomicCounter() }
    }
}

/// Counts with an atomic: any number of requests at once.
final class AtomicCounter: VisitCounter {
    private let count = Atomic<Int>(0)

    func next() -> Int {
        count.add(1, ordering: .relaxed).newValue
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(CounterPlugin.self) }
