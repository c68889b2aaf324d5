/// What a plugin written in another package imports, as `.product(name: "PluginAPI", package: ...)`
/// of this package.
///
/// PluginAPI is a nested package with a dynamic product (ARCHITECTURE.md): another package cannot name
/// that nested product directly, and a copy of PluginAPI linked into the plugin would make its types
/// different from the host's, so every cast across the plugin boundary would fail. This target only
/// re-exports the nested product, so the plugin links the host's `libPluginAPI.so` and writes
/// `import PluginAPI` as a sample plugin does.
@_exported import PluginAPI
