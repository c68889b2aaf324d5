import PluginAPI
import Testing

// MARK: Fixtures

/// Keys of the shared locator below; each is used by one test only, so tests may run in parallel.
private enum InjectKeys {
    static let eager = Keys.widget("inject.global.eager")
    static let lazy = Keys.widget("inject.global.lazy")
    static let missing = Keys.widget("inject.global.missing")
}

/// Counts the calls of the shared locator's factories, one counter per key.
private enum GlobalCounters {
    static let eager = Counter()
    static let lazy = Counter()
}

/// A locator in a global constant, for properties that name it in their attribute.
private let sharedLocator: ServiceLocator = {
    let locator = ServiceLocator()
    // `many`: each holder's injection is one call of the factory.
    try! locator.addService(key: InjectKeys.eager) { Widget(serial: GlobalCounters.eager.increment()) }
    try! locator.addService(key: InjectKeys.lazy) { Widget(serial: GlobalCounters.lazy.increment()) }
    locator.setReadOnly()
    return locator
}()

/// Properties injected through their attribute, eagerly (the default).
private struct EagerHolder {
    @Inject(InjectKeys.eager, via: sharedLocator) var widget: Widget
}

/// Properties injected through their attribute, on first access; one key is never registered.
private struct LazyHolder {
    @Inject(InjectKeys.lazy, via: sharedLocator, .lazy) var widget: Widget
    @Inject(InjectKeys.missing, via: sharedLocator, .lazy) var missing: Widget; static let missingLine: UInt = #line
}

/// The class pattern: properties declared bare, their injections made in `init`.
private final class Job {
    @Inject var widget: Widget
    @Inject var greeter: any Greeter
    let widgetLine: UInt
    let greeterLine: UInt

    init(locator: ServiceLocator, _ mode: InjectMode, greeterKey: ServiceLocatorEasyKey<any Greeter> = Keys.greeter) {
        _widget = Inject(Keys.widget, via: locator, mode); widgetLine = #line
        _greeter = Inject(greeterKey, via: locator, .lazy); greeterLine = #line
    }
}

/// What ``ServiceLocatorError/injectionFailed(key:file:line:error:)`` says, for tests to read.
private struct InjectFailure: CustomStringConvertible {
    let key: String, file: String, line: UInt, error: any Error, description: String
}

/// Expects `body` to throw ``ServiceLocatorError/injectionFailed(key:file:line:error:)``; returns it.
private func expectInjectError<T>(sourceLocation: SourceLocation = #_sourceLocation,
                                  _ body: () throws -> T) -> InjectFailure? {
    let thrown = #expect(throws: ServiceLocatorError.self, sourceLocation: sourceLocation) { _ = try body() }
    guard case let .injectionFailed(key, file, line, error)? = thrown else { return nil }
    return InjectFailure(key: key, file: file, line: line, error: error, description: "\(thrown!)")
}

/// The file ID of this file, as `#fileID` writes it here.
private let thisFile = #fileID

// MARK: Tests

/// The ``Inject`` property wrapper: when it resolves, what it keeps, and what its errors say.
@Suite struct InjectTests {
    @Test func eagerResolvesWhenMade() throws {
        let locator = ServiceLocator()
        let factory = WidgetFactory(mode: .lazy)
        try locator.addService(key: Keys.widget, factory: factory)
        try locator.addService(key: Keys.greeter, service: EnglishGreeter())

        let job = Job(locator: locator, .eager)
        #expect(factory.counter.value == 1, "an eager injection gets its service in init")
        let widget = job.widget
        #expect(widget.serial == 1)
        #expect(factory.counter.value == 1)
    }

    @Test func lazyResolvesOnFirstAccessOnly() throws {
        let locator = ServiceLocator()
        let factory = WidgetFactory(mode: .lazy)
        try locator.addService(key: Keys.widget, factory: factory)

        let job = Job(locator: locator, .lazy)
        #expect(factory.counter.value == 0, "a lazy injection got its service before first access")
        #expect(try job.$widget.get().serial == 1)
        #expect(factory.counter.value == 1)
    }

    /// Even over a `many` slot, a property keeps the first instance it got.
    @Test(arguments: [InjectMode.eager, .lazy])
    func repeatedAccessReturnsTheSameInstance(mode: InjectMode) throws {
        let locator = ServiceLocator()
        let factory = WidgetFactory(mode: .many)
        try locator.addService(key: Keys.widget, factory: factory)

        let job = Job(locator: locator, mode)
        let first = job.widget
        #expect(job.widget === first)
        #expect(try job.$widget.get() === first)
        #expect(factory.counter.value == 1)
        #expect(try locator.tryService(key: Keys.widget) !== first, "the slot itself makes a new one per get")
    }

