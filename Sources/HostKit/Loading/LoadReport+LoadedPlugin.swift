/// A report's entry made from a plugin read: beside ``LoadedPlugin``, below which reports stay.
extension LoadReport.Entry {
    /// The outcome for a plugin whose header and metadata were read.
    init(_ plugin: LoadedPlugin, error: PluginLoadError?) {
        self.init(path: plugin.path, metadata: plugin.metadata, error: error, builtAgainst: plugin.libraries, copies: plugin.copies,
                  servedBy: plugin.servedBy, sandbox: plugin.sandbox,
                  sandboxGranted: plugin.sandboxGranted, sandboxRefused: plugin.sandboxRefused)
    }
}
