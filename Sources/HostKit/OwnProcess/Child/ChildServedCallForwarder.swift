internal import DynamicLoading
@_spi(HostKit) import PluginActors

/// Tells the host the calls its process served (``HostServedCallService``), once the host asked
/// for them at register: each as the actor system timed it, sent in batches by one task, in order.
/// At most ``backlog`` wait: a host that reads slower than the plugin serves loses the later ones.
final class ChildServedCallForwarder: Sendable {
    static let backlog = 4096
    /// The most calls sent in one message.
    static let batch = 128

    private let waiting = Lock<[ChildServedCall]>([])
    private let wakeUps: AsyncStream<Void>.Continuation

    init() {
        let (stream, wakeUps) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        self.wakeUps = wakeUps
        // Detached: made during the host's register call, it must not send that call's headers on.
        Task.detached { [waiting] in
            let id = PluginActorID(peer: ChildServices.hostPeer, name: HostServedCallService.name)
            guard let host = try? HostServedCallService.resolve(id: id, using: .shared) else { return }
            for await _ in stream {
                var calls = waiting.withLock { calls in
                    defer { calls = [] }
                    return calls
                }
                // A call's texts are at most a few KiB (its headers' limits, a failure cut as its reply
                // is): batches of this many stay far below a frame's limit.
                while !calls.isEmpty {
                    let batch = Array(calls.prefix(Self.batch))
                    calls.removeFirst(batch.count)
                    try? await host.record(batch)
                }
            }
        }
    }

    deinit {
        wakeUps.finish()
    }

    /// From now on, every call the process's services serve is timed and sent.
    func start() {
        PluginActorSystem.shared.observeServedCalls { [weak self] call in self?.send(call) }
    }

    private func send(_ call: PluginActorSystem.ServedCall) {
        let taken = waiting.withLock { calls in
            guard calls.count < Self.backlog else { return false }
            calls.append(ChildServedCall(service: call.service, method: call.method, start: call.start, end: call.end,
                                         headers: call.headers, failure: call.failure))
            return true
        }
        if taken { wakeUps.yield() }
    }
}
