import Foundation
@_spi(HostKit) import PluginAPI
import Testing

/// Makes widgets numbered by call, after awaiting `delay`; the first `failures` calls throw
/// `SomeError(code: call number)`. `ran` is signalled when the first call ends, made or failed.
private struct AsyncWidgetFactory: ServiceAsyncFactory {
    let mode: ServiceFactoryMode
    var failures = 0
    var delay: Duration = .zero
    let counter = Counter()
    let ran = Event()

    func makeService() async throws -> Widget {
        defer { ran.signal() }
        let call = counter.increment()
        if delay > .zero { try await Task.sleep(for: delay) }
        if call <= failures { throw SomeError(code: call) }
        return Widget(serial: call)
    }
}

// MARK: Tests

/// Slots and providers whose factories are `async`.
@Suite struct AsyncServiceTests {
    private let key = Keys.widget("async.widget")

    private func locator(with factory: AsyncWidgetFactory) throws -> ServiceLocator {
        let locator = ServiceLocator()
        try locator.addService(key: key, factory: factory)
        return locator
    }

    @Test func lazyIsMadeOnceFor200ConcurrentTasks() async throws {
        let factory = AsyncWidgetFactory(mode: .lazy, delay: .milliseconds(20))
        let locator = try locator(with: factory)
        locator.setReadOnly()
        #expect(factory.counter.value == 0)

        let key = key
        let widgets = try await withTimeout {
            await withTaskGroup(of: Widget?.self) { group in
                for _ in 0..<200 {
                    group.addTask { try? await locator.tryServiceAsync(key: key) }
                }
                var got: [Widget] = []
                for await widget in group {
                    if let widget { got.append(widget) }
                }
                return got
            }
        }
        #expect(widgets.count == 200)
        let first = try #require(widgets.first)
        #expect(widgets.allSatisfy { $0 === first })
        #expect(factory.counter.value == 1)
        #expect(try await locator.tryServiceAsync(key: key) === first)
        #expect(factory.counter.value == 1)
    }

    @Test func lazyFailureIsReportedThenRetried() async throws {
        let factory = AsyncWidgetFactory(mode: .lazy, failures: 1)
        let locator = try locator(with: factory)
        let key = key

        let error = try #require(await expectObtainErrorAsync { try await withTimeout { try await locator.tryServiceAsync(key: key) } })
        #expect(error.error as? SomeError == SomeError(code: 1))
        #expect(error.service.key == key.storeKey)
        #expect(!error.isNested)
        #expect(locator.existingService(forKey: key.storeKey) == nil)

        let made = try await withTimeout { try await locator.tryServiceAsync(key: key) }
        #expect(made.serial == 2)
        #expect(try await withTimeout { try await locator.tryServiceAsync(key: key) } === made)
        #expect(factory.counter.value == 2)
    }

    @Test func providerOnItsOwnRetriesAndReportsEachWay() async throws {
        let factory = AsyncWidgetFactory(mode: .lazy, failures: 2)
        let provider = factory.serviceProvider()

        let missing = try await withTimeout { await provider.getServiceAsOptional() }
        #expect(missing == nil)
        let thrown = try await withTimeout { () async -> (any Error)? in
            do { _ = try await provider.getService(); return nil } catch { return error }
        }
        let failure = try #require(thrown as? ServiceObtainError)
        #expect(failure.error as? SomeError == SomeError(code: 2))
        #expect(failure.service.key == nil)

        let made = try await withTimeout { try await provider.getService() }
        #expect(made.serial == 3)
        #expect(try await withTimeout { try await provider.getService() } === made)
        #expect(factory.counter.value == 3)
    }

