@_spi(HostKit) import PluginAPI
import Testing

/// ``ServiceLocator/setReadOnly(denyClone:)`` and ``ServiceLocator/clone()``.
@Suite struct ReadOnlyAndCloneTests {
    /// A locator with a lazy widget (made by `factory`) and a label slot.
    private func filledLocator(_ factory: WidgetFactory = WidgetFactory(mode: .lazy)) throws -> ServiceLocator {
        let locator = ServiceLocator()
        try locator.addService(key: Keys.widget, factory: factory)
        try locator.addService(key: Keys.label, factory: LabelFactory())
        return locator
    }

    // MARK: Read-only

    @Test func everyMutationOfAReadOnlyLocatorIsRefused() throws {
        let locator = try filledLocator()
        locator.setReadOnly()
        #expect(locator.isReadOnly)
        let before = locator.slots
        let refused = WidgetFactory(mode: .atOne)
        let add = LocatorFailure.readOnly(operation: "addService")
        let free = Keys.widget("free")

        expectLocatorError(add) { try locator.addService(key: free, provider: ServiceProvider(Widget(serial: 0))) }
        expectLocatorError(add) { try locator.addService(key: free, factory: refused) }
        expectLocatorError(add) { try locator.addService(key: free, service: Widget(serial: 0)) }
        expectLocatorError(add) { try locator.addLazyService(key: free, refused.make) }
        expectLocatorError(add) { try locator.addService(key: free, mode: .weak, refused.make) }
        expectLocatorError(add) { try locator.addService(key: free, refused.make) }
        expectLocatorError(add) { try locator.addService(key: free, mode: .atOne, refused.make) }
        expectLocatorError(add) { try locator.addService(key: Keys.label("free"), provider: LabelFactory().serviceProvider()) }
        expectLocatorError(add) { try locator.addService(key: Keys.label("free"), factory: LabelFactory()) }
        expectLocatorError(add) { try locator.addService(key: Keys.label("free")) { Label(text: $0, serial: 0) } }
        expectLocatorError(add) { try locator.addService(key: Keys.widget, service: Widget(serial: 0), replace: true) }
        expectLocatorError(add) { try locator.addLazyService(key: Keys.widget, replace: true, refused.make) }
        expectLocatorError(.readOnly(operation: "removeService")) { try locator.removeService(key: Keys.widget) }
        expectLocatorError(.readOnly(operation: "removeService")) { try locator.removeService(key: free) }
        let module = ClosureModule(name: "M") { try $0.addService(key: free, factory: refused) }
        expectLocatorError(.readOnly(operation: "addModule")) { try locator.addModule(module) }

        #expect(locator.slots.map(\.description) == before.map(\.description))
        #expect(refused.counter.value == 0)
    }

    @Test func getsWorkOnAReadOnlyLocator() throws {
        let factory = WidgetFactory(mode: .lazy)
        let locator = try filledLocator(factory)
        locator.setReadOnly()

        let widget = try locator.tryService(key: Keys.widget)
        #expect(try locator.tryService(key: Keys.widget) === widget)
        #expect(try locator.tryService(key: Keys.label, params: "x").text == "x")
        #expect(try locator.tryServiceProvider(key: Keys.widget).getService() === widget)
        expectLocatorError(.serviceNotFound(key: "nope", requested: TypeNames.widget,
                                            closeMatches: [Keys.widget.storeKey])) {
            try locator.tryService(key: Keys.widget("nope"))
        }
        #expect(factory.counter.value == 1)
    }

    /// The read-only table holds every slot of a large locator, finds each by its key (through
    /// collisions and probing), finds none for keys it lacks, and hands all of them to a clone.
    @Test func aLargeReadOnlyLocatorFindsEverySlotAndOnlyThose() throws {
        let locator = ServiceLocator()
        let count = 2_000
        for index in 0..<count {
            try locator.addService(key: ServiceLocatorEasyKey<Int>(name: "large.\(index)"), service: index)
        }
        #expect(locator.slots.count == count)
        locator.setReadOnly(denyClone: false)
        #expect(locator.slots.count == count)
        for index in 0..<count {
            #expect(try locator.tryService(key: ServiceLocatorEasyKey<Int>(name: "large.\(index)")) == index)
        }
        for index in count..<(count + 500) {
            #expect(locator.getService(key: ServiceLocatorEasyKey<Int>(name: "large.\(index)")) == nil)
            #expect(locator.slotInfo(forKey: "large.\(index)") == nil)
        }
        #expect(locator.slots.count == count)
        let clone = try locator.clone()
        #expect(clone.slots.map(\.key) == locator.slots.map(\.key))
        #expect(try clone.removeService(key: ServiceLocatorEasyKey<Int>(name: "large.7")))
        #expect(clone.slots.count == count - 1 && locator.slots.count == count)
        #expect(clone.getService(key: ServiceLocatorEasyKey<Int>(name: "large.7")) == nil)
        #expect(locator.getService(key: ServiceLocatorEasyKey<Int>(name: "large.7")) == 7)
    }

