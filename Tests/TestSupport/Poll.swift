import Foundation

/// Checks `condition` every `interval` until it holds or the ``PollBound`` of `limit` is passed;
/// returns whether it became true.
public func poll(atMost limit: Duration, every interval: Duration = .milliseconds(20),
                 until condition: () -> Bool) async throws -> Bool {
    var bound = PollBound(limit, every: interval)
    while !condition() {
        guard !bound.passed() else { return false }
        try await Task.sleep(for: interval)
    }
    return true
}

/// Runs `body` on a thread of its own and awaits its result: blocking work (a plugin load that waits
/// for probe children) that would otherwise hold a thread of the small pool async tests run on.
public func onAThreadOfItsOwn<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}

/// Work started on a thread of its own at once (not when a task of the busy cooperative pool gets to
/// it), whose result a test awaits later.
public final class StartedThread<T: Sendable>: @unchecked Sendable {
    // @unchecked: `result` is only touched with `condition` locked.
    private let condition = NSCondition()
    private var result: T?

    public init(_ body: @escaping @Sendable () -> T) {
        Thread { [self] in
            let value = body()
            condition.withLock {
                result = value
                condition.broadcast()
            }
        }.start()
    }

    /// The result, once the work is done.
    public var value: T {
        get async {
            await onAThreadOfItsOwn { [self] in
                condition.withLock {
                    while true {
                        if let result { return result }
                        condition.wait()
                    }
                }
            }
        }
    }
}
