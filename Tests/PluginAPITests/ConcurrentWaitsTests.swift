import Foundation
import PluginAPI
import Testing

/// Tasks started inside one factory (`async let`, task groups, `Task {}`) may wait for services at
/// the same time. A wait holds back only the services on its own task's path, so none of these is a
/// cycle, and each gets its service. (Each failed with a "cycle" before waits were tracked per task.)
@Suite struct ConcurrentWaitsTests {
    private let keyA = Keys.widget("A"), keyX = Keys.widget("X"), keyY = Keys.widget("Y")

    /// A locator with an async lazy X, serial 1, made 200 ms after it is first asked for.
    private func slowX() throws -> ServiceLocator {
        let locator = ServiceLocator()
        try locator.addAsyncService(key: keyX, mode: .lazy) {
            try await Task.sleep(for: .milliseconds(200))
            return Widget(serial: 1)
        }
        return locator
    }

    /// Two child tasks of A's factory get the same async lazy X: one makes it, the other waits.
    @Test func twoChildTasksGetOneAsyncService() async throws {
        let locator = try slowX()
        let keyA = keyA, keyX = keyX
        try locator.addAsyncService(key: keyA, mode: .lazy) {
            async let first = locator.tryServiceAsync(key: keyX)
            async let second = { () async throws -> Widget in
                try await Task.sleep(for: .milliseconds(50))
                return try await locator.tryServiceAsync(key: keyX)
            }()
            let (one, two) = try await (first, second)
            #expect(one === two)
            return Widget(serial: one.serial + two.serial)
        }
        #expect(try await withTimeout() { try await locator.tryServiceAsync(key: keyA) }.serial == 2)
    }

    /// Eight tasks of a group get the same async lazy X.
    @Test func aTaskGroupGetsOneAsyncService() async throws {
        let locator = try slowX()
        let keyA = keyA, keyX = keyX
        try locator.addAsyncService(key: keyA, mode: .lazy) {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<8 {
                    group.addTask {
                        try await Task.sleep(for: .milliseconds(10 * index))
                        return try await locator.tryServiceAsync(key: keyX).serial
                    }
                }
                return Widget(serial: try await group.reduce(0, +))
            }
        }
        #expect(try await withTimeout() { try await locator.tryServiceAsync(key: keyA) }.serial == 8)
    }

    /// Two child tasks get the same slow synchronous lazy X: one makes it, the other's thread waits.
    @Test func twoChildTasksGetOneSyncService() async throws {
        let locator = ServiceLocator()
        let keyA = keyA, keyX = keyX
        try locator.addLazyService(key: keyX) {
            Thread.sleep(forTimeInterval: 0.3)
            return Widget(serial: 1)
        }
        try locator.addAsyncService(key: keyA, mode: .lazy) {
            async let first = { try locator.tryService(key: keyX) }()
            async let second = { try locator.tryService(key: keyX) }()
            let (one, two) = try await (first, second)
            return Widget(serial: one.serial + two.serial)
        }
        #expect(try await withTimeout() { try await locator.tryServiceAsync(key: keyA) }.serial == 2)
    }

    /// A locator where Y is made after `ySleep`, X after `xSleep` and then needs Y, and A's factory
    /// gets X and Y in two child tasks: a diamond, no cycle. A's service's serial is 21.
    private func diamond(ySleep: Duration, xSleep: Duration) throws -> ServiceLocator {
        let locator = ServiceLocator()
        let keyA = keyA, keyX = keyX, keyY = keyY
        try locator.addAsyncService(key: keyY, mode: .lazy) {
            try await Task.sleep(for: ySleep)
            return Widget(serial: 10)
        }
        try locator.addAsyncService(key: keyX, mode: .lazy) {
            try await Task.sleep(for: xSleep)
            return Widget(serial: try await locator.tryServiceAsync(key: keyY).serial + 1)
        }
        try locator.addAsyncService(key: keyA, mode: .lazy) {
            async let y = locator.tryServiceAsync(key: keyY)
            async let x = locator.tryServiceAsync(key: keyX)
            let (xValue, yValue) = try await (x, y)
            return Widget(serial: xValue.serial + yValue.serial)
        }
        return locator
    }

    /// X's factory waits for Y, which A's other child task is making.
    @Test func aSiblingsServiceIsWaitedForWithoutACycle() async throws {
        let locator = try diamond(ySleep: .milliseconds(300), xSleep: .milliseconds(50))
        let keyA = keyA
        #expect(try await withTimeout() { try await locator.tryServiceAsync(key: keyA) }.serial == 21)
    }

    /// A task of its own, started first, gets X, while A's child tasks get X and Y. Nobody waits for
    /// anything on its own path: both gets succeed.
    @Test func anUnrelatedGetIsNotPartOfAnotherResolutionsWaits() async throws {
        let locator = try diamond(ySleep: .milliseconds(400), xSleep: .milliseconds(150))
        let keyA = keyA, keyX = keyX
        let gettingX = Task { try await withTimeout() { try await locator.tryServiceAsync(key: keyX) } }
        try await Task.sleep(for: .milliseconds(30))
        let gettingA = Task { try await withTimeout() { try await locator.tryServiceAsync(key: keyA) } }
        #expect(try await gettingX.value.serial == 11)
        #expect(try await gettingA.value.serial == 21)
    }
}
