internal import DynamicLoading

/// The discovery option a refusal names: beside discovery, which declares the options, so that the
/// errors below it name none of its types.
extension PluginLoadError {
    /// The ``PluginDiscovery`` option that would have let in what this error refused, if one would:
    /// ``PluginDiscovery/allowUntrusted`` for a file, folder or symlink others could change (on the
    /// way to the plugin, or to a library it links), ``PluginDiscovery/allowOtherCompilers`` for a
    /// plugin another toolchain built. A program that offers these options its own way (a
    /// command-line flag, a configuration key) names that way beside the description with it.
    public var allowedBy: WritableKeyPath<PluginDiscovery, Bool>? {
        switch self {
        case .untrusted: \.allowUntrusted
        case .compilerMismatch: \.allowOtherCompilers
        case let .libraryRefused(_, _, _, reason) where reason.hasSuffix(PathTrust.allowance): \.allowUntrusted
        default: nil
        }
    }
}
