@_spi(HostKit) import PluginAPI
@_spi(HostKit) import PluginActors

/// The host's side of a plugin served from a process of its own (``PluginProcess``): registering
/// it registers the plugin in that process (what its registration throws is thrown here, so `check`
/// and `list` see it as in process), then adds a slot per key it provides, each handing out a proxy
/// of the service in that process (made once, on the first get); its start and shutdown hooks are
/// the plugin's, run there.
struct RemotePluginModule: Module {
    let process: PluginProcess
    let metadata: PluginMetadata

    var name: String { metadata.name }

    func registerServices(in registrar: ModuleRegistrar) throws {
        try process.register(services: registrar.services)
        let peer = process.peer
        for key in metadata.provides {
            guard let stub = key.stubType else { throw ChildRefusal(description: "\(key) is not distributed") }
            let id = PluginActorID(peer: peer, name: key.storeKey)
            try key.addProxySlot(to: registrar, origin: metadata.name) { try PluginActorSystem.shared.proxy(of: stub, id: id) }
        }
    }

    func start(services: ServiceResolver) async throws {
        do {
            try await process.start(services: services)
        } catch {
            // A plugin that did not start gets no shutdown hook: its process ends here.
            process.stopNow()
            throw ChildRefusal(description: PluginProcess.text(of: error))
        }
    }

    func shutdown() async throws {
        if let problem = await process.stop(timeout: process.settings.callTimeout) { throw ChildRefusal(description: problem) }
    }

    /// The metadata the host plans and checks a plugin of another process by: its keys with the
    /// types this process has for them. Refused if a key is not distributed, or its contract's types
    /// are not in this process (``ContractLibraries`` mapped the libraries the plugin records first).
    static func metadata(of description: ChildPluginDescription, path: String) -> Result<PluginMetadata, PluginLoadError> {
        var declared: (provides: [DeclaredKey], requires: [DeclaredKey]) = ([], [])
        for (keys, isProvided) in [(description.provides, true), (description.requires, false)] {
            for key in keys {
                guard let keyType = key.keyType else {
                    return .failure(.processFailed(path: path, reason: "plugin '\(description.name)' \(isProvided ? "provides" : "requires") "
                                                   + "\(key.text), whose contract is not distributed (a plain protocol is served in process only)"))
                }
                guard let remote = DeclaredKey.remote(storeKey: key.storeKey, keyTypeName: keyType) else {
                    return .failure(.processFailed(path: path, reason: "plugin '\(description.name)': the types of \(key.text) are not "
                                                   + "in this process (no contract library the plugin records defines them)"))
                }
                if isProvided { declared.provides.append(remote) } else { declared.requires.append(remote) }
            }
        }
        return .success(PluginMetadata(name: description.name, version: description.version,
                                       declaredProvides: declared.provides, declaredRequires: declared.requires))
    }
}
