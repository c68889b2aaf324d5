import Dispatch
@_spi(HostKit) import PluginAPI
import Testing

/// A signed-in user: sessions with the same user are the same session; `version` changes the value only.
struct UserSession: ServiceSession, Equatable {
    var user: String
    var version = 0
    var key: AnyHashable { user }
}

/// A service bound to a session: it remembers the session value it was made for.
final class Profile: Sendable {
    let user: String
    let version: Int
    let serial: Int
    init(session: UserSession, serial: Int) {
        user = session.user
        version = session.version
        self.serial = serial
    }
}

/// One call of a session hook: which instance, for which session.
struct HookCall: Sendable, Equatable, CustomStringConvertible {
    let serial: Int
    let user: String
    var description: String { "#\(serial)@\(user)" }
}

/// Keeps a factory's captured state observable: it dies only with the provider that holds the factory.
final class Token: Sendable {}

/// Makes profiles numbered by call, records its hooks, and fails for the users in `failing`.
struct ProfileFactory: ServiceSessionFactory {
    let mode: ServiceFactoryMode
    /// What ``deactivateService(_:session:)`` answers.
    var keep = false
    /// What ``activateService(_:session:)`` answers.
    var reuse = true
    var failing: Set<String> = []
    var token: Token?
    let counter = Counter()
    let deactivated = Collector<HookCall>()
    let activated = Collector<HookCall>()

    func makeService(session: UserSession) throws -> Profile {
        let call = counter.increment()
        if failing.contains(session.user) { throw SomeError(code: call) }
        return Profile(session: session, serial: call)
    }

    func deactivateService(_ service: Profile, session: UserSession) -> Bool {
        deactivated.append(HookCall(serial: service.serial, user: session.user))
        return keep
    }

    func activateService(_ service: Profile, session: UserSession) -> Bool {
        activated.append(HookCall(serial: service.serial, user: session.user))
        return reuse
    }
}

/// A factory that leaves both hooks to the protocol's defaults (deactivate: false, activate: true).
struct PlainProfileFactory: ServiceSessionFactory {
    let mode: ServiceFactoryMode
    let counter = Counter()

    func makeService(session: UserSession) throws -> Profile {
        Profile(session: session, serial: counter.increment())
    }
}

let profileKey = ServiceLocatorEasyKey<Profile>(name: "session.profile")

/// A mediator whose session is `guest`, a provider of `factory` bound to it, and the guest's service.
func boundToGuest<Factory: ServiceSessionFactory>(_ factory: Factory) throws
    -> (mediator: ServiceSessionMediator<UserSession>, provider: ServiceProvider<Profile>, guest: Profile)
where Factory.Session == UserSession, Factory.Service == Profile {
    let mediator = ServiceSessionMediator(session: session("guest"))
    let provider = factory.serviceProvider(mediator: mediator)
    return (mediator, provider, try provider.getService())
}

func session(_ user: String, version: Int = 0) -> UserSession {
    UserSession(user: user, version: version)
}

/// An atOne factory whose service for `gatedUser` waits until the test lets it go.
struct GatedProfileFactory: ServiceSessionFactory {
    let gatedUser: String
    let entered: DispatchSemaphore
    let release: DispatchSemaphore
    let counter = Counter()
    let deactivated = Collector<HookCall>()
    var mode: ServiceFactoryMode { .atOne }

    func deactivateService(_ service: Profile, session: UserSession) -> Bool {
        deactivated.append(HookCall(serial: service.serial, user: session.user))
        return false
    }

    func makeService(session: UserSession) throws -> Profile {
        let call = counter.increment()
        if session.user == gatedUser && call == 1 {
            entered.signal()
            guard wait(release) else { throw SomeError(code: -1) }
        }
        return Profile(session: session, serial: call)
    }
}