    /// The factory runs without a get: the test waits for it to have run, however long a busy
    /// machine takes to schedule it (it polled for at most 30 s, and once under ThreadSanitizer with
    /// two builds beside it that was too short). A factory that never runs hits the time limit.
    @Test(.timeLimit(.minutes(3)))
    func atOneStartsAtOnceWithoutAnyGet() async throws {
        let factory = AsyncWidgetFactory(mode: .atOne, delay: .milliseconds(5))
        let locator = try locator(with: factory)
        let key = key

        await factory.ran.wait()
        #expect(factory.counter.value == 1)
        let got = try await locator.tryServiceAsync(key: key)
        let existing = try #require(locator.existingService(forKey: key.storeKey) as? Widget)
        #expect(got === existing)
        #expect(got.serial == 1)
        #expect(factory.counter.value == 1, "a get made the atOne service again")
    }

    @Test(.timeLimit(.minutes(3)))
    func atOneFailureIsRemembered() async throws {
        let factory = AsyncWidgetFactory(mode: .atOne, failures: 1)
        let locator = try locator(with: factory)
        let key = key
        await factory.ran.wait()
        #expect(factory.counter.value == 1, "the atOne factory did not run without a get")

        for _ in 0..<3 {
            let error = try #require(await expectObtainErrorAsync {
                try await withTimeout { try await locator.tryServiceAsync(key: key) }
            })
            #expect(error.error as? SomeError == SomeError(code: 1))
        }
        #expect((try? await locator.tryServiceAsync(key: key)) == nil)
        #expect(factory.counter.value == 1, "an atOne failure is not retried")
        #expect(locator.existingService(forKey: key.storeKey) == nil)
    }

    @Test func weakIsKeptWhileHeldAndMadeAgainAfterRelease() async throws {
        let factory = AsyncWidgetFactory(mode: .weak)
        let locator = try locator(with: factory)
        let key = key

        var held: Widget? = try await withTimeout { try await locator.tryServiceAsync(key: key) }
        let firstSerial = try #require(held).serial
        #expect(try await withTimeout { try await locator.tryServiceAsync(key: key) } === held)
        #expect(locator.existingService(forKey: key.storeKey) as? Widget === held)
        #expect(factory.counter.value == 1)

        weak let released = held
        held = nil
        // The task that made it may let go of it a moment after handing it over.
        let gone = await eventually { released == nil }
        #expect(gone, "the weak service outlived its last holder")
        #expect(locator.existingService(forKey: key.storeKey) == nil)

        let remade = try await withTimeout { try await locator.tryServiceAsync(key: key) }
        #expect(remade.serial != firstSerial)
        #expect(factory.counter.value == 2)
    }

    @Test func manyMakesOnEveryGet() async throws {
        let factory = AsyncWidgetFactory(mode: .many)
        let locator = try locator(with: factory)
        let key = key

        var serials: [Int] = []
        for _ in 0..<3 {
            serials.append(try await withTimeout { try await locator.tryServiceAsync(key: key) }.serial)
        }
        #expect(serials == [1, 2, 3])
        #expect(factory.counter.value == 3)
        #expect(locator.existingService(forKey: key.storeKey) == nil)
    }

    @Test(arguments: [ServiceFactoryMode.lazy, .weak, .many])
    func selfCycleFailsInsteadOfHanging(mode: ServiceFactoryMode) async throws {
        let locator = ServiceLocator()
        let keyA = Keys.widget("A")
        let calls = Counter()
        try locator.addAsyncService(key: keyA, mode: mode) {
            calls.increment()
            return try await locator.tryServiceAsync(key: keyA)
        }

        let error = try #require(await expectObtainErrorAsync {
            try await withTimeout { try await locator.tryServiceAsync(key: keyA) }
        })
        let cycle = try #require(Cycle(error.error), "\(error)")
        #expect(cycle.keys == ["A", "A"])
        #expect(calls.value == 1, "the factory recursed")
    }

    @Test(arguments: [ServiceFactoryMode.lazy, .weak, .many])
    func twoServiceCycleFailsInsteadOfHanging(mode: ServiceFactoryMode) async throws {
        let locator = ServiceLocator()
        let keyA = Keys.widget("A"), keyB = Keys.widget("B")
        try locator.addAsyncService(key: keyA, mode: mode) { try await locator.tryServiceAsync(key: keyB) }
        try locator.addAsyncService(key: keyB, mode: mode) { try await locator.tryServiceAsync(key: keyA) }
        locator.setReadOnly()

        let error = try #require(await expectObtainErrorAsync {
            try await withTimeout { try await locator.tryServiceAsync(key: keyA) }
        })
        let cycle = try #require(Cycle(error.error), "\(error)")
        #expect(cycle.keys == ["A", "B", "A"])
        #expect(error.pathKeys == ["A", "B", "A"])

        let fromB = try #require(await expectObtainErrorAsync {
            try await withTimeout { try await locator.tryServiceAsync(key: keyB) }
        })
        #expect(Cycle(fromB.error)?.keys == ["B", "A", "B"])
    }

    /// A's factory waits, in two child tasks, for X and for Y, which other tasks are making. Y is
    /// made and its wait ends; then X's factory asks for A. Waiting for A would close the cycle
    /// A -> X -> A through the child task still waiting for X: it is reported, never a hang, even
    /// though a sibling's wait of the same resolution has ended.
    @Test func aCycleThroughOneOfTwoChildTaskWaitsIsReported() async throws {
        let locator = ServiceLocator()
        let keyA = Keys.widget("A"), keyX = Keys.widget("X"), keyY = Keys.widget("Y")
        let xStarted = Counter(), yStarted = Counter(), openX = Counter(), openY = Counter()
        try locator.addAsyncService(key: keyX, mode: .lazy) {
            xStarted.increment()
            while openX.value == 0 { try await Task.sleep(for: .milliseconds(2)) }
            return try await locator.tryServiceAsync(key: keyA)
        }
        try locator.addAsyncService(key: keyY, mode: .lazy) {
            yStarted.increment()
            while openY.value == 0 { try await Task.sleep(for: .milliseconds(2)) }
            return Widget(serial: 7)
        }
        try locator.addAsyncService(key: keyA, mode: .lazy) {
            async let x = locator.tryServiceAsync(key: keyX)
            async let y = locator.tryServiceAsync(key: keyY)
            _ = try await y
            return try await x
        }
        locator.setReadOnly()

        // X and Y are being made by tasks of their own before A asks for them.
        let gettingX = Task { try await withTimeout() { try await locator.tryServiceAsync(key: keyX) } }
        let gettingY = Task { try await locator.tryServiceAsync(key: keyY) }
        #expect(await eventually { xStarted.value == 1 && yStarted.value == 1 })
        let gettingA = Task { try await withTimeout() { try await locator.tryServiceAsync(key: keyA) } }
        // Both child tasks of A's factory are waiting now; Y's wait ends first.
        try await Task.sleep(for: .milliseconds(200))
        openY.increment()
        #expect(try await gettingY.value.serial == 7)
        try await Task.sleep(for: .milliseconds(100))
        openX.increment()

        for (name, task) in [("A", gettingA), ("X", gettingX)] {
            let error = try #require(await expectObtainErrorAsync { try await task.value }, "get \(name)")
            let cycle = try #require(Cycle(error.error), "get \(name): \(error)")
            #expect(Set(cycle.keys) == ["A", "X"], "get \(name): \(cycle)")
        }
    }

    @Test func syncGetOfAnAsyncSlotIsRefused() async throws {
        let factory = AsyncWidgetFactory(mode: .lazy)
        let locator = try locator(with: factory)

        expectLocatorError(.asyncService(key: key.storeKey)) { try locator.tryService(key: key) }
        #expect(locator.getService(key: key) == nil)
        locator.setReadOnly()
        expectLocatorError(.asyncService(key: key.storeKey)) { try locator.tryService(key: key) }
        expectLocatorError(.typeMismatch(key: key.storeKey, registered: TypeNames.widget,
                                         requested: String(reflecting: Point.self))) {
            try locator.tryService(key: ServiceLocatorEasyKey<Point>(name: key.storeKey))
        }
        #expect(factory.counter.value == 0, "a refused get made the service")
        // A get by store key alone (a host's `resolve`) awaits the async factory instead.
        #expect(try await locator.anyService(storeKey: key.storeKey) as? Widget != nil && factory.counter.value == 1)
    }

    @Test func asyncGetOfASyncSlotReturnsItsService() async throws {
        let locator = ServiceLocator()
        let factory = WidgetFactory(mode: .lazy)
        try locator.addService(key: key, factory: factory)
        let key = key

        let got = try await withTimeout { try await locator.tryServiceAsync(key: key) }
        #expect(try locator.tryService(key: key) === got)
        #expect((try? await locator.tryServiceAsync(key: key)) === got)
        #expect(factory.counter.value == 1)

        // A sync slot has no async provider, even for the right type.
        expectLocatorError(.typeMismatch(key: key.storeKey, registered: TypeNames.widget + " (not async)",
                                         requested: "async " + TypeNames.widget)) {
            try locator.tryServiceAsyncProvider(key: key)
        }
    }

    @Test func asyncGetWithTheWrongTypeIsATypeMismatch() async throws {
        let factory = AsyncWidgetFactory(mode: .lazy)
        let locator = try locator(with: factory)
        let wrongKey = ServiceLocatorEasyKey<Point>(name: key.storeKey)
        let expected = LocatorFailure.typeMismatch(key: key.storeKey, registered: TypeNames.widget,
                                                   requested: String(reflecting: Point.self))

        await expectLocatorErrorAsync(expected) { try await withTimeout { try await locator.tryServiceAsync(key: wrongKey) } }
        expectLocatorError(expected) { try locator.tryServiceAsyncProvider(key: wrongKey) }
        await expectLocatorErrorAsync(.serviceNotFound(key: "nowhere", requested: TypeNames.widget,
                                                       closeMatches: [key.storeKey])) {
            try await withTimeout { try await locator.tryServiceAsync(key: Keys.widget("nowhere")) }
        }
        #expect(factory.counter.value == 0)
    }

    @Test func asyncProviderFromTheLocatorSharesTheSlotsService() async throws {
        let factory = AsyncWidgetFactory(mode: .lazy)
        let locator = try locator(with: factory)
        let key = key

        let provider = try locator.tryServiceAsyncProvider(key: key)
        let viaProvider = try await withTimeout { try await provider.getService() }
        #expect(try await withTimeout { try await locator.tryServiceAsync(key: key) } === viaProvider)
        #expect(factory.counter.value == 1)
    }

    @Test func slotInfoSaysAsync() throws {
        let locator = try locator(with: AsyncWidgetFactory(mode: .lazy))
        try locator.addService(key: Keys.widget("sync"), factory: WidgetFactory(mode: .lazy))

        let info = try #require(locator.slotInfo(forKey: key.storeKey))
        #expect(info.isAsync)
        #expect(info.mode == .lazy)
        #expect(info.serviceType == TypeNames.widget)
        #expect(info.description.contains("async"))
        #expect(info.description.contains("[async lazy]"), "\(info.description)")

        let sync = try #require(locator.slotInfo(forKey: "sync"))
        #expect(!sync.isAsync)
        #expect(!sync.description.contains("async"))
        #expect(locator.slots.map(\.isAsync) == [true, false])
    }

    @Test func existingServiceAppearsAfterTheFirstGet() async throws {
        let factory = AsyncWidgetFactory(mode: .lazy, delay: .milliseconds(2))
        let locator = try locator(with: factory)
        let key = key

        #expect(locator.existingService(forKey: key.storeKey) == nil)
        #expect(factory.counter.value == 0)
        let got = try await withTimeout { try await locator.tryServiceAsync(key: key) }
        let existing = try #require(locator.existingService(forKey: key.storeKey) as? Widget)
        #expect(existing === got)
        #expect(factory.counter.value == 1, "looking at the existing service made one")
    }
}

extension Result {
    /// The error of a failure, or `nil`.
    fileprivate var failureError: Failure? {
        if case let .failure(error) = self { return error }
        return nil
    }
}
