import Foundation
import PluginAPI
import Testing

/// A path of sync factories nested deeper than a thread's stack allows is a named error, never a
/// stack overflow; one within it is made as usual.
@Suite struct DepthTests {
    /// A locator whose lazy service `n` gets service `n + 1`, down to `count - 1`.
    private func chain(_ count: Int) throws -> ServiceLocator {
        let locator = ServiceLocator()
        for index in 0..<count {
            let next = Keys.widget("\(index + 1)")
            try locator.addLazyService(key: Keys.widget("\(index)")) {
                index + 1 < count ? Widget(serial: try locator.tryService(key: next).serial + 1) : Widget(serial: 0)
            }
        }
        locator.setReadOnly()
        return locator
    }

    /// Gets the top of the chain on a thread with an 8 MiB stack (what new threads get by default).
    private func top(of locator: ServiceLocator) async -> Result<Int, any Error> {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(returning: Result { try locator.tryService(key: Keys.widget("0")).serial })
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    @Test func aChainDeeperThanTheStackAllowsIsANamedError() async throws {
        let result = await top(of: try chain(20_000))
        guard case let .failure(error) = result, let obtain = error as? ServiceObtainError,
              case let .resolutionTooDeep(key, depth)? = obtain.error as? ServiceLocatorError else {
            Issue.record("expected resolutionTooDeep, got \(result)")
            return
        }
        #expect(depth > 100 && depth < 20_000, "\(depth)")
        #expect(key == "\(depth - 1)")
        #expect(obtain.pathKeys.first == "0")
        // The locator is fine afterwards: the deeper services, gotten first, make the top reachable
        // (in steps of 100, which even AddressSanitizer's larger frames allow).
        let locator = try chain(3000)
        for index in stride(from: 2999, through: 0, by: -100) { _ = try locator.tryService(key: Keys.widget("\(index)")) }
        #expect(try locator.tryService(key: Keys.widget("0")).serial == 2999)
    }

    @Test func aChainWithinTheStackIsMade() async throws {
        let result = await top(of: try chain(200))
        #expect(try result.get() == 199)
    }
}
