import Foundation
import PluginAPI

/// `fixture-log-flood` 1.0.0: at start, ``writers`` threads at once each write ``linesEach`` lines of
/// ``length`` times its own letter (`a` for the first thread, `b` for the next...) to its own log, and
/// the start hook returns once all are written: lines longer than a pipe takes in one write.
struct LogFloodPlugin: Plugin {
    static let metadata = PluginMetadata(name: "fixture-log-flood", version: "1.0.0", provides: [])
    static let writers = 8
    static let linesEach = 4
    static let length = 200_000

    func registerServices(in registrar: ModuleRegistrar) throws {}

    func start(services: ServiceResolver) async throws {
        let log = services.log
        let written = DispatchGroup()
        for writer in 0..<Self.writers {
            written.enter()
            Thread.detachNewThread {
                let letter = Character(Unicode.Scalar(UInt8(ascii: "a") + UInt8(writer)))
                for _ in 0..<Self.linesEach {
                    log.info(String(repeating: letter, count: Self.length))
                }
                written.leave()
            }
        }
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            written.notify(queue: .global()) { done.resume() }
        }
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(LogFloodPlugin.self) }
