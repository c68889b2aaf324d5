import Foundation
@_spi(HostKit) import PluginAPI
import Testing

/// Something that happens once, for a test to await instead of polling against a clock: on a busy
/// machine a task may wait its turn for longer than any bound that is not the point of the test.
/// A test that awaits one has a `.timeLimit`, which ends it if the event never comes.
final class Event: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream()
    }

    /// It happened; later calls do nothing.
    func signal() {
        continuation.yield()
        continuation.finish()
    }

    /// Returns once it happened (at once if it did before). One waiter only.
    func wait() async {
        for await _ in stream { return }
    }
}
