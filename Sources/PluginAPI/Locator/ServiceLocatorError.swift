/// What a ``ServiceLocator`` reports when a call cannot be done. Nothing is changed when one is thrown.
public enum ServiceLocatorError: Error, CustomStringConvertible {
    /// No slot has this key. `closeMatches` lists keys whose slots hold the requested type.
    case serviceNotFound(key: String, requested: String, closeMatches: [String])
    /// The slot exists but was made for another service type.
    case typeMismatch(key: String, registered: String, requested: String)
    /// The slot takes other parameters than the key says (`"none"` for no parameters).
    case wrongParams(key: String, registered: String, requested: String)
    /// The key is taken, and the caller did not ask to replace it.
    case keyAlreadyRegistered(key: String, registeredBy: String?, attemptedBy: String?)
    /// The locator is read-only; `operation` names the refused call.
    case readOnly(operation: String)
    /// The locator was made read-only with `denyClone: true`.
    case cloneDenied
    /// A module failed while registering; none of its slots were kept.
    case moduleFailed(module: String, error: any Error)
    /// A module tried to add a slot through its registrar after its registration had ended.
    case registrationClosed(module: String)
    /// The slot's factory is `async`: get it with ``ServiceResolver/tryServiceAsync(key:)``.
    case asyncService(key: String)
    /// A service needed itself while being made, directly or through others: `path` starts and ends
    /// with the same service. `acrossThreads` when the halves ran on different threads, each waiting
    /// for the other.
    case cycle(path: [ServiceIdentity], acrossThreads: Bool)
    /// An ``Inject`` property found no service: its key, where it is declared (`#fileID`, line),
    /// and what the resolver said.
    case injectionFailed(key: String, file: String, line: UInt, error: any Error)
    /// Making the service for `key` would nest `depth` factories on one thread, more than its stack
    /// allows: refused instead of overflowing the stack.
    case resolutionTooDeep(key: String, depth: Int)
    /// A host asked for a slot of proxies (a service served from another process) for a key that
    /// cannot have one: `reason` says how it is declared (not distributed, with parameters, async).
    case proxySlotRefused(key: String, reason: String)
    /// The proxy made for a distributed key's slot is of type `proxy`, which is not the key's
    /// service type `service`: the get fails, nothing is stored.
    case wrongProxyType(key: String, proxy: String, service: String)
    /// The resolver a host lent to `plugin` reads only the keys that plugin declared it requires and
    /// those it provides, and `key` is neither: declare it in the plugin's `requires`.
    case notGranted(key: String, plugin: String)

    public var description: String {
        switch self {
        case let .serviceNotFound(key, requested, closeMatches):
            let hint = closeMatches.isEmpty
                ? "" : "; slots with that type: \(closeMatches.map { "'\($0)'" }.joined(separator: ", "))"
            // A get by store key alone (`anyService`) requests `Any`: saying so tells nothing.
            let type = requested == "Any" ? "" : " (requested \(requested))"
            return "no service for key '\(key)'\(type)\(hint)"
        case let .typeMismatch(key, registered, requested) where registered == requested:
            return "key '\(key)' holds \(registered), and \(requested) was requested: "
                + Self.twoCopies(of: registered)
        case let .typeMismatch(key, registered, requested):
            return "key '\(key)' holds \(registered), but \(requested) was requested"
        case let .wrongParams(key, registered, requested):
            return "key '\(key)' takes parameters \(registered), but \(requested) were given"
        case let .keyAlreadyRegistered(key, registeredBy, attemptedBy):
            return "key '\(key)' is already registered\(Self.by(registeredBy))"
                + "; refused the second registration\(Self.by(attemptedBy))"
        case let .readOnly(operation):
            return "\(operation) refused: the locator is read-only"
        case .cloneDenied:
            return "clone refused: the locator is read-only and denies cloning"
        case let .moduleFailed(module, error):
            return "module '\(module)' failed, nothing of it was registered: \(error)"
        case let .registrationClosed(module):
            return "module '\(module)' tried to add a slot after its registration had ended"
        case let .asyncService(key):
            return "key '\(key)' holds an async service: get it with `await tryServiceAsync(key:)`"
        case let .cycle(path, acrossThreads):
            let chain = path.map(\.description).joined(separator: " -> ")
            return "dependency cycle\(acrossThreads ? " across threads" : ""): \(chain)"
        case let .injectionFailed(key, file, line, error):
            return "cannot inject '\(key)' into the property declared at \(file):\(line): \(error)"
        case let .resolutionTooDeep(key, depth):
            return "making '\(key)' would nest \(depth) factories on one thread, more than its stack allows: "
                + "refused instead of overflowing it (get the deeper services first, or make the chain shorter)"
        case let .proxySlotRefused(key, reason):
            return "key '\(key)' cannot be served from another process: \(reason)"
        case let .wrongProxyType(key, proxy, service):
            return "the proxy made for key '\(key)' is \(proxy), which is not \(service), the key's service type"
        case let .notGranted(key, plugin):
            return "plugin '\(plugin)' may not get '\(key)': a plugin gets only the keys it declares in `requires` and "
                + "its own; add '\(key)' to its metadata's `requires`"
        }
    }

    /// What two distinct types of the one name `type` mean, and what to change: said wherever a type
    /// check meets them (a get, a plugin's declared key).
    static func twoCopies(of type: String) -> String {
        let name = type.hasPrefix("any ") ? type.dropFirst(4) : Substring(type)
        let module = name.split(separator: ".").first.map(String.init) ?? type
        return "two different types of one name, so module \(module) has two copies in the process: it is linked "
            + "statically into more than one binary (the host, a plugin). Make \(module) a dynamic library "
            + "(a `.dynamic` product of a package of its own) that all of them link"
    }

    private static func by(_ origin: String?) -> String {
        origin.map { " by '\($0)'" } ?? ""
    }
}