    @Test func settingReadOnlyAgainCanOnlyTightenCloneDenial() throws {
        let locator = try filledLocator()
        locator.setReadOnly(denyClone: false)
        locator.setReadOnly(denyClone: false)
        #expect(locator.isReadOnly && !locator.denyClone)
        #expect(try !locator.clone().isReadOnly)

        locator.setReadOnly(denyClone: true)
        #expect(locator.denyClone, "a later setReadOnly(denyClone: true) turns denial on")
        #expect(throws: ServiceLocatorError.self) { try locator.clone() }
        locator.setReadOnly(denyClone: false)
        #expect(locator.denyClone, "nothing loosens it")
        #expect(try locator.tryService(key: Keys.widget).serial == 1)
    }

    @Test func mutableLocatorIsNotReadOnly() {
        let locator = ServiceLocator()
        #expect(!locator.isReadOnly)
        #expect(!locator.denyClone)
    }

    // MARK: Cloning

    @Test func cloneIsDeniedAfterSetReadOnlyByDefault() throws {
        let locator = try filledLocator()
        locator.setReadOnly()

        #expect(locator.denyClone)
        expectLocatorError(.cloneDenied) { try locator.clone() }
    }

    @Test func cloneOfAReadOnlyLocatorThatAllowsItIsMutable() throws {
        let locator = try filledLocator()
        locator.setReadOnly(denyClone: false)
        let clone = try locator.clone()

        #expect(!clone.isReadOnly)
        #expect(clone.slots.map(\.description) == locator.slots.map(\.description))
        try clone.addService(key: Keys.widget("new"), service: Widget(serial: 5))
        #expect(try clone.removeService(key: Keys.label))
        #expect(try clone.tryService(key: Keys.widget("new")).serial == 5)
        #expect(locator.slotInfo(forKey: "new") == nil)
        #expect(try locator.tryService(key: Keys.label, params: "still").text == "still")
    }

    @Test func cloneAndOriginalChangeIndependently() throws {
        let locator = try filledLocator()
        let clone = try locator.clone()

        try clone.addService(key: Keys.widget("inClone"), service: Widget(serial: 1))
        try locator.addService(key: Keys.widget("inOriginal"), service: Widget(serial: 2))
        try locator.removeService(key: Keys.label)
        try clone.addService(key: Keys.widget, service: Widget(serial: 3), replace: true)

        #expect(locator.slots.map(\.key) == [Keys.widget.storeKey, "inOriginal"])
        #expect(clone.slots.map(\.key) == [Keys.label.storeKey, Keys.widget.storeKey, "inClone"])
        #expect(try clone.tryService(key: Keys.widget).serial == 3)
        #expect(try locator.tryService(key: Keys.widget).serial == 1)
    }

    @Test func singletonMadeBeforeCloningIsShared() throws {
        let factory = WidgetFactory(mode: .lazy)
        let locator = try filledLocator(factory)
        let made = try locator.tryService(key: Keys.widget)
        let clone = try locator.clone()

        #expect(try clone.tryService(key: Keys.widget) === made)
        #expect(factory.counter.value == 1)
    }

    @Test func singletonMadeAfterCloningIsShared() throws {
        let factory = WidgetFactory(mode: .lazy)
        let locator = try filledLocator(factory)
        let clone = try locator.clone()
        let made = try clone.tryService(key: Keys.widget)

        #expect(try locator.tryService(key: Keys.widget) === made)
        #expect(factory.counter.value == 1)
    }

    /// Slots that run nothing when added are built on first use; before it they already answer
    /// every question a listing or a host asks, and asking builds nothing and makes nothing.
    @Test(arguments: [ServiceFactoryMode.lazy, .weak, .many])
    func aSlotNotYetUsedDescribesItselfAndHasNoService(mode: ServiceFactoryMode) throws {
        let factory = WidgetFactory(mode: mode)
        let locator = ServiceLocator()
        try locator.addModule(ClosureModule(name: "Widgets") { registrar in
            try registrar.addService(key: Keys.widget, factory: factory)
        })
        locator.setReadOnly()

        let info = try #require(locator.slotInfo(forKey: Keys.widget.storeKey))
        #expect(info.serviceType == TypeNames.widget)
        #expect(info.mode == mode)
        #expect(info.origin == "Widgets")
        #expect(locator.existingService(forKey: Keys.widget.storeKey) == nil)
        #expect(throws: ServiceLocatorError.self) { try locator.tryService(key: Keys.greeter(Keys.widget.storeKey)) }
        #expect(factory.counter.value == 0)

        let made = try locator.tryService(key: Keys.widget)
        #expect(factory.counter.value == 1)
        let existing = locator.existingService(forKey: Keys.widget.storeKey) as? Widget
        #expect(mode == .many ? existing == nil : existing === made)
    }

    @Test func cloneKeepsTheLogger() throws {
        let logger = RecordingLogger()
        let clone = try ServiceLocator(logger: logger).clone()
        try clone.addService(key: Keys.widget, service: Widget(serial: 0))
        #expect(logger.events.contains { if case .registered = $0 { true } else { false } }, "\(logger.events)")
    }
}
