import Foundation
import PluginAPI
import SampleContracts
import Synchronization

/// Provides request ids (a new one on every get), a shared notebook that lives while it is used, a
/// journal file opened at start and closed at shutdown, and an archive that connects asynchronously.
struct NotesPlugin: Plugin {
    static let metadata = PluginMetadata(
        name: "notes", version: "1.0.0",
        provides: [SampleKeys.requestID.storeKey, SampleKeys.notebook.storeKey, SampleKeys.journal.storeKey,
                   SampleKeys.archive.storeKey])

    /// The journal lives as long as the plugin: opened by `start`, closed by `shutdown`.
    let journal = FileJournal(path: FileJournal.defaultPath)

    func registerServices(in registrar: ModuleRegistrar) throws {
        let counter = RequestCounter()
        try registrar.addService(key: SampleKeys.requestID) { "req-\(counter.next())" }
        try registrar.addWeakService(key: SampleKeys.notebook) { MemoryNotebook() }
        try registrar.addService(key: SampleKeys.journal, service: journal)
        try registrar.addService(key: SampleKeys.archive, factory: ArchiveFactory())
    }

    func start(locator: ServiceLocator) async throws {
        try journal.open()
        journal.write("notes started with \(locator.slots.count) slots")
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

/// A value behind an `NSLock`. Not `Synchronization.Mutex`: ThreadSanitizer, which the test suite
/// runs under, cannot see through `Mutex` on Linux and reports races that are not there.
final class Locked<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched with `lock` held.
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try lock.withLock { try body(&value) }
    }
}

/// Notes in memory, safe to use from any thread.
final class MemoryNotebook: Notebook {
    private let notes = Locked<[String]>([])

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

/// A text file, one line per entry; open only between `open()` and `close()`. A host closes it at
/// shutdown (`ClosableService`).
final class FileJournal: Journal, ClosableService {
    /// `SAMPLE_JOURNAL` if set, else `swift-plugin-host-journal.log` in the temporary folder.
    static var defaultPath: String {
        if let path = getenv("SAMPLE_JOURNAL") { return String(cString: path) }
        let folder = getenv("TMPDIR").map { String(cString: $0) } ?? "/tmp"
        return "\(folder)/swift-plugin-host-journal.log"
    }

    let path: String
    /// The open file, as an address (a `FILE *` is not `Sendable`; it is only used under the lock).
    private let file = Locked<UInt?>(nil)

    init(path: String) {
        self.path = path
    }

    struct OpenError: Error, CustomStringConvertible {
        let path: String
        let code: Int32
        var description: String { "cannot open journal \(path): \(String(cString: strerror(code)))" }
    }

    func open() throws {
        try file.withLock { file in
            guard file == nil else { return }
            guard let opened = fopen(path, "a") else { throw OpenError(path: path, code: errno) }
            file = UInt(bitPattern: opened)
        }
    }

    func close() {
        file.withLock { file in
            if let open = file.flatMap(UnsafeMutablePointer<FILE>.init(bitPattern:)) { fclose(open) }
            file = nil
        }
    }

    var isOpen: Bool { file.withLock { $0 != nil } }

    @discardableResult
    func write(_ line: String) -> Bool {
        file.withLock { file in
            guard let open = file.flatMap(UnsafeMutablePointer<FILE>.init(bitPattern:)) else { return false }
            fputs(line + "\n", open)
            fflush(open)
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
final class NoteArchive: Archive, ClosableService {
    static let connectionCount = Atomic<Int>(0)
    let connection: Int
    private let texts = Locked<[String]>([])

    func close() async throws {
        try await Task.sleep(for: .milliseconds(1))  // saying goodbye to the server
    }

    init(connection: Int) {
        self.connection = connection
    }

    var connections: Int { Self.connectionCount.load(ordering: .relaxed) }

    func store(_ text: String) async -> Int {
        texts.withLock { texts in
            texts.append(text)
            return texts.count
        }
    }
}

@_cdecl("swift_plugin_entry")
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(NotesPlugin.self) }
