import PluginAPI
import Testing

/// A slot remembers its service and parameters types and refuses requests for others.
@Suite struct SlotTypeTests {
    @Test func sameKeyOtherServiceTypeIsTypeMismatch() throws {
        let locator = ServiceLocator()
        try locator.addService(key: Keys.widget("shared"), service: Widget(serial: 1))
        let wrong = Keys.greeter("shared")
        let expected = LocatorFailure.typeMismatch(key: "shared", registered: TypeNames.widget, requested: TypeNames.greeter)

        expectLocatorError(expected) { try locator.tryService(key: wrong) }
        expectLocatorError(expected) { try locator.tryServiceProvider(key: wrong) }
        #expect(locator.getService(key: wrong) == nil)
        #expect((try? locator.tryServiceProvider(key: wrong)) == nil)
        #expect(try locator.tryService(key: Keys.widget("shared")).serial == 1)
    }

    @Test func paramsSlotWithOtherServiceTypeIsTypeMismatch() throws {
        let locator = ServiceLocator()
        try locator.addService(key: Keys.label) { Label(text: $0, serial: 0) }
        let wrong = ServiceLocatorParamsEasyKey<Widget, String>(name: Keys.label.storeKey)

        expectLocatorError(.typeMismatch(key: Keys.label.storeKey, registered: TypeNames.label,
                                         requested: TypeNames.widget)) {
            try locator.tryService(key: wrong, params: "x")
        }
    }

    @Test func otherParamsTypeIsWrongParams() throws {
        let locator = ServiceLocator()
        try locator.addService(key: Keys.label("l")) { Label(text: $0, serial: 0) }
        let wrong = ServiceLocatorParamsEasyKey<Label, Int>(name: "l")
        let expected = LocatorFailure.wrongParams(key: "l", registered: TypeNames.string, requested: TypeNames.int)

        expectLocatorError(expected) { try locator.tryService(key: wrong, params: 3) }
        expectLocatorError(expected) { try locator.tryServiceProvider(key: wrong) }
        #expect((try? locator.tryService(key: wrong, params: 3)) == nil)
        #expect((try? locator.tryServiceProvider(key: wrong)) == nil)
    }

    @Test func paramsKeyOnSlotWithoutParamsIsWrongParams() throws {
        let locator = ServiceLocator()
        try locator.addService(key: ServiceLocatorEasyKey<Label>(name: "l"), service: Label(text: "fixed", serial: 0))
        let paramsKey = Keys.label("l")
        let expected = LocatorFailure.wrongParams(key: "l", registered: "none", requested: TypeNames.string)

        expectLocatorError(expected) { try locator.tryService(key: paramsKey, params: "x") }
        expectLocatorError(expected) { try locator.tryServiceProvider(key: paramsKey) }
    }

    @Test func keyWithoutParamsOnParamsSlotIsWrongParams() throws {
        let locator = ServiceLocator()
        try locator.addService(key: Keys.label("l")) { Label(text: $0, serial: 0) }
        let plainKey = ServiceLocatorEasyKey<Label>(name: "l")
        let expected = LocatorFailure.wrongParams(key: "l", registered: TypeNames.string, requested: "none")

        expectLocatorError(expected) { try locator.tryService(key: plainKey) }
        expectLocatorError(expected) { try locator.tryServiceProvider(key: plainKey) }
    }

    @Test func optionalParamsSlotCanBeGotWithoutParams() throws {
        let locator = ServiceLocator()
        let received = Collector<String?>()
        try locator.addService(key: Keys.optionalLabel) { (text: String?) in
            received.append(text)
            return Label(text: text ?? "<nil>", serial: 0)
        }
        let plainKey = ServiceLocatorEasyKey<Label>(name: Keys.optionalLabel.storeKey)

        #expect(try locator.tryService(key: plainKey).text == "<nil>")
        #expect(try locator.tryService(key: Keys.optionalLabel, params: "given").text == "given")
        // A provider for the key without parameters passes nil on each get, too.
        let provider = try locator.tryServiceProvider(key: plainKey)
        #expect(try provider.getService().text == "<nil>")
        #expect(received.all == [nil, "given", nil])
    }

    /// Without parameters the factory gets plain `nil` whatever the optional's depth, not `.some(nil)`.
    @Test func nestedOptionalParamsGetPlainNil() throws {
        let locator = ServiceLocator()
        let nested = ServiceLocatorParamsEasyKey<String, Int??>(name: "nested")
        try locator.addService(key: nested) { (params: Int??) in String(describing: params) }
        let plain = ServiceLocatorEasyKey<String>(name: "nested")

        #expect(try locator.tryService(key: plain) == "nil")
        #expect(try locator.tryServiceProvider(key: plain).getService() == "nil")
        #expect(try locator.tryService(key: nested, params: .some(nil)) == "Optional(nil)")
        #expect(try locator.tryService(key: nested, params: 3) == "Optional(Optional(3))")
    }

    @Test func missingKeyListsSlotsOfTheSameType() throws {
        let locator = ServiceLocator()
        try locator.addService(key: Keys.widget("w2"), service: Widget(serial: 2))
        try locator.addService(key: Keys.widget("w1"), service: Widget(serial: 1))
        try locator.addService(key: Keys.greeter("g"), service: EnglishGreeter())

        expectLocatorError(.serviceNotFound(key: "nope", requested: TypeNames.widget, closeMatches: ["w1", "w2"])) {
            try locator.tryService(key: Keys.widget("nope"))
        }
        expectLocatorError(.serviceNotFound(key: "nope", requested: TypeNames.label, closeMatches: [])) {
            try locator.tryService(key: Keys.label("nope"), params: "x")
        }
        expectLocatorError(.serviceNotFound(key: "nope", requested: TypeNames.greeter, closeMatches: ["g"])) {
            try locator.tryServiceProvider(key: Keys.greeter("nope"))
        }
        #expect(locator.getService(key: Keys.widget("nope")) == nil)
    }
}
