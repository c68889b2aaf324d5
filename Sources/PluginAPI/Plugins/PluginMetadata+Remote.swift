extension PluginMetadata {
    /// Metadata of a plugin whose keys were declared elsewhere: a host's picture of a plugin served
    /// from another process, its keys remade from their names (``DeclaredKey/remote(storeKey:keyTypeName:)``).
    @_spi(HostKit)
    public init(name: String, version: String, declaredProvides: [DeclaredKey], declaredRequires: [DeclaredKey]) {
        self.name = name
        self.version = version
        provides = declaredProvides
        requires = declaredRequires
        needs = PluginNeeds()
    }
}
