import PluginAPI

/// A module handed to a hook's task, with the resolver lent to it. Hooks of one module never run at
/// the same time (the host runs them one after another), so the module does not have to be `Sendable`.
struct ModuleHandle: @unchecked Sendable {
    let module: any Module
    /// What its registrar lent it, and its start hook gets: its declared keys of the host's services.
    let services: ServiceResolver
}
