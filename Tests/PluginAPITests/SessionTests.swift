import Dispatch
@_spi(HostKit) import PluginAPI
import Testing

// MARK: Tests

/// Services bound to a ``ServiceSessionMediator``: made anew, kept and reactivated as sessions change.
@Suite struct SessionTests {
    @Test func lazyServiceIsMadeAnewForEachNewSession() throws {
        let mediator = ServiceSessionMediator(session: session("guest"))
        let factory = ProfileFactory(mode: .lazy)
        let provider = factory.serviceProvider(mediator: mediator)
        #expect(factory.counter.value == 0)

        let guest = try provider.getService()
        #expect(guest.user == "guest")
        #expect(try provider.getService() === guest)
        #expect(factory.counter.value == 1)

        mediator.updateSession(session("ada"))
        #expect(mediator.session == session("ada"))
        #expect(factory.counter.value == 1, "a lazy service is not made before its first get")
        let ada = try provider.getService()
        #expect(ada !== guest)
        #expect(ada.user == "ada")
        #expect(ada.serial == 2)
        #expect(try provider.getService() === ada)
        #expect(factory.counter.value == 2)
        // The default is to drop the old service: nothing was asked to be kept.
        #expect(factory.deactivated.all == [HookCall(serial: 1, user: "guest")])
        #expect(factory.activated.all.isEmpty)
    }

    @Test(arguments: [ServiceFactoryMode.atOne, .lazy, .weak])
    func sameKeyUpdateKeepsTheInstance(mode: ServiceFactoryMode) throws {
        let mediator = ServiceSessionMediator(session: session("ada", version: 1))
        let factory = ProfileFactory(mode: mode)
        let provider = factory.serviceProvider(mediator: mediator)
        let first = try provider.getService()
        #expect(first.version == 1)

        mediator.updateSession(session("ada", version: 2))
        #expect(mediator.session.version == 2, "the session value is replaced")
        #expect(try provider.getService() === first)
        #expect(factory.counter.value == 1)
        #expect(factory.deactivated.all.isEmpty)
        #expect(factory.activated.all.isEmpty)
    }

