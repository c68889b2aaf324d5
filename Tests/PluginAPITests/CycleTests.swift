import Dispatch
import PluginAPI
import Testing

/// A service that needs itself, directly or through others, fails with a ``ServiceCycleError``
/// instead of recursing or deadlocking.
@Suite struct CycleTests {
    private let keyA = Keys.widget("A"), keyB = Keys.widget("B")

    /// A locator where A needs B and B needs A, both of `mode`.
    private func cyclicLocator(mode: ServiceFactoryMode) throws -> ServiceLocator {
        let locator = ServiceLocator()
        let keyA = keyA, keyB = keyB
        try locator.addService(key: keyA, mode: mode) { try locator.tryService(key: keyB) }
        try locator.addService(key: keyB, mode: mode) { try locator.tryService(key: keyA) }
        return locator
    }

    @Test(arguments: [ServiceFactoryMode.lazy, .weak, .many])
    func twoServiceCycleOnOneThread(mode: ServiceFactoryMode) throws {
        let locator = try cyclicLocator(mode: mode)

        let (error, cycle) = try expectCycle { try locator.tryService(key: keyA) }
        #expect(cycle.keys == ["A", "B", "A"])
        #expect(!cycle.acrossThreads)
        #expect(error.pathKeys == ["A", "B", "A"])

        let (_, fromB) = try expectCycle { try locator.tryService(key: keyB) }
        #expect(fromB.keys == ["B", "A", "B"])
    }

    /// A cycle through params slots: the same key asked again with the same params.
    @Test func paramsCycle() throws {
        let locator = ServiceLocator()
        let keyA = Keys.label("A"), keyB = Keys.label("B")
        try locator.addService(key: keyA) { try locator.tryService(key: keyB, params: $0) }
        try locator.addService(key: keyB) { try locator.tryService(key: keyA, params: $0) }

        let (error, cycle) = try expectCycle { try locator.tryService(key: keyA, params: "x") }
        #expect(cycle.keys == ["A", "B", "A"])
        #expect(error.pathKeys.first == "A")
    }

    /// A finite recursion over a params slot, `n` getting `n - 1`, is no cycle: a cycle is the same key
    /// with the same params. (It was refused as one: the slot alone named the call.)
    @Test func aFiniteRecursionOverAParamsSlotIsNoCycle() throws {
        let locator = ServiceLocator()
        let factorial = ServiceLocatorParamsEasyKey<Int, Int>(name: "factorial")
        try locator.addService(key: factorial) { (n: Int) in n <= 1 ? 1 : n * (try locator.tryService(key: factorial, params: n - 1)) }
        #expect(try locator.tryService(key: factorial, params: 10) == 3_628_800)
        // Through two slots, and back to the first with other params.
        let keyA = Keys.label("A"), keyB = Keys.label("B")
        try locator.addService(key: keyA) { $0.count >= 4 ? Label(text: $0, serial: 0) : try locator.tryService(key: keyB, params: $0 + "a") }
        try locator.addService(key: keyB) { try locator.tryService(key: keyA, params: $0 + "b") }
        #expect(try locator.tryService(key: keyA, params: "").text == "abab")
    }

    /// Params that are not Hashable cannot be compared: a recursion through them is never called a
    /// cycle, and one that does not end is stopped as too deep, not a crash.
    @Test func aRecursionThatDoesNotEndOverIncomparableParamsIsTooDeep() throws {
        struct Opaque: Sendable { let depth: Int }
        let locator = ServiceLocator()
        let endless = ServiceLocatorParamsEasyKey<Int, Opaque>(name: "endless")
        try locator.addService(key: endless) { (params: Opaque) in try locator.tryService(key: endless, params: Opaque(depth: params.depth + 1)) }
        let failure = try #require(expectObtainError { try locator.tryService(key: endless, params: Opaque(depth: 0)) })
        guard case .resolutionTooDeep(let key, _)? = failure.error as? ServiceLocatorError else {
            Issue.record("expected resolutionTooDeep, got \(failure)")
            return
        }
        #expect(key == "endless")
    }

