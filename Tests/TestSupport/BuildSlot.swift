import Foundation

/// One heavy child at a time (a package build, a compiler run, a script that builds): the machine
/// has 2 cores, and with several builds beside them, tests that wait for their own work with a
/// deadline (PluginAPI's concurrent waits, the probes' timeouts) were starved past it.
public actor BuildSlot {
    /// The one slot of the test run.
    public static let shared = BuildSlot()

    private var taken = false
    private var waiting: [CheckedContinuation<Void, Never>] = []

    /// Waits for the slot (first come, first served).
    func take() async {
        guard taken else {
            taken = true
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Hands the slot to the next waiter, or frees it.
    func give() {
        if waiting.isEmpty {
            taken = false
        } else {
            waiting.removeFirst().resume()
        }
    }
}

/// ``runChild(_:_:in:log:timeout:)`` in the ``BuildSlot``: for `swift build`, `swift package`,
/// `swiftc` and the scripts that run them. `timeout` counts from when the slot is had.
public func runBuild(_ executable: String, _ arguments: [String], in folder: URL, log: URL,
                     timeout: Duration = .seconds(60)) async throws -> (status: Int32, output: String) {
    await BuildSlot.shared.take()
    do {
        let result = try await runChild(executable, arguments, in: folder, log: log, timeout: timeout)
        await BuildSlot.shared.give()
        return result
    } catch {
        await BuildSlot.shared.give()
        throw error
    }
}
