/// Checks `condition` every `interval` for at most `limit`; returns whether it became true.
public func poll(atMost limit: Duration, every interval: Duration = .milliseconds(20),
                 until condition: () -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + limit
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try await Task.sleep(for: interval)
    }
    return true
}
