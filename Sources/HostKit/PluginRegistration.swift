import PluginAPI

/// Puts one plugin's services into a locator.
enum PluginRegistration {
    /// Registers one plugin's module, all or nothing, holding it to the keys it declared.
    /// Returns the module, whose lifecycle hooks the host calls later.
    static func register(_ plugin: LoadedPlugin, into locator: ServiceLocator,
                         failed: FailedProviders = FailedProviders()) -> Result<ModuleHandle, PluginLoadError> {
        let meta = plugin.metadata
        if let missing = failed.missingRequirement(of: meta, failedTo: "register") { return .failure(missing) }
        let module = plugin.descriptor.makeModule()
        do {
            try locator.addModule(module) { slots in
                // Most modules add their keys in the order their plugin declares them: then a pass of
                // string comparisons settles it (a registrar's keys are distinct, so equal lists are
                // equal sets). Otherwise: every key declared, and as many as declared; one set, of the
                // declared keys, and the other only when it does not match.
                if slots.count == meta.provides.count, zip(slots, meta.provides).allSatisfy({ $0.key == $1 }) { return }
                let declared = Set(meta.provides)
                guard slots.count != declared.count || !slots.allSatisfy({ declared.contains($0.key) }) else { return }
                let added = Set(slots.map(\.key))
                throw UndeclaredKeys(missing: declared.subtracting(added), extra: added.subtracting(declared))
            }
            return .success(ModuleHandle(module: module))
        } catch {
            // Unwrap the locator's "module failed" so the reason is said once.
            let reason = if case let ServiceLocatorError.moduleFailed(_, inner) = error { inner } else { error }
            return .failure(.registrationFailed(plugin: meta.name, reason: String(describing: reason)))
        }
    }
}

/// A module added other keys than its plugin declared.
struct UndeclaredKeys: Error, CustomStringConvertible {
    let missing: Set<String>
    let extra: Set<String>

    var description: String {
        var parts: [String] = []
        if !missing.isEmpty { parts.append("declared but not added: \(missing.sorted().joined(separator: ", "))") }
        if !extra.isEmpty { parts.append("added but not declared: \(extra.sorted().joined(separator: ", "))") }
        return parts.joined(separator: "; ")
    }
}