    @Test func concurrentFirstAccessesAgreeOnOneInstance() throws {
        let locator = ServiceLocator()
        let factory = WidgetFactory(mode: .many, delay: 0.01)
        try locator.addService(key: Keys.widget, factory: factory)
        let job = Job(locator: locator, .lazy)
        let injected = job.$widget
        let got = Collector<Widget>()

        let finished = runOnThreads(8) { _ in
            if let widget = try? injected.get() { got.append(widget) }
        }
        try #require(finished, "the accesses did not finish")
        #expect(got.all.count == 8)
        let first = try #require(got.all.first)
        #expect(got.all.allSatisfy { $0 === first })
        #expect(job.widget === first)
    }

    @Test func errorNamesTheKeyAndTheDeclaringFileAndLine() throws {
        let locator = ServiceLocator()
        try locator.addService(key: Keys.widget, factory: WidgetFactory(mode: .lazy))
        let job = Job(locator: locator, .eager, greeterKey: Keys.greeter("nobody"))

        let error = try #require(expectInjectError { try job.$greeter.get() })
        #expect(error.key == "nobody")
        #expect(error.file == thisFile)
        #expect(error.line == job.greeterLine)
        let cause = try #require(error.error as? ServiceLocatorError)
        #expect(cause.failure == LocatorFailure.serviceNotFound(key: "nobody", requested: TypeNames.greeter,
                                                                closeMatches: []))
        #expect(error.description.contains("'nobody'"))
        #expect(error.description.contains("\(thisFile):\(job.greeterLine)"), "\(error.description)")
        #expect(error.description.contains(cause.description))
    }

    @Test func errorOfAnAttributeNamesItsDeclaration() throws {
        let holder = LazyHolder()
        let error = try #require(expectInjectError { try holder.$missing.get() })
        #expect(error.key == InjectKeys.missing.storeKey)
        #expect(error.file == thisFile)
        #expect(error.line == LazyHolder.missingLine)
        #expect(error.description.contains("'\(InjectKeys.missing.storeKey)'"))
        #expect(error.description.contains("\(thisFile):\(LazyHolder.missingLine)"), "\(error.description)")
        #expect(error.error is ServiceLocatorError)
    }

    @Test func lazyMissingKeyIsResolvedOnceAdded() throws {
        let locator = ServiceLocator()
        let job = Job(locator: locator, .lazy)

        let error = try #require(expectInjectError { try job.$widget.get() })
        #expect(error.key == Keys.widget.storeKey)
        #expect(error.line == job.widgetLine)
        #expect(error.error is ServiceLocatorError)
        // A failure is not kept: the next access asks the locator again.
        #expect(expectInjectError { try job.$widget.get() } != nil)

        let factory = WidgetFactory(mode: .lazy)
        try locator.addService(key: Keys.widget, factory: factory)
        let widget = try job.$widget.get()
        #expect(widget.serial == 1)
        #expect(job.widget === widget)
        #expect(factory.counter.value == 1)
    }

    @Test func eagerFailureIsRetriedOnAccess() throws {
        let locator = ServiceLocator()
        let factory = WidgetFactory(mode: .lazy, failures: 1)
        try locator.addService(key: Keys.widget, factory: factory)

        let job = Job(locator: locator, .eager)
        #expect(factory.counter.value == 1, "the eager attempt ran")
        #expect(try job.$widget.get().serial == 2)
        #expect(factory.counter.value == 2)
    }

    @Test func asyncSlotCannotBeInjected() throws {
        let locator = ServiceLocator()
        try locator.addAsyncService(key: Keys.widget, mode: .lazy) { Widget(serial: 1) }
        let job = Job(locator: locator, .lazy)

        let error = try #require(expectInjectError { try job.$widget.get() })
        let cause = try #require(error.error as? ServiceLocatorError)
        #expect(cause.failure == LocatorFailure.asyncService(key: Keys.widget.storeKey))
    }

    @Test func attributeInjectionThroughAGlobalLocatorIsEager() throws {
        let before = GlobalCounters.eager.value
        let holder = EagerHolder()
        #expect(GlobalCounters.eager.value == before + 1, "the attribute's injection did not run at init")
        let widget = holder.widget
        #expect(widget.serial == before + 1)
        #expect(holder.widget === widget)
        #expect(GlobalCounters.eager.value == before + 1)
    }

    @Test func attributeInjectionThroughAGlobalLocatorCanBeLazy() throws {
        let before = GlobalCounters.lazy.value
        let holder = LazyHolder()
        #expect(GlobalCounters.lazy.value == before, "a lazy attribute got its service at init")
        let widget = holder.widget
        #expect(widget.serial == before + 1)
        #expect(holder.widget === widget)
        #expect(GlobalCounters.lazy.value == before + 1)
    }
}
