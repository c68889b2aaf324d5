import Foundation
import PluginAPI
import SampleContracts
import Synchronization

/// Provides request ids (a new one on every get), a shared notebook that lives while it is used, a
/// journal file opened at start and closed at shutdown, and an archive that connects asynchronously.
struct NotesPlugin: Plugin {
    static let metadata = PluginMetadata(
        name: "notes", version: "1.0.0",
        provides: [SampleKeys.requestID, SampleKeys.notebook, SampleKeys.journal,
                   SampleKeys.archive.async])

    /// The journal lives as long as the plugin: opened by `start`, closed by `shutdown`.
    let journal = FileJournal(path: FileJournal.defaultPath)

    static let contractLibraries: [LibraryVersion] = [.sampleContracts]

    func registerServices(in registrar: ModuleRegistrar) throws {
        let counter = RequestCounter()
        try registrar.addService(key: SampleKeys.requestID) { "req-\(counter.next())" }
        try registrar.addService(key: SampleKeys.notebook, mode: .weak) { MemoryNotebook() }
        try registrar.addService(key: SampleKeys.journal, service: journal)
        try registrar.addService(key: SampleKeys.archive, factory: ArchiveFactory())
    }

    func start(services: ServiceResolver) async throws {
        try journal.open()
        // What it may read: its own slots (it requires none), not the whole host.
        journal.write("notes started with \(services.slots.count) slots")
    }

    /// The journal itself is closed by the host right after this, as a `ClosableService`.
    func shutdown() async throws {
        journal.write("notes stopped")
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
final class MemoryNotebook: Notebook, @unchecked Sendable {
    // @unchecked: `notes` is only touched under `lock`: an NSLock, as ThreadSanitizer cannot see into a Mutex on Linux.
    private let lock = NSLock()
    private var notes: [String] = []

    func add(_ note: String) -> Int {
        lock.withLock {
            notes.append(note)
            return notes.count
        }
    }

    func all() -> [String] {
        lock.withLock { notes }
    }
}

/// A text file, one line per entry; open only between `open()` and `close()`. A host closes it at
/// shutdown (`ClosableService`).
final class FileJournal: Journal, ClosableService, @unchecked Sendable {
    /// `SAMPLE_JOURNAL` if set, else `swift-plugin-host-journal.log` in the temporary folder.
    static var defaultPath: String {
        if let path = getenv("SAMPLE_JOURNAL") { return String(cString: path) }
        let folder = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        return "\(folder)/swift-plugin-host-journal.log"
    }

    let path: String
    // @unchecked: `file` is only touched under `lock`: an NSLock, as ThreadSanitizer cannot see into a Mutex on Linux.
    private let lock = NSLock()
    /// The open file, or nil.
    private var file: UnsafeMutablePointer<FILE>?

    init(path: String) {
        self.path = path
    }

    struct OpenError: Error, CustomStringConvertible {
        let path: String
        let code: Int32
        var description: String { "cannot open journal \(path): \(String(cString: strerror(code)))" }
    }

    func open() throws {
        try lock.withLock {
            guard file == nil else { return }
            guard let opened = fopen(path, "a") else { throw OpenError(path: path, code: errno) }
            file = opened
        }
    }

    func close() {
        lock.withLock {
            if let file { fclose(file) }
            file = nil
        }
    }

    var isOpen: Bool { lock.withLock { file != nil } }

    @discardableResult
    func write(_ line: String) -> Bool {
        lock.withLock {
            guard let file else { return false }
            fputs(line + "\n", file)
            fflush(file)
            return true
        }
    }
}

/// Connects the archive; the connection takes a moment, so the factory is async.
struct ArchiveFactory: ServiceAsyncFactory {
    let mode: ServiceFactoryMode = .lazy

    func makeService() async throws -> any Archive {
        try await Task.sleep(for: .milliseconds(20))
        return NoteArchive(connection: NoteArchive.connectionCount.add(1, ordering: .relaxed).newValue)
    }
}

/// Texts stored after connecting; the host disconnects it at shutdown, if it was ever connected.
final class NoteArchive: Archive, ClosableService, @unchecked Sendable {
    static let connectionCount = Atomic<Int>(0)
    let connection: Int
    // @unchecked: `texts` is only touched under `lock`: an NSLock, as ThreadSanitizer cannot see into a Mutex on Linux.
    private let lock = NSLock()
    private var texts: [String] = []

    func close() async throws {
        try await Task.sleep(for: .milliseconds(1))  // saying goodbye to the server
    }

    init(connection: Int) {
        self.connection = connection
    }

    var connections: Int { Self.connectionCount.load(ordering: .relaxed) }

    func store(_ text: String) async -> Int {
        lock.withLock {
            texts.append(text)
            return texts.count
        }
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(NotesPlugin.self) }
