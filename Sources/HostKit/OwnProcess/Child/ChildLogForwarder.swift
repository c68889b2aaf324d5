@_spi(HostKit) import PluginActors
import PluginAPI
internal import DynamicLoading

/// The log a process of one plugin lends its plugin: each line at or above the level the host gave
/// at start is sent to the host's ``HostLogService``, in the order written, by one task. Without a
/// level (a host that keeps no plugin logs) nothing is sent. At most ``backlog`` lines wait: a
/// plugin that writes faster than the host reads loses the later lines, not memory.
///
/// A step that ends with the host's word (start, stop) waits for ``flush()`` first, so a host that
/// exits right after has every line its plugin wrote before.
final class ChildLogForwarder: PluginLogHandler {
    static let backlog = 4096

    /// How far the lines went: those queued, those the host took, and the flushes waiting for theirs.
    private struct Progress {
        var queued = 0
        var sent = 0
        /// The task sends no more (the host's log could not be reached, or the stream ended).
        var ended = false
        var waiting: [(upTo: Int, continuation: CheckedContinuation<Void, Never>)] = []

        /// The flushes whose lines are all sent (or will never be), taken out.
        mutating func due() -> [CheckedContinuation<Void, Never>] {
            let due = waiting.filter { ended || $0.upTo <= sent }
            waiting.removeAll { ended || $0.upTo <= sent }
            return due.map(\.continuation)
        }
    }

    private let threshold = Lock<PluginLog.Level?>(nil)
    private let progress = Lock(Progress())
    private let lines: AsyncStream<ChildLogLine>.Continuation

    init() {
        let (stream, lines) = AsyncStream.makeStream(of: ChildLogLine.self, bufferingPolicy: .bufferingOldest(Self.backlog))
        self.lines = lines
        Task { [progress] in
            let id = PluginActorID(peer: ChildServices.hostPeer, name: HostLogService.name)
            if let host = try? HostLogService.resolve(id: id, using: .shared) {
                for await line in stream {
                    try? await host.write(line)
                    for flush in progress.withLock({ $0.sent += 1; return $0.due() }) { flush.resume() }
                }
            }
            for flush in progress.withLock({ $0.ended = true; return $0.due() }) { flush.resume() }
        }
    }

    deinit {
        lines.finish()
    }

    /// The level the host keeps the plugin's lines at, or nil for none.
    func setLevel(_ level: PluginLog.Level?) {
        threshold.withLock { $0 = level }
    }

    /// Returns once every line queued before the call has reached the host (or never can).
    func flush() async {
        await withCheckedContinuation { continuation in
            let due = progress.withLock { progress in
                progress.waiting.append((progress.queued, continuation))
                return progress.due()
            }
            for flush in due { flush.resume() }
        }
    }

    func level(of plugin: String) -> PluginLog.Level {
        threshold.withLock { $0 } ?? .critical
    }

    func log(plugin: String, version: String, level: PluginLog.Level, message: String, metadata: [String: String],
             file: String, line: UInt) {
        guard threshold.withLock({ $0 }) != nil else { return }
        // A line written while a call is served carries the trace its call came with (PluginCallContext).
        var metadata = metadata
        if let trace = PluginCallContext.headers["traceparent"], metadata["traceparent"] == nil { metadata["traceparent"] = trace }
        // Counted under the lock that orders it with flush: a line dropped (the backlog full) is not waited for.
        progress.withLock { progress in
            if case .enqueued = lines.yield(ChildLogLine(level: level.rawValue, message: message, metadata: metadata,
                                                         file: file, line: line)) {
                progress.queued += 1
            }
        }
    }
}
