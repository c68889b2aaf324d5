import Foundation

/// The two lines the server writes to stdout as it starts, unbuffered, so that whoever started it can
/// read them at once: `accepting on ADDRESS:PORT` when it is bound (its own routes answer from then
/// on), and `listening on ADDRESS:PORT` once the plugins' routes are installed too, whichever of the
/// two comes last: after that line every route answers, a plugin's as well.
final class ReadinessLines: @unchecked Sendable {
    // @unchecked: `bound` and `installed` are only touched with `lock` held. Not Synchronization's
    // Mutex, which ThreadSanitizer does not see through on Linux (as PluginFiles).
    private let lock = NSLock()
    private var bound: String?
    private var installed = false

    /// The server listens on `address` (`ADDRESS:PORT`).
    func serverBound(at address: String) {
        write("accepting on \(address)")
        let ready = lock.withLock {
            bound = address
            return installed
        }
        if ready { write("listening on \(address)") }
    }

    /// The plugins' routes are installed (the first time: a reload does not announce again).
    func routesInstalled() {
        let address: String? = lock.withLock {
            defer { installed = true }
            return installed ? nil : bound
        }
        if let address { write("listening on \(address)") }
    }

    private func write(_ line: String) {
        FileHandle.standardOutput.write(Data("\(line)\n".utf8))
    }
}
