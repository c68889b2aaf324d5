import PluginAPI
import SampleContracts
import Synchronization

/// Provides request ids (a new one on every get) and a shared notebook that lives while it is used.
struct NotesPlugin: Plugin {
    static let metadata = PluginMetadata(
        name: "notes", version: "0.9.1",
        provides: [SampleKeys.requestID.storeKey, SampleKeys.notebook.storeKey])

    func registerServices(in registrar: ModuleRegistrar) throws {
        let counter = RequestCounter()
        try registrar.addService(key: SampleKeys.requestID) { "req-\(counter.next())" }
        try registrar.addWeakService(key: SampleKeys.notebook) { MemoryNotebook() }
    }
}

/// Numbers requests, from any thread.
final class RequestCounter: Sendable {
    private let count = Atomic<Int>(0)

    func next() -> Int {
        count.add(1, ordering: .relaxed).newValue
    }
}

/// Notes in memory, safe to use from any thread.
final class MemoryNotebook: Notebook {
    private let notes = Mutex<[String]>([])

    func add(_ note: String) -> Int {
        notes.withLock { notes in
            notes.append(note)
            return notes.count
        }
    }

    func all() -> [String] {
        notes.withLock { $0 }
    }
}

@_cdecl("swift_plugin_entry")
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(NotesPlugin.self) }
