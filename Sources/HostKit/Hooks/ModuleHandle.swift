import PluginAPI

/// A module handed to a hook's task. Hooks of one module never run at the same time (the host runs
/// them one after another), so the module does not have to be `Sendable`.
struct ModuleHandle: @unchecked Sendable {
    let module: any Module
}
