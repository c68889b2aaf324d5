/// A plugin whose start hook succeeded: what its shutdown needs.
struct StartedPlugin {
    let name: String
    let module: ModuleHandle
    /// The keys it provides, whose closable services are closed after its shutdown hook.
    let keys: [String]
}
