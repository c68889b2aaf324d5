import PluginAPI
import Testing

/// A session keyed by user, as in SessionTests (fixtures of a file are private to it).
private struct Account: ServiceSession, Equatable {
    var user: String
    var version = 0
    var key: AnyHashable { user }
}

/// A session type with one key only: clearing its services is the only way to remake them.
private struct Everyone: ServiceSession {
    var key: AnyHashable { "everyone" }
}

/// A service made for one session, numbered by call.
private final class Made: Sendable {
    let user: String
    let serial: Int
    init(user: String, serial: Int) {
        self.user = user
        self.serial = serial
    }
}

/// Makes numbered services, keeps every deactivated one when `keep`, fails for `failing` users while
/// `failures` lasts.
private struct MadeFactory: ServiceSessionFactory {
    let mode: ServiceFactoryMode
    var keep = true
    let counter = Counter()
    let deactivated = Collector<Int>()
    let failures = Counter()
    var failOnce: String?

    func makeService(session: Account) throws -> Made {
        let call = counter.increment()
        if session.user == failOnce && failures.increment() == 1 { throw SomeError(code: call) }
        return Made(user: session.user, serial: call)
    }

    func deactivateService(_ service: Made, session: Account) -> Bool {
        deactivated.append(service.serial)
        return keep
    }
}

private struct EveryoneFactory: ServiceSessionFactory {
    let mode: ServiceFactoryMode
    let counter = Counter()
    func makeService(session: Everyone) throws -> Made { Made(user: "everyone", serial: counter.increment()) }
}

/// A mediator whose session is ada, a factory of `mode` keeping what it deactivates, and a provider.
private func boundToAda(_ mode: ServiceFactoryMode)
    -> (mediator: ServiceSessionMediator<Account>, factory: MadeFactory, provider: ServiceProvider<Made>) {
    let mediator = ServiceSessionMediator(session: Account(user: "ada"))
    let factory = MadeFactory(mode: mode)
    return (mediator, factory, factory.serviceProvider(mediator: mediator))
}

/// ServiceContainerKit 3.0's remake policies, clearing and observing a mediator.
@Suite struct SessionPolicyTests {
    /// `none` reactivates a kept service; `force` makes the new session's anew, though one was kept.
    @Test(arguments: [ServiceFactoryMode.atOne, .lazy, .weak])
    func forceMakesTheNewSessionsServiceAnew(mode: ServiceFactoryMode) throws {
        let (mediator, factory, provider) = boundToAda(mode)
        let ada = try provider.getService()
        mediator.updateSession(Account(user: "bob"))
        let bob = try provider.getService()
        mediator.updateSession(Account(user: "ada"))
        #expect(try provider.getService() === ada, "none: the kept service comes back")
        mediator.updateSession(Account(user: "bob"), remakePolicy: .force)
        let newBob = try provider.getService()
        #expect(newBob !== bob && newBob.user == "bob", "force: made anew, not reactivated")
        #expect(factory.counter.value == 3)
    }

    /// A same-key update with `force` remakes the service for the same session; with `none` it does not.
    @Test(arguments: [ServiceFactoryMode.atOne, .lazy, .weak])
    func forceRemakesTheServiceForTheSameSession(mode: ServiceFactoryMode) throws {
        let (mediator, factory, provider) = boundToAda(mode)
        let first = try provider.getService()
        mediator.updateSession(Account(user: "ada", version: 2))
        #expect(try provider.getService() === first)
        mediator.updateSession(Account(user: "ada", version: 3), remakePolicy: .force)
        let second = try provider.getService()
        #expect(second !== first && second.user == "ada")
        #expect(factory.deactivated.all == [first.serial])
        // The replaced service was not kept for its own session: a change away and back makes anew.
        mediator.updateSession(Account(user: "bob"))
        mediator.updateSession(Account(user: "ada"))
        #expect(try provider.getService() === second)
    }

    /// `clearAll` deactivates the current service, drops every kept one, and makes the new anew.
    @Test(arguments: [ServiceFactoryMode.atOne, .lazy, .weak])
    func clearAllDropsEveryKeptService(mode: ServiceFactoryMode) throws {
        let (mediator, factory, provider) = boundToAda(mode)
        let ada = try provider.getService()
        mediator.updateSession(Account(user: "bob"))
        let bob = try provider.getService()
        mediator.updateSession(Account(user: "ada"), remakePolicy: .clearAll)
        let newAda = try provider.getService()
        #expect(newAda !== ada && newAda.user == "ada")
        #expect(factory.deactivated.all == [ada.serial, bob.serial], "the current service is deactivated first")
        mediator.updateSession(Account(user: "bob"))
        #expect(try provider.getService() !== bob, "bob's kept service was dropped too")
    }

    /// A failed atOne service is made again by a same-key update, even with `none`.
    @Test func aSameKeyUpdateRemakesAFailedAtOneService() throws {
        let mediator = ServiceSessionMediator(session: Account(user: "ada"))
        let factory = MadeFactory(mode: .atOne, failOnce: "ada")
        let provider = factory.serviceProvider(mediator: mediator)
        #expect(throws: ServiceObtainError.self) { try provider.getService() }
        mediator.updateSession(Account(user: "ada"))
        #expect(try provider.getService().user == "ada")
        #expect(factory.counter.value == 2)
    }

