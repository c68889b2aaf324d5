import Dispatch
import Distributed
internal import DynamicLoading
import PluginAPI
@_spi(HostKit) import PluginActors

/// The host's log, as it serves it to the process of one plugin placed in a process of its own
/// (under ``name``): the lines of that plugin's own log (`PluginLog`) reach the host's
/// ``PluginLogs`` as an in-process plugin's do, with the name and version the host read, not any
/// the child claims. A line below the plugin's level now, or of no level, is dropped. Resolved by
/// the child as this very type, as ``ChildControlService`` is by the host.
distributed actor HostLogService {
    typealias ActorSystem = PluginActorSystem

    /// The name the host serves it under, to each of its children.
    static let name = "__log"

    private let plugin: String
    private let version: String
    private let handler: any PluginLogHandler
    /// Where the lines are handed to the handler, in order, on a thread of the queue's: a call from
    /// the child returns at once, so a handler that blocks (a standard error nobody reads) holds no
    /// call of the child's, which would count against the calls a peer may have in flight. The
    /// host's own, which drains it (``PluginProcessServices/drainLog()``).
    private let writer: DispatchQueue
    /// The lines handed to ``writer`` and not yet written: past ``backlog``, later lines are dropped.
    private let waiting = Lock(0)
    static let backlog = 4096
    /// The most of a line's message, and of each metadata key and value, that reaches the handler, in
    /// UTF-8 bytes; and the most metadata entries. A frame may be 64 MiB: without a cut, one line of
    /// a child's would cost the host that much memory, and seconds, to escape and print.
    static let messageLimit = 16 * 1024, fieldLimit = 1024, fieldCount = 64

    init(actorSystem: PluginActorSystem, plugin: String, version: String, handler: any PluginLogHandler, writer: DispatchQueue) {
        self.actorSystem = actorSystem
        self.writer = writer
        self.plugin = plugin
        self.version = version
        self.handler = handler
    }

    /// Writes one line of the plugin's, soon: handed to ``writer``, or dropped past ``backlog``.
    distributed func write(_ line: ChildLogLine) {
        guard let level = PluginLog.Level(rawValue: line.level), level >= handler.level(of: plugin) else { return }
        let taken = waiting.withLock { count in
            guard count < Self.backlog else { return false }
            count += 1
            return true
        }
        guard taken else { return }
        let (plugin, version, handler, waiting) = (plugin, version, handler, waiting)
        let message = Self.cut(line.message, to: Self.messageLimit)
        let metadata = Dictionary(line.metadata.sorted { $0.key < $1.key }.prefix(Self.fieldCount).map {
            (Self.cut($0.key, to: Self.fieldLimit), Self.cut($0.value, to: Self.fieldLimit))
        }) { first, _ in first }
        let file = Self.cut(line.file, to: Self.fieldLimit)
        writer.async {
            handler.log(plugin: plugin, version: version, level: level, message: message, metadata: metadata,
                        file: file, line: line.line)
            waiting.withLock { $0 -= 1 }
        }
    }

    /// `text`, if it is at most `limit` UTF-8 bytes; else its first characters within `limit` and
    /// how many bytes were cut.
    static func cut(_ text: String, to limit: Int) -> String {
        let count = text.utf8.count
        guard count > limit else { return text }
        var kept = text.utf8.prefix(limit)
        // Never into the middle of a character (the character at the edge goes, whole or not).
        while let last = kept.last, last & 0xC0 == 0x80 { kept = kept.dropLast() }
        if let last = kept.last, last >= 0xC0 { kept = kept.dropLast() }
        return String(decoding: kept, as: UTF8.self) + "… (\(count - kept.count) bytes cut)"
    }
}