    @Test(arguments: [ServiceFactoryMode.lazy, .weak, .many])
    func selfCycle(mode: ServiceFactoryMode) throws {
        let locator = ServiceLocator()
        let keyA = keyA
        try locator.addService(key: keyA, mode: mode) { try locator.tryService(key: keyA) }

        let (_, cycle) = try expectCycle { try locator.tryService(key: keyA) }
        #expect(cycle.keys == ["A", "A"])
    }

    /// The error of a cycle found deep down still starts at the service that was asked for.
    @Test func cycleBelowTheRequestedServiceKeepsTheWholePath() throws {
        let locator = try cyclicLocator(mode: .lazy)
        let keyA = keyA
        try locator.addLazyService(key: Keys.widget("X")) { try locator.tryService(key: keyA) }

        let (error, cycle) = try expectCycle { try locator.tryService(key: Keys.widget("X")) }
        #expect(cycle.keys == ["A", "B", "A"])
        #expect(error.pathKeys == ["X", "A", "B", "A"])
        #expect(error.isNested)
    }

    @Test func locatorStillWorksAfterACycle() throws {
        let locator = try cyclicLocator(mode: .lazy)
        let factory = WidgetFactory(mode: .lazy)
        try locator.addService(key: Keys.widget, factory: factory)

        _ = try expectCycle { try locator.tryService(key: keyA) }
        let made = try locator.tryService(key: Keys.widget)
        #expect(try locator.tryService(key: Keys.widget) === made)
        try locator.addService(key: Keys.widget("later"), service: Widget(serial: 9))
        #expect(try locator.tryService(key: Keys.widget("later")).serial == 9)
        // The cycle is still reported, not cached as something else.
        _ = try expectCycle { try locator.tryService(key: keyA) }
    }

    /// Thread 1 makes A and then needs B; thread 2 makes B and then needs A. Each waits for the
    /// other to be inside its factory first, so both are mid-creation when they ask.
    @Test func cycleAcrossThreadsIsReportedNotDeadlocked() throws {
        let locator = ServiceLocator()
        let keyA = keyA, keyB = keyB
        let insideA = DispatchSemaphore(value: 0), insideB = DispatchSemaphore(value: 0)
        let callsA = Counter(), callsB = Counter()
        try locator.addLazyService(key: keyA) {
            if callsA.increment() == 1 {
                insideA.signal()
                guard wait(insideB) else { throw SomeError(code: -1) }
            }
            return try locator.tryService(key: keyB)
        }
        try locator.addLazyService(key: keyB) {
            if callsB.increment() == 1 {
                insideB.signal()
                guard wait(insideA) else { throw SomeError(code: -2) }
            }
            return try locator.tryService(key: keyA)
        }

        let results = Collector<Result<Widget, any Error>>()
        let finished = runOnThreads(2) { index in
            results.append(Result { try locator.tryService(key: index == 0 ? keyA : keyB) })
        }
        #expect(finished, "the two threads deadlocked")
        try #require(finished)

        let errors = results.all.compactMap { result -> ServiceObtainError? in
            guard case let .failure(error) = result else { return nil }
            return error as? ServiceObtainError
        }
        #expect(errors.count == 2, "a cyclic service was made: \(results.all)")
        let cycles = errors.compactMap { Cycle($0.error) }
        #expect(cycles.contains { $0.acrossThreads }, "\(errors)")
        for cycle in cycles where cycle.acrossThreads {
            #expect(Set(cycle.keys) == ["A", "B"])
            #expect(cycle.keys.first == cycle.keys.last)
        }

        // They really are cyclic: on one thread, too.
        let (_, fromA) = try expectCycle { try locator.tryService(key: keyA) }
        #expect(fromA.keys == ["A", "B", "A"])
        #expect(!fromA.acrossThreads)
        let (_, fromB) = try expectCycle { try locator.tryService(key: keyB) }
        #expect(fromB.keys == ["B", "A", "B"])
    }
}
