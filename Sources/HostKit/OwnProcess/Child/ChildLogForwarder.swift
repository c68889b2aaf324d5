@_spi(HostKit) import PluginActors
import PluginAPI
internal import DynamicLoading

/// The log a process of one plugin lends its plugin: each line at or above the level the host gave
/// at start is sent to the host's ``HostLogService``, in the order written, by one task. Without a
/// level (a host that keeps no plugin logs) nothing is sent. At most ``backlog`` lines wait: a
/// plugin that writes faster than the host reads loses the later lines, not memory.
final class ChildLogForwarder: PluginLogHandler {
    static let backlog = 4096

    private let threshold = Lock<PluginLog.Level?>(nil)
    private let lines: AsyncStream<ChildLogLine>.Continuation

    init() {
        let (stream, lines) = AsyncStream.makeStream(of: ChildLogLine.self, bufferingPolicy: .bufferingOldest(Self.backlog))
        self.lines = lines
        Task {
            let id = PluginActorID(peer: ChildServices.hostPeer, name: HostLogService.name)
            guard let host = try? HostLogService.resolve(id: id, using: .shared) else { return }
            for await line in stream {
                try? await host.write(line)
            }
        }
    }

    deinit {
        lines.finish()
    }

    /// The level the host keeps the plugin's lines at, or nil for none.
    func setLevel(_ level: PluginLog.Level?) {
        threshold.withLock { $0 = level }
    }

    func level(of plugin: String) -> PluginLog.Level {
        threshold.withLock { $0 } ?? .critical
    }

    func log(plugin: String, version: String, level: PluginLog.Level, message: String, metadata: [String: String],
             file: String, line: UInt) {
        guard threshold.withLock({ $0 }) != nil else { return }
        lines.yield(ChildLogLine(level: level.rawValue, message: message, metadata: metadata, file: file, line: line))
    }
}
