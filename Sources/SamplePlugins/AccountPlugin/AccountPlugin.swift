import PluginAPI
import SampleContracts
import Synchronization

/// Provides the user sessions and an account bound to them: switching users makes the new user's
/// account, and a user who comes back gets their old account again.
struct AccountPlugin: Plugin {
    static let metadata = PluginMetadata(
        name: "account", version: "1.0.0",
        provides: [SampleKeys.sessions, SampleKeys.account])

    static let contractLibraries: [LibraryVersion] = [.sampleContracts]

    func registerServices(in registrar: ModuleRegistrar) throws {
        let sessions = ServiceSessionMediator(session: UserSession(user: "guest"))
        try registrar.addService(key: SampleKeys.sessions, service: sessions)
        try registrar.addService(key: SampleKeys.account, factory: AccountFactory(), mediator: sessions)
    }
}

/// One account per user, kept (deactivated) while another user is signed in.
struct AccountFactory: ServiceSessionFactory {
    let mode: ServiceFactoryMode = .lazy

    func makeService(session: UserSession) throws -> any Account {
        UserAccount(user: session.user)
    }

    func deactivateService(_ service: any Account, session: UserSession) -> Bool {
        true
    }

    func activateService(_ service: any Account, session: UserSession) -> Bool {
        (service as? UserAccount)?.activate()
        return true
    }
}

final class UserAccount: Account {
    let user: String
    private let count = Atomic<Int>(1)

    init(user: String) {
        self.user = user
    }

    var activations: Int { count.load(ordering: .relaxed) }

    func activate() {
        count.add(1, ordering: .relaxed)
    }
}

@c(swift_plugin_entry)
public func swiftPluginEntry() -> UnsafeRawPointer { exportPlugin(AccountPlugin.self) }
