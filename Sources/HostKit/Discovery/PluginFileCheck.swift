/// A check of the operator's that every file a load maps must pass, beside the host's own (trust,
/// ELF headers, toolchain, libraries): a list of the files' digests (``DigestAllowlist``), say.
/// Set it as ``PluginDiscovery/fileCheck``.
///
/// It is shown each file before the loader maps it: each plugin file, and each library a plugin
/// brings that the loader would newly map (one beside the plugin, or one found by `LD_LIBRARY_PATH`
/// or a run path; a library the process has loaded already maps nothing new). What it reads is the
/// very file the loader maps: the copy the load made in its folder of copies, which only the host's
/// user can write, so nothing done to the original after the check reaches the image. A file a
/// load maps is checked at that load only: an unchanged plugin kept over a reload is not shown again.
///
/// A refusal keeps the plugin out (for a library, the plugin that brings it), with the check's
/// words in ``PluginLoadError/fileRefused(path:reason:)`` or
/// ``PluginLoadError/libraryRefused(path:library:file:reason:)``; the host and the other plugins
/// carry on.
public protocol PluginFileCheck: Sendable {
    /// Called as each load and each reload begins, before it reads any file: the time to read again
    /// what the check relies on (its list). A throw refuses every file that load would newly map,
    /// with the error's description; the plugins already running are kept.
    func loadBegins() throws

    /// Throws if `file` may not be mapped; the error's description says why (escaped when printed).
    /// Called on the loading thread, one file at a time.
    func check(_ file: PluginFile) throws
}

extension PluginFileCheck {
    /// Nothing to read again.
    public func loadBegins() throws {}
}
