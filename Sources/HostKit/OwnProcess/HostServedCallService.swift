internal import DynamicLoading
import Dispatch
import Distributed
@_spi(HostKit) import PluginActors

/// The calls one plugin's process served, as the host takes them from it (under ``name``) for its
/// ``PluginServedCallRecorder``: only a host that has one serves it, and only then does the child
/// time its calls. What the child sends is its word, held to what it could be: a call of a service
/// the plugin does not provide is dropped, and so is one that ends before it began, or that began
/// before this service was made or ends after now (a second's slack for the clock); each text is cut
/// as its log lines are (``HostLogService``) to 1 KiB, the headers to 16.
distributed actor HostServedCallService {
    typealias ActorSystem = PluginActorSystem

    /// The name the host serves it under, to each of its children.
    static let name = "__calls"
    /// The calls handed to the writer and not yet recorded: past it, later calls are dropped.
    static let backlog = 4096
    static let fieldLimit = 1024, headerCount = 16

    private let plugin: String
    private let version: String
    /// The store keys the plugin provides: the only services whose calls it may tell.
    private let provides: Set<String>
    /// When this service was made (nanoseconds since 1970): no call it tells began before.
    private let since: UInt64
    private let recorder: any PluginServedCallRecorder
    /// Where the calls are handed to the recorder, in order: a call from the child returns at once.
    private let writer: DispatchQueue
    private let waiting = Lock(0)

    init(actorSystem: PluginActorSystem, plugin: String, version: String, provides: Set<String>,
         recorder: any PluginServedCallRecorder, writer: DispatchQueue) {
        self.actorSystem = actorSystem
        self.plugin = plugin
        self.version = version
        self.provides = provides
        since = PluginActorSystem.wallClockNow() - Self.slack
        self.recorder = recorder
        self.writer = writer
    }

    /// Records calls of the plugin's, soon: each handed to ``writer``, or dropped past ``backlog``.
    distributed func record(_ calls: [ChildServedCall]) {
        let latest = PluginActorSystem.wallClockNow() + Self.slack
        for call in calls.prefix(Self.backlog)
        where provides.contains(call.service) && since <= call.start && call.start <= call.end && call.end <= latest {
            let taken = waiting.withLock { count in
                guard count < Self.backlog else { return false }
                count += 1
                return true
            }
            guard taken else { return }
            let served = served(call)
            let (recorder, waiting) = (recorder, waiting)
            writer.async {
                recorder.record(served)
                waiting.withLock { $0 -= 1 }
            }
        }
    }

    /// A clock's slack, in nanoseconds.
    static let slack: UInt64 = 1_000_000_000


    /// `call` as the recorder gets it: the plugin's name and version the host's, the rest cut.
    private func served(_ call: ChildServedCall) -> PluginServedCall {
        let cut = { (text: String) in HostLogService.cut(text, to: Self.fieldLimit) }
        let headers = Dictionary(call.headers.sorted { $0.key < $1.key }.prefix(Self.headerCount).map { (cut($0.key), cut($0.value)) }) { first, _ in first }
        return PluginServedCall(plugin: plugin, version: version, service: cut(call.service), method: cut(call.method),
                                start: call.start, end: call.end, headers: headers, failure: call.failure.map(cut))
    }
}
