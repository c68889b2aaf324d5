import Foundation
import Testing

/// Clients that each ask a server for `paths` in turn, over a keep-alive connection of their own on
/// a thread of their own, without a pause, until ``finish()``; every answer that `accepts` refuses, and
/// every request that fails, is kept.
final class RequestLoad: @unchecked Sendable {
    // @unchecked: the state below is only touched under `lock`.
    private let lock = NSLock()
    private var stopping = false
    private var running = 0
    private var counts: [String: Int] = [:]
    private var failures: [String] = []
    private var failureCount = 0

    /// Starts `clients` clients against `port`. `accepts` says whether an answer to a path is right.
    init(clients: Int, port: UInt16, paths: [String],
         accepts: @escaping @Sendable (_ path: String, KeepAliveClient.Answer) -> Bool) {
        running = clients
        for _ in 0..<clients {
            Thread { [self] in
                let client = KeepAliveClient(port: port)
                while !lock.withLock({ stopping }) {
                    for path in paths {
                        let outcome = Result { try client.get(path) }
                        record(path, outcome, accepted: (try? outcome.get()).map { accepts(path, $0) } ?? false)
                    }
                }
                lock.withLock { running -= 1 }
            }.start()
        }
    }

    private func record(_ path: String, _ outcome: Result<KeepAliveClient.Answer, any Error>, accepted: Bool) {
        lock.withLock {
            switch outcome {
            case let .success(answer) where accepted:
                counts["\(path) \(answer)", default: 0] += 1
            case let .success(answer):
                failureCount += 1
                if failures.count < 20 { failures.append("\(path): \(answer)") }
            case let .failure(error):
                failureCount += 1
                if failures.count < 20 { failures.append("\(path): \(error)") }
            }
        }
    }

    /// How many requests were answered as `accepts` wanted so far.
    var answered: Int { lock.withLock { counts.values.reduce(0, +) } }

    /// Stops the clients, waits for them, and returns how many of each accepted answer came
    /// (`path status body`), how many requests failed, and the first failures.
    func finish() async throws -> (counts: [String: Int], failed: Int, failures: [String]) {
        lock.withLock { stopping = true }
        while lock.withLock({ running }) > 0 {
            try await Task.sleep(for: .milliseconds(10))
        }
        return lock.withLock { (counts, failureCount, failures) }
    }
}

extension BuiltServer {
    /// Copies the built `product` to a new file beside `file`, then renames it over `file`: a new
    /// file, as `install` or `mv` deploys one (the file the server loaded is never written into).
    func deploy(_ product: String, to file: URL) throws {
        let staged = file.path + ".\(UUID().uuidString).new"
        try FileManager.default.copyItem(atPath: builtLibrary(product).path, toPath: staged)
        guard rename(staged, file.path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    /// Returns once `load` has `count` answers accepted (a test fails if not within 30 s).
    func waitForAnswers(from load: RequestLoad, atLeast count: Int) async throws {
        let deadline = ContinuousClock.now + .seconds(30)
        while load.answered < count {
            try #require(ContinuousClock.now < deadline, "\(load.answered) answers, waiting for \(count)")
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
