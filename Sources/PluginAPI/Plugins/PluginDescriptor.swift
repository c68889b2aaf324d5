/// The Swift part of a plugin's header, read by a host only after the fixed part checked out: a
/// plugin's ``exportPlugin(_:)`` makes it, a host reads it. Not for plugins.
public final class PluginDescriptor: Sendable {
    /// The plugin's metadata.
    public let metadata: PluginMetadata
    private let make: @Sendable () -> any Module

    /// A descriptor whose module `make` makes.
    @usableFromInline
    init(metadata: PluginMetadata, make: @escaping @Sendable () -> any Module) {
        self.metadata = metadata
        self.make = make
    }

    /// A new instance of the plugin's module.
    @_spi(HostKit)
    public func makeModule() -> any Module {
        make()
    }
}
