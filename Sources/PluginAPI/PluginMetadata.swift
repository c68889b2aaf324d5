/// What a plugin tells a host before anything of it is registered.
///
/// ```swift
/// static let metadata = PluginMetadata(name: "greeter", version: "1.2.0",
///                                      provides: [SampleKeys.greeter], requires: [SampleKeys.clock])
/// ```
public struct PluginMetadata: Sendable, Hashable {
    /// A unique, stable name, such as `greeter`. The origin of the plugin's slots in listings.
    public let name: String
    /// The plugin's own version, for reports.
    public let version: String
    /// The store keys the plugin's module adds; the host refuses a module that adds others.
    public let provides: [String]
    /// The store keys of other plugins' services the plugin needs; the host registers those first.
    public let requires: [String]
    /// The keys the plugin's module adds, with their types: the host refuses a module whose slot
    /// for one holds another type.
    public let providedKeys: [DeclaredKey]
    /// The keys of other plugins' services the plugin needs, with their types: the host refuses the
    /// plugin if the slot that meets one holds another type.
    public let requiredKeys: [DeclaredKey]

    /// Metadata for a plugin named `name` that adds the slots of `provides` and needs those of
    /// `requires`: the keys themselves, whose types the host checks.
    public init(name: String, version: String, provides: [any ServiceLocatorKey],
                requires: [any ServiceLocatorKey] = []) {
        self.init(name: name, version: version, providedKeys: provides.map { DeclaredKey($0) },
                  requiredKeys: requires.map { DeclaredKey($0) })
    }

    /// Metadata whose keys are store-key strings only: the host cannot check their types.
    @available(*, deprecated, message: "list the keys themselves, whose types the host checks: provides: [Keys.greeter]")
    @_disfavoredOverload
    public init(name: String, version: String, provides: [String], requires: [String] = []) {
        self.init(name: name, version: version, providedKeys: provides.map { DeclaredKey(storeKey: $0) },
                  requiredKeys: requires.map { DeclaredKey(storeKey: $0) })
    }

    private init(name: String, version: String, providedKeys: [DeclaredKey], requiredKeys: [DeclaredKey]) {
        self.name = name
        self.version = version
        self.providedKeys = providedKeys
        self.requiredKeys = requiredKeys
        provides = providedKeys.map(\.storeKey)
        requires = requiredKeys.map(\.storeKey)
    }
}
