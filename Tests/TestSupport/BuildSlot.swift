import Foundation
import Testing

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

    /// The time limit of every test that takes the slot (directly or through a build it shares): a
    /// backstop for a hang outside its children, never a bound on its work. Swift Testing counts a
    /// limit from the test's start, wait in the slot's queue included, and every build of the run is
    /// in that queue: on a quiet machine the last one finished at 310 s, on a busy one (load 10 on 2
    /// cores) the queue passed 600 s and failed tests of 10 minutes that pass alone. What bounds a
    /// hung child is its own timeout, counted from when the slot is had (``runBuild``). This covers
    /// the whole queue at load 10 (some six times 310 s: half an hour) after one child hung for its
    /// whole ``packageBuildTimeout``, with as much again to spare.
    public static let testTimeLimit: TimeLimitTrait.Duration = .minutes(100)

    /// The timeout of one package build in the slot (`swift build`, `swift package`, a script that
    /// runs them): a hang bound, counted from when the slot is had. A fresh package that depends on
    /// this repository builds it all, a minute or two on a quiet machine; at load 10 several times that.
    public static let packageBuildTimeout: Duration = .seconds(20 * 60)

    /// The timeout of one compiler run in the slot (`swiftc -typecheck`, `-emit-module` of a file or
    /// two): seconds on a quiet machine; a hang bound with room for load 10 under a sanitizer.
    public static let compilerRunTimeout: Duration = .seconds(10 * 60)
}

/// ``runChild(_:_:in:log:timeout:)`` in the ``BuildSlot``: for `swift build`, `swift package`,
/// `swiftc` and the scripts that run them. `timeout` counts from when the slot is had: a compiler
/// run's by default, ``BuildSlot/packageBuildTimeout`` for a package build. A test that calls it has
/// the time limit ``BuildSlot/testTimeLimit``.
public func runBuild(_ executable: String, _ arguments: [String], in folder: URL, log: URL,
                     timeout: Duration = BuildSlot.compilerRunTimeout) async throws -> (status: Int32, output: String) {
    let asked = ContinuousClock.now
    await BuildSlot.shared.take()
    let had = ContinuousClock.now
    // Each build's share of the run, in the test log: the slot's queue is the test run's critical path.
    defer {
        let name = ([URL(fileURLWithPath: executable).lastPathComponent] + arguments).joined(separator: " ")
        print("build slot: \(name) in \(folder.lastPathComponent): \(seconds(had - asked)) s waiting, \(seconds(.now - had)) s building")
    }
    do {
        let result = try await runChild(executable, arguments, in: folder, log: log, timeout: timeout)
        await BuildSlot.shared.give()
        return result
    } catch {
        await BuildSlot.shared.give()
        throw error
    }
}

/// Whole seconds and a tenth, for a log line.
private func seconds(_ duration: Duration) -> String {
    String(format: "%.1f", Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
}
