import PluginAPI
import Testing

/// How each ``ServiceFactoryMode`` keeps what its factory makes, seen through a locator.
@Suite struct ModeTests {
    /// A locator with one widget slot served by `factory`.
    private func locator(with factory: WidgetFactory) throws -> ServiceLocator {
        let locator = ServiceLocator()
        try locator.addService(key: Keys.widget, factory: factory)
        return locator
    }

    @Test func atOneIsMadeWhenAdded() throws {
        let factory = WidgetFactory(mode: .atOne)
        let locator = try locator(with: factory)
        #expect(factory.counter.value == 1)

        let first = try locator.tryService(key: Keys.widget)
        #expect(try locator.tryService(key: Keys.widget) === first)
        #expect(factory.counter.value == 1)
    }

    @Test func atOneFailureIsRemembered() throws {
        let factory = WidgetFactory(mode: .atOne, failures: 1)
        let locator = try locator(with: factory)

        for _ in 0..<3 {
            let error = try #require(expectObtainError { try locator.tryService(key: Keys.widget) })
            #expect(error.error as? SomeError == SomeError(code: 1))
            #expect(!error.isNested)
        }
        #expect(factory.counter.value == 1)
    }

    @Test func lazyIsMadeOnFirstGetOnce() throws {
        let factory = WidgetFactory(mode: .lazy)
        let locator = try locator(with: factory)
        #expect(factory.counter.value == 0)

        let first = try locator.tryService(key: Keys.widget)
        #expect(factory.counter.value == 1)
        #expect(try locator.tryService(key: Keys.widget) === first)
        #expect(factory.counter.value == 1)
    }

    @Test func lazyFailureIsRetriedUntilSuccess() throws {
        let factory = WidgetFactory(mode: .lazy, failures: 2)
        let locator = try locator(with: factory)

        for call in 1...2 {
            let error = try #require(expectObtainError { try locator.tryService(key: Keys.widget) })
            #expect(error.error as? SomeError == SomeError(code: call))
            #expect(factory.counter.value == call)
        }
        let made = try locator.tryService(key: Keys.widget)
        #expect(made.serial == 3)
        #expect(try locator.tryService(key: Keys.widget) === made)
        #expect(factory.counter.value == 3)
    }

    @Test func weakIsKeptWhileHeldAndMadeAgainAfterward() throws {
        let factory = WidgetFactory(mode: .weak)
        let locator = try locator(with: factory)

        var held: Widget? = try locator.tryService(key: Keys.widget)
        #expect(held?.serial == 1)
        #expect(try locator.tryService(key: Keys.widget) === held)
        #expect(factory.counter.value == 1)

        held = nil
        #expect(held == nil)
        #expect(try locator.tryService(key: Keys.widget).serial == 2)
        #expect(factory.counter.value == 2)
    }

    @Test func weakExistentialOfAClassIsKeptWhileHeld() throws {
        let locator = ServiceLocator()
        let counter = Counter()
        try locator.addService(key: Keys.greeter, mode: .weak) {
            counter.increment()
            return EnglishGreeter()
        }

        let held = try locator.tryService(key: Keys.greeter)
        let again = try locator.tryService(key: Keys.greeter)
        #expect(held as? EnglishGreeter === again as? EnglishGreeter)
        #expect(counter.value == 1)
    }

    @Test func weakValueIsMadeOnEveryGet() throws {
        let locator = ServiceLocator()
        let factory = PointFactory(mode: .weak)
        try locator.addService(key: Keys.point, factory: factory)

        let first = try locator.tryService(key: Keys.point)
        let second = try locator.tryService(key: Keys.point)
        #expect([first.serial, second.serial] == [1, 2])
        #expect(factory.counter.value == 2)
    }

    @Test func weakFailureIsRetried() throws {
        let factory = WidgetFactory(mode: .weak, failures: 1)
        let locator = try locator(with: factory)

        #expect(locator.getService(key: Keys.widget) == nil)
        #expect(try locator.tryService(key: Keys.widget).serial == 2)
    }

    @Test func manyIsMadeOnEveryGet() throws {
        let factory = WidgetFactory(mode: .many)
        let locator = try locator(with: factory)
        #expect(factory.counter.value == 0)

        let serials = try (0..<3).map { _ in try locator.tryService(key: Keys.widget).serial }
        #expect(serials == [1, 2, 3])
    }

    /// A lazy slot lets go of its factory, and what the factory captured, once its service is made:
    /// a factory that captured the locator would otherwise keep it alive through its own slots.
    @Test func lazyLetsGoOfWhatItsFactoryCapturedOnceMade() throws {
        final class Captured: Sendable {}
        weak var captured: Captured?
        let locator = ServiceLocator()
        do {
            let held = Captured()
            captured = held
            try locator.addLazyService(key: Keys.widget) { [held] in
                withExtendedLifetime(held) { Widget(serial: 1) }
            }
        }
        locator.setReadOnly()
        #expect(captured != nil, "the factory was let go of before it ran")
        #expect(try locator.tryService(key: Keys.widget).serial == 1)
        #expect(captured == nil, "the made lazy slot still holds its factory")
    }
}
