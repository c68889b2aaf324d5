import Dispatch
import PluginAPI
import Testing

/// Singletons are made exactly once however many threads ask, and a slow one blocks nobody else.
@Suite struct ConcurrencyTests {
    private let threads = 8

    /// Gets the widget on `threads` threads at once, each keeping what it got until all are done.
    private func raceForWidget(in locator: ServiceLocator) throws -> [Widget] {
        let got = Collector<Widget>()
        let finished = runOnThreads(threads) { _ in
            if let widget = locator.getService(key: Keys.widget) { got.append(widget) }
        }
        try #require(finished, "the racing gets did not finish")
        #expect(got.all.count == threads)
        return got.all
    }

    /// Each racer keeps what it got, so a weak instance stays held until all are done.
    @Test(arguments: [ServiceFactoryMode.lazy, .weak])
    func racingGetsMakeOneInstance(mode: ServiceFactoryMode) throws {
        let locator = ServiceLocator()
        let factory = WidgetFactory(mode: mode, delay: 0.02)
        try locator.addService(key: Keys.widget, factory: factory)

        let widgets = try raceForWidget(in: locator)
        let first = try #require(widgets.first)
        #expect(widgets.allSatisfy { $0 === first })
        #expect(factory.counter.value == 1)
    }

    /// A lazy or weak slot is built on its first use: racing first gets, half of them through a clone
    /// taken before any get, on a read-only locator, still build one slot and make one instance.
    @Test(arguments: [ServiceFactoryMode.lazy, .weak])
    func racingFirstGetsThroughACloneMakeOneInstance(mode: ServiceFactoryMode) throws {
        let locator = ServiceLocator()
        let factory = WidgetFactory(mode: mode, delay: 0.02)
        try locator.addService(key: Keys.widget, factory: factory)
        locator.setReadOnly(denyClone: false)
        let clone = try locator.clone()

        let got = Collector<Widget>()
        let finished = runOnThreads(threads) { index in
            let source = index.isMultiple(of: 2) ? locator : clone
            if let widget = source.getService(key: Keys.widget) { got.append(widget) }
        }
        try #require(finished, "the racing gets did not finish")
        let first = try #require(got.all.first)
        #expect(got.all.count == threads)
        #expect(got.all.allSatisfy { $0 === first })
        #expect(factory.counter.value == 1)
    }

    @Test func racingGetsOfAHeldWeakServiceReturnIt() throws {
        let locator = ServiceLocator()
        let factory = WidgetFactory(mode: .weak)
        try locator.addService(key: Keys.widget, factory: factory)
        let held = try locator.tryService(key: Keys.widget)

        let widgets = try raceForWidget(in: locator)
        #expect(widgets.allSatisfy { $0 === held })
        #expect(factory.counter.value == 1)
    }

    @Test func racingGetsAfterAFailureRetryAndThenShareOneInstance() throws {
        let locator = ServiceLocator()
        let factory = WidgetFactory(mode: .lazy, failures: 1, delay: 0.02)
        try locator.addService(key: Keys.widget, factory: factory)
        #expect(locator.getService(key: Keys.widget) == nil)

        let widgets = try raceForWidget(in: locator)
        #expect(widgets.allSatisfy { $0.serial == 2 })
        #expect(factory.counter.value == 2)
    }

    /// `setReadOnly` moves the slots into the frozen table; a get, a count or a listing that runs
    /// while it does still finds every slot, whichever table it looks in. The rounds run on a thread
    /// of their own, so the test does not hold one of the few threads async tests run on.
    @Test func everyKeyIsFoundWhileAnotherThreadSetsReadOnly() async throws {
        let keys = (0..<8).map { Keys.widget("race.\($0)") }
        let failures = await onAThreadOfItsOwn { () -> [String] in
            let failures = Collector<String>()
            for _ in 0..<2_000 {
                let locator = ServiceLocator()
                for (serial, key) in keys.enumerated() {
                    do {
                        try locator.addService(key: key, service: Widget(serial: serial))
                    } catch {
                        return ["setting up: \(error)"]
                    }
                }
                let finished = runOnThreads(2) { thread in
                    guard thread == 1 else {
                        locator.setReadOnly()
                        return
                    }
                    for _ in 0..<10 {
                        for (serial, key) in keys.enumerated() {
                            do {
                                let widget = try locator.tryService(key: key)
                                if widget.serial != serial { failures.append("\(key.storeKey): widget \(widget.serial)") }
                            } catch {
                                failures.append("\(error)")
                            }
                        }
                        let count = locator.slots.count, listed = locator.slots.count
                        if count != keys.count || listed != keys.count {
                            failures.append("slotCount \(count), slots \(listed)")
                        }
                    }
                }
                if !finished { failures.append("the racing gets did not finish") }
                if !failures.all.isEmpty { break }
            }
            return failures.all
        }
        #expect(failures.isEmpty, "\(failures.prefix(3))")
    }

    @Test func slowLazyFactoryDoesNotBlockAnotherService() throws {
        let locator = ServiceLocator()
        let entered = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let slowKey = Keys.widget("slow")
        try locator.addLazyService(key: slowKey) {
            entered.signal()
            guard wait(release) else { throw SomeError(code: -1) }
            return Widget(serial: 1)
        }
        let fast = WidgetFactory(mode: .lazy)
        try locator.addService(key: Keys.widget("fast"), factory: fast)

        let slowDone = runOnThread { _ = locator.getService(key: slowKey) }
        try #require(wait(entered), "the slow factory never ran")

        let fastGot = Collector<Int>()
        let fastDone = runOnThread {
            if let widget = locator.getService(key: Keys.widget("fast")) { fastGot.append(widget.serial) }
        }
        let fastFinished = wait(fastDone)
        release.signal()
        #expect(fastFinished, "the fast get waited for the slow factory")
        #expect(fastGot.all == [1])
        #expect(wait(slowDone))
        #expect(try locator.tryService(key: slowKey).serial == 1)
    }
}