    /// `clearServices()` remakes the services of a session type with one key, which no change of
    /// session would.
    @Test(arguments: [ServiceFactoryMode.atOne, .lazy])
    func clearServicesRemakesTheServicesOfAVoidSession(mode: ServiceFactoryMode) throws {
        let mediator = ServiceSessionMediator(session: Everyone())
        let factory = EveryoneFactory(mode: mode)
        let provider = factory.serviceProvider(mediator: mediator)
        let first = try provider.getService()
        mediator.updateSession(Everyone())
        #expect(try provider.getService() === first)
        mediator.clearServices()
        let second = try provider.getService()
        #expect(second !== first)
        #expect(factory.counter.value == 2)
    }

    /// Observers are not called on registration, hear each change as a general step then a make step,
    /// in registration order, and stop when their observation is released or cancelled.
    @Test func observersHearEachChangeInTwoStepsUntilReleased() {
        let mediator = ServiceSessionMediator(session: Account(user: "ada"))
        let calls = Collector<String>()
        var first: ServiceSessionObservation? = mediator.addObserver { session, policy, step in
            calls.append("first \(session.user) \(policy) \(step)")
        }
        let second = mediator.addObserver { session, _, step in calls.append("second \(session.user) \(step)") }
        #expect(calls.all.isEmpty, "nothing is replayed")
        mediator.updateSession(Account(user: "bob"), remakePolicy: .force)
        #expect(calls.all == ["first bob force general", "second bob general", "first bob force make", "second bob make"])
        #expect(first != nil)
        first = nil
        mediator.updateSession(Account(user: "bob"))
        #expect(calls.all.suffix(2) == ["second bob general", "second bob make"])
        second.cancel()
        mediator.clearServices()
        #expect(calls.all.count == 6)
    }

    /// An observer that changes the session from its callback: it deadlocked on the mediator's lock,
    /// which the change it was told of held. Observers are told outside it; the change asked for is
    /// made, and observers hear of it after the one in progress, before the outer call returns.
    @Test func anObserverMayChangeTheSessionFromItsCallback() {
        let mediator = ServiceSessionMediator(session: Account(user: "ada"))
        let heard = Collector<String>()
        let observation = mediator.addObserver { session, _, step in
            heard.append("\(session.user) \(step)")
            if session.user == "bob" && step == .general { mediator.updateSession(Account(user: "carol")) }
        }
        let finished = runOnThreads(1) { _ in mediator.updateSession(Account(user: "bob")) }
        #expect(finished, "the change deadlocked")
        #expect(mediator.session.user == "carol")
        #expect(heard.all == ["bob general", "bob make", "carol general", "carol make"])
        withExtendedLifetime(observation) {}
    }

    /// An atOne service made in the make step finds a lazy service of the same mediator already
    /// switched to the new session.
    @Test func anAtOneFactoryMakingItsServiceSeesTheOthersSwitched() throws {
        let mediator = ServiceSessionMediator(session: Account(user: "ada"))
        let locator = ServiceLocator()
        let lazyKey = ServiceLocatorEasyKey<Made>(name: "lazy")
        let atOneKey = ServiceLocatorEasyKey<String>(name: "atOne")
        struct Reader: ServiceSessionFactory {
            let locator: ServiceLocator
            let lazyKey: ServiceLocatorEasyKey<Made>
            var mode: ServiceFactoryMode { .atOne }
            func makeService(session: Account) throws -> String {
                "\(session.user) sees \(try locator.tryService(key: lazyKey).user)"
            }
        }
        // The atOne slot first: it hears each step before the lazy one does.
        try locator.addService(key: atOneKey, factory: Reader(locator: locator, lazyKey: lazyKey), mediator: mediator)
        try locator.addService(key: lazyKey, factory: MadeFactory(mode: .lazy), mediator: mediator)
        mediator.updateSession(Account(user: "bob"))
        #expect(try locator.tryService(key: atOneKey) == "bob sees bob")
    }

    /// Gets racing changes under every policy always get a service of some session, and never an
    /// error (under ThreadSanitizer: no race in the two-step change).
    @Test(arguments: [ServiceFactoryMode.atOne, .lazy, .weak])
    func getsRacingChangesOfEveryPolicyAlwaysGetAService(mode: ServiceFactoryMode) throws {
        let users = ["u0", "u1", "u2"]
        let policies: [ServiceSessionRemakePolicy] = [.none, .force, .clearAll]
        let mediator = ServiceSessionMediator(session: Account(user: users[0]))
        let provider = MadeFactory(mode: mode).serviceProvider(mediator: mediator)
        let raced = getsRacingChanges(readers: 2, changes: 300, change: { round in
            mediator.updateSession(Account(user: users[round % users.count], version: round),
                                   remakePolicy: policies[(round / 3) % policies.count])
        }, get: {
            do {
                let made = try provider.getService()
                return users.contains(made.user) ? nil : "made for \(made.user)"
            } catch {
                return "\(error)"
            }
        })
        let (problems, _) = try #require(raced, "the threads did not finish")
        #expect(problems.isEmpty, "\(problems.prefix(3))")
    }
}