    /// Deactivate answers true: the old instance waits for its session and comes back with it.
    @Test(arguments: [ServiceFactoryMode.atOne, .lazy, .weak])
    func keptServiceComesBackWithItsSession(mode: ServiceFactoryMode) throws {
        let factory = ProfileFactory(mode: mode, keep: true, reuse: true)
        let (mediator, provider, guest) = try boundToGuest(factory)

        mediator.updateSession(session("ada"))
        #expect(factory.deactivated.all == [HookCall(serial: guest.serial, user: "guest")])
        let ada = try provider.getService()
        #expect(ada !== guest)
        #expect(ada.user == "ada")

        mediator.updateSession(session("guest", version: 7))
        #expect(factory.activated.all == [HookCall(serial: guest.serial, user: "guest")])
        #expect(try provider.getService() === guest, "the kept instance is handed out again")
        #expect(factory.deactivated.all == [HookCall(serial: guest.serial, user: "guest"),
                                             HookCall(serial: ada.serial, user: "ada")])

        mediator.updateSession(session("ada"))
        #expect(try provider.getService() === ada)
        #expect(factory.activated.all == [HookCall(serial: guest.serial, user: "guest"),
                                           HookCall(serial: ada.serial, user: "ada")])
        #expect(factory.deactivated.all.count == 3)
        #expect(factory.counter.value == 2, "reactivation makes nothing")
    }

    @Test(arguments: [ServiceFactoryMode.atOne, .lazy, .weak])
    func refusedActivationMakesANewService(mode: ServiceFactoryMode) throws {
        let factory = ProfileFactory(mode: mode, keep: true, reuse: false)
        let (mediator, provider, guest) = try boundToGuest(factory)

        mediator.updateSession(session("ada"))
        let ada = try provider.getService()
        mediator.updateSession(session("guest"))
        #expect(factory.activated.all == [HookCall(serial: guest.serial, user: "guest")])
        let again = try provider.getService()
        #expect(again !== guest)
        #expect(again.user == "guest")
        #expect(again.serial == ada.serial + 1)
        #expect(factory.counter.value == 3)
    }

    @Test func defaultHooksDropTheOldService() throws {
        let factory = PlainProfileFactory(mode: .lazy)
        let (mediator, provider, guest) = try boundToGuest(factory)

        mediator.updateSession(session("ada"))
        _ = try provider.getService()
        mediator.updateSession(session("guest"))
        let again = try provider.getService()
        #expect(again !== guest)
        #expect(again.serial == 3)
        #expect(factory.counter.value == 3)
    }

    @Test func atOneIsMadeAtOnceOnEachChange() throws {
        let mediator = ServiceSessionMediator(session: session("guest"))
        let factory = ProfileFactory(mode: .atOne)
        let provider = factory.serviceProvider(mediator: mediator)
        #expect(factory.counter.value == 1, "made when the provider is made")

        mediator.updateSession(session("ada"))
        #expect(factory.counter.value == 2, "made by the change, before any get")
        mediator.updateSession(session("bob"))
        #expect(factory.counter.value == 3)
        mediator.updateSession(session("bob", version: 1))
        #expect(factory.counter.value == 3, "the same key makes nothing")

        let bob = try provider.getService()
        #expect(bob.user == "bob")
        #expect(bob.serial == 3)
        #expect(try provider.getService() === bob)
        #expect(factory.counter.value == 3)
    }

    @Test func weakServiceLivesWhileHeldWithinASession() throws {
        let mediator = ServiceSessionMediator(session: session("guest"))
        let factory = ProfileFactory(mode: .weak)
        let provider = factory.serviceProvider(mediator: mediator)

        var held: Profile? = try provider.getService()
        let firstSerial = try #require(held).serial
        #expect(try provider.getService() === held)
        #expect(factory.counter.value == 1)
        weak let released = held
        held = nil
        #expect(released == nil)
        let remade = try provider.getService()
        #expect(remade.serial != firstSerial)
        #expect(remade.user == "guest")
        #expect(factory.counter.value == 2)

        // Held or not, a new session gets its own instance.
        mediator.updateSession(session("ada"))
        let ada = try provider.getService()
        #expect(ada !== remade)
        #expect(ada.user == "ada")
        #expect(try provider.getService() === ada)
        #expect(factory.counter.value == 3)
    }

    @Test func manyMakesOnEveryGetForTheCurrentSessionAndKeepsNothing() throws {
        let mediator = ServiceSessionMediator(session: session("guest"))
        let factory = ProfileFactory(mode: .many, keep: true)
        let provider = factory.serviceProvider(mediator: mediator)

        let first = try provider.getService(), second = try provider.getService()
        #expect(first !== second)
        #expect([first.user, second.user] == ["guest", "guest"])
        #expect(factory.counter.value == 2)

        mediator.updateSession(session("ada"))
        let ada = try provider.getService()
        #expect(ada.user == "ada")
        #expect(ada.serial == 3)
        #expect(factory.deactivated.all.isEmpty, "a many service is never kept, so never deactivated")
        mediator.updateSession(session("guest"))
        #expect(factory.activated.all.isEmpty)
        #expect(try provider.getService().serial == 4)
    }

    @Test(arguments: ServiceFactoryMode.allCases)
    func factoryFailureForOneSessionDoesNotSpoilTheNext(mode: ServiceFactoryMode) throws {
        let mediator = ServiceSessionMediator(session: session("guest"))
        let factory = ProfileFactory(mode: mode, failing: ["broken"])
        let provider = factory.serviceProvider(mediator: mediator)
        #expect(try provider.getService().user == "guest")

        mediator.updateSession(session("broken"))
        let error = try #require(expectObtainError { try provider.getService() })
        let cause = try #require(error.error as? SomeError)
        #expect(cause.code >= 2, "the failure comes from the call made for the broken session")
        #expect(!error.isNested)

        mediator.updateSession(session("ada"))
        let ada = try provider.getService()
        #expect(ada.user == "ada")
        #expect(try provider.getService().user == "ada")
    }

    @Test func locatorSlotFollowsTheSessionAfterSetReadOnly() throws {
        let locator = ServiceLocator()
        let mediator = ServiceSessionMediator(session: session("guest"))
        let factory = ProfileFactory(mode: .lazy, keep: true, failing: ["broken"])
        try locator.addService(key: profileKey, factory: factory, mediator: mediator)
        locator.setReadOnly()

        let info = try #require(locator.slotInfo(forKey: profileKey.storeKey))
        #expect(info.mode == .lazy)
        #expect(!info.isAsync)
        #expect(locator.existingService(forKey: profileKey.storeKey) == nil)

        let guest = try locator.tryService(key: profileKey)
        #expect(guest.user == "guest")
        #expect(locator.existingService(forKey: profileKey.storeKey) as? Profile === guest)
        #expect(try locator.tryService(key: profileKey) === guest)

        mediator.updateSession(session("ada"))
        #expect(locator.existingService(forKey: profileKey.storeKey) == nil, "ada's service is not made yet")
        let ada = try locator.tryService(key: profileKey)
        #expect(ada.user == "ada")
        #expect(try locator.tryServiceProvider(key: profileKey).getService() === ada)

        mediator.updateSession(session("broken"))
        let error = try #require(expectObtainError { try locator.tryService(key: profileKey) })
        #expect(error.service.key == profileKey.storeKey)
        #expect(error.error is SomeError)

        mediator.updateSession(session("guest"))
        #expect(try locator.tryService(key: profileKey) === guest, "kept through the locator slot too")
        #expect(factory.counter.value == 3)
    }

    /// Gets on several threads while another thread keeps switching sessions: no crash, and every
    /// service handed out was made for one of the sessions.
    @Test(arguments: ServiceFactoryMode.allCases)
    func concurrentGetsDuringSessionChanges(mode: ServiceFactoryMode) throws {
        let users = ["u0", "u1", "u2", "u3"]
        let mediator = ServiceSessionMediator(session: session(users[0]))
        // Keep and reuse, to run the kept-service paths too.
        let factory = ProfileFactory(mode: mode, keep: true, reuse: true)
        let provider = factory.serviceProvider(mediator: mediator)
        let raced = getsRacingChanges(readers: 3, changes: 300, change: { round in
            mediator.updateSession(session(users[round % users.count], version: round))
        }, get: {
            do {
                let profile = try provider.getService()
                return users.contains(profile.user) ? nil : "made for \(profile.user)"
            } catch {
                return "\(error)"
            }
        })
        let (problems, gets) = try #require(raced, "the threads did not finish")
        #expect(problems.isEmpty, "\(problems.prefix(5))")
        #expect(gets >= 3 * 500)

        // Once the changes are over, the current session's service is handed out.
        mediator.updateSession(session("final"))
        #expect(try provider.getService().user == "final")
    }

    @Test func mediatorDoesNotKeepReleasedProvidersAlive() throws {
        let mediator = ServiceSessionMediator(session: session("guest"))
        let counter: Counter
        weak var token: Token?
        do {
            let held = Token()
            token = held
            let factory = ProfileFactory(mode: .atOne, token: held)
            counter = factory.counter
            let provider = factory.serviceProvider(mediator: mediator)
            mediator.updateSession(session("ada"))
            #expect(try provider.getService().user == "ada")
            #expect(counter.value == 2)
        }
        #expect(token == nil, "the provider's factory outlived the provider")
        mediator.updateSession(session("bob"))
        #expect(counter.value == 2, "a released provider was told about the change")
    }

    @Test func removedLocatorSlotIsNotKeptAliveByTheMediator() throws {
        let locator = ServiceLocator()
        let mediator = ServiceSessionMediator(session: session("guest"))
        let counter: Counter
        weak var token: Token?
        do {
            let held = Token()
            token = held
            let factory = ProfileFactory(mode: .atOne, token: held)
            counter = factory.counter
            try locator.addService(key: profileKey, factory: factory, mediator: mediator)
        }
        #expect(token != nil, "the slot holds the factory")
        #expect(counter.value == 1)
        #expect(try locator.removeService(key: profileKey))
        #expect(token == nil, "the mediator kept the removed slot's provider alive")
        mediator.updateSession(session("ada"))
        #expect(counter.value == 1)
        #expect(try locator.removeService(key: profileKey) == false)
    }

    /// A provider made while another thread changes the session must end up serving the session
    /// that is current once both are done.
    @Test func providerMadeDuringAChangeServesTheNewSession() throws {
        let mediator = ServiceSessionMediator(session: session("guest"))
        let entered = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let factory = GatedProfileFactory(gatedUser: "guest", entered: entered, release: release)
        let made = Collector<ServiceProvider<Profile>>()
        // The provider's first (atOne) service, for guest, is being made while ada becomes current.
        let building = runOnThread { made.append(factory.serviceProvider(mediator: mediator)) }
        try #require(wait(entered), "the factory never ran")
        let changed = runOnThread { mediator.updateSession(session("ada")) }
        // Today the change finishes at once, while the provider is still being made. A fix may
        // instead make the change wait for the provider: then give up waiting after a moment.
        let changedEarly = changed.wait(timeout: .now() + 1) == .success
        release.signal()
        try #require(wait(building), "the provider was never made")
        try #require(changedEarly || wait(changed), "the change never finished")
        let provider = try #require(made.all.first)

        #expect(mediator.session.user == "ada")
        let served = try provider.getService()
        #expect(served.user == "ada", "the provider kept serving the session it started with")
        #expect(try provider.getService() === served)

        // The next change starts from ada's service, not from the one made for guest in init.
        mediator.updateSession(session("bob"))
        #expect(try provider.getService().user == "bob")
        #expect(factory.deactivated.all == [HookCall(serial: served.serial, user: "ada")])
    }
}

