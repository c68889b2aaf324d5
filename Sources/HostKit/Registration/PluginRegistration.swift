@_spi(HostKit) import PluginAPI

/// Puts one plugin's services into a locator.
enum PluginRegistration {
    /// Registers one plugin's module, all or nothing, holding it to the keys and types it declared,
    /// under its metadata name. Its registrar lends it a resolver of `source` (what the module may
    /// get, never change) that reads only the keys it declared: those it requires and its own
    /// (PH-0031), whose log's lines `logs` receives (none: it writes nowhere), and whose settings are
    /// the plugin's own of `settings`, new for this registration (none: unset). Returns the module
    /// and that resolver, which its start hook gets too.
    static func register(_ plugin: LoadedPlugin, into locator: ServiceLocator, source: ServiceSource,
                         logs: (any PluginLogHandler)?,
                         settings: (any PluginSettingsSource)?) -> Result<ModuleHandle, PluginLoadError> {
        let meta = plugin.metadata
        let services = ServiceResolver(source: source, lentTo: meta.name, granting: meta.readableStoreKeys,
                                       log: logs.map { PluginLog(plugin: meta.name, version: meta.version, handler: $0) },
                                       settings: settings.map { PluginSettings(plugin: meta.name, source: $0) })
        // Before any code of the plugin runs: each requirement met by a slot of the declared type.
        for required in meta.requires {
            guard let slot = locator.slotInfo(forKey: required.storeKey), let reason = slot.mismatch(with: required) else {
                continue
            }
            return .failure(.requirementTypeMismatch(plugin: meta.name, key: required.storeKey,
                                                     providedBy: slot.origin ?? "host", reason: reason))
        }
        let module = PluginModule(name: meta.name, base: plugin.makeModule())
        do {
            try locator.addModule(module, services: services) { slots in try check(slots, against: meta) }
            return .success(ModuleHandle(module: module, services: services))
        } catch {
            // Unwrap the locator's "module failed" so the reason is said once.
            let reason = if case let ServiceLocatorError.moduleFailed(_, inner) = error { inner } else { error }
            return .failure(.registrationFailed(plugin: meta.name, reason: String(describing: reason)))
        }
    }

    /// Throws unless `slots` are the keys `meta` provides, each of the declared type.
    private static func check(_ slots: [ServiceSlotInfo], against meta: PluginMetadata) throws {
        // Most modules add their keys in the order their plugin declares them: then one pass settles
        // it (the load plan refused metadata that lists a key twice, and a registrar's keys are
        // distinct, so equal lists are equal sets). Otherwise: every key declared, and as many as
        // declared, matched by a dictionary of the declarations.
        if slots.count == meta.provides.count, zip(slots, meta.provides).allSatisfy({ $0.key == $1.storeKey }) {
            for (slot, declared) in zip(slots, meta.provides) {
                if let reason = slot.mismatch(with: declared) { throw WrongSlotType(key: slot.key, reason: reason) }
            }
            return
        }
        let declared = Dictionary(meta.provides.map { ($0.storeKey, $0) }) { first, _ in first }
        let added = Set(slots.map(\.key))
        let missing = Set(declared.keys).subtracting(added)
        let extra = added.subtracting(declared.keys)
        guard missing.isEmpty && extra.isEmpty else { throw UndeclaredKeys(missing: missing, extra: extra) }
        for slot in slots {
            if let declaration = declared[slot.key], let reason = slot.mismatch(with: declaration) {
                throw WrongSlotType(key: slot.key, reason: reason)
            }
        }
    }
}
