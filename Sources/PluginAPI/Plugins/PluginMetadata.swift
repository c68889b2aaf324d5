/// What a plugin tells a host before anything of it is registered.
///
/// ```swift
/// static let metadata = PluginMetadata(name: "greeter", version: "1.2.0",
///                                      provides: [SampleKeys.greeter], requires: [SampleKeys.clock])
/// ```
public struct PluginMetadata: Sendable {
    /// A unique, stable name, such as `greeter`. The origin of the plugin's slots in listings.
    public let name: String
    /// The plugin's own version, for reports.
    public let version: String
    /// The keys the plugin's module adds, with their types: the host refuses a module that adds
    /// others, or adds one of them with another type.
    public let provides: [DeclaredKey]
    /// The keys of other plugins' services the plugin needs, with their types: the host registers
    /// those plugins first, and refuses the plugin if the slot that meets one holds another type.
    public let requires: [DeclaredKey]
    /// What it needs beyond the sandbox of a process of its own (none unless declared).
    public let needs: PluginNeeds

    /// Metadata for a plugin named `name` that adds the slots of `provides` and needs those of
    /// `requires`: the keys themselves, whose types the host checks (`key.async` for an async slot).
    public init(name: String, version: String, provides: [any ServiceLocatorKey],
                requires: [any ServiceLocatorKey] = []) {
        self.init(name: name, version: version, provides: provides, requires: requires, needs: PluginNeeds())
    }

    /// Metadata as ``init(name:version:provides:requires:)`` makes it, with what the plugin `needs`
    /// beyond the sandbox of a process of its own.
    public init(name: String, version: String, provides: [any ServiceLocatorKey], requires: [any ServiceLocatorKey] = [],
                needs: PluginNeeds) {
        self.name = name
        self.version = version
        self.provides = provides.map { DeclaredKey($0) }
        self.requires = requires.map { DeclaredKey($0) }
        self.needs = needs
    }
}
