import PluginAPI

/// A plugin's module under its plugin's metadata name: the origin of its slots, in listings and
/// errors, is the name the host loaded it by, whatever `name` the module itself claims.
struct PluginModule: Module {
    let name: String
    let base: any Module

    func registerServices(in registrar: ModuleRegistrar) throws {
        try base.registerServices(in: registrar)
    }

    func start(services: ServiceResolver) async throws {
        try await base.start(services: services)
    }

    func shutdown() async throws {
        try await base.shutdown()
    }
}
