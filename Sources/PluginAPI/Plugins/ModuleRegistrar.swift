/// What a module writes its slots through. Slots are staged here and reach the locator together,
/// after ``Module/registerServices(in:)`` returned; a registrar kept past that refuses every add.
public final class ModuleRegistrar: ServiceRegistry {
    /// The services of the locator the module is being added to, to get and never to change (a
    /// ``ServiceResolver`` has no add, remove, `addModule`, read-only switch or clone). Factories may
    /// capture it to get other services when they run; during registration the module's own slots
    /// are not there yet. In a plugin host it follows the host's current services.
    public let services: ServiceResolver
    /// The locator the slots go to: the registrar's own business, never handed to the module. Let go
    /// at ``close()``: a factory that captured the registrar would otherwise keep the locator alive
    /// from inside one of its own slots, for good (a host waits for a replaced locator to go).
    private var locator: ServiceLocator?
    /// The name of the module being registered.
    let module: String
    private let replace: Bool
    /// The module's slots in the order added. A slot whose building runs its factory is an
    /// ``UnbuiltSlot`` here: ``ServiceLocator/addModule(_:replace:services:check:)`` builds it once the module
    /// is accepted.
    private(set) var staged: [(key: SlotKey, slot: AnySlot, replace: Bool)] = []
    /// How many of the staged slots are unbuilt.
    private(set) var unbuiltCount = 0
    /// Each key's hash is computed once, here, and travels with the slot into the locator.
    private var stagedKeys: Set<SlotKey> = []
    private var isClosed = false

    init(locator: ServiceLocator, services: ServiceResolver, module: String, replace: Bool) {
        self.locator = locator
        self.services = services
        self.module = module
        self.replace = replace
    }

    /// Stages the slot; throws if its key is taken in the locator (unless `replace`) or in this module
    /// (always: `replace` is about slots already in the locator, and a module adding one key twice is
    /// a mistake in the module).
    func stage(_ registration: ServiceRegistration, replace: Bool) throws {
        guard !isClosed, let locator else { throw ServiceLocatorError.registrationClosed(module: module) }
        let key = registration.key
        let slotKey = SlotKey(key)
        // One hash lookup for the check and the insertion; taken back if the locator refuses the key.
        guard stagedKeys.insert(slotKey).inserted else {
            throw ServiceLocatorError.keyAlreadyRegistered(key: key, registeredBy: module, attemptedBy: module)
        }
        let replace = replace || self.replace
        if !replace, let existing = locator.existingSlot(slotKey) {
            stagedKeys.remove(slotKey)
            throw ServiceLocatorError.keyAlreadyRegistered(key: key, registeredBy: existing.origin, attemptedBy: module)
        }
        let slot: AnySlot
        if case let .runsFactory(service, isAsync) = registration.timing {
            slot = UnbuiltSlot(registration, service: service, isAsync: isAsync, origin: module)
            unbuiltCount += 1
        } else {
            slot = locator.makeSlot(registration, origin: module)
        }
        staged.append((slotKey, slot, replace))
    }

    func close() {
        isClosed = true
        locator = nil
        // The slots are the locator's now; a registrar captured by a factory keeps none of them.
        staged = []
    }
}

// Reflection shows the module's name and nothing else: `Mirror` reads private stored properties, and
// a plugin that reflected its registrar would reach the locator the registrar writes to.
extension ModuleRegistrar: CustomReflectable {
    /// A mirror with the module's name only.
    public var customMirror: Mirror { Mirror(self, children: ["module": module]) }
}

