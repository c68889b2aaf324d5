internal import DynamicLoading

/// How the load pipeline opens a plugin that runs in a process of its own. The room above the
/// pipeline, `OwnProcess/`, implements it (``OwnProcessLauncher``) and a host hands one to each
/// pipeline: the pipeline knows no child process, and nothing of that room calls back into it.
protocol OwnProcessPlacement: Sendable {
    /// True if the plugin file `candidate` runs in a process of its own.
    func placesOwnProcess(_ candidate: PluginCandidate) -> Bool

    /// Starts a process for the plugin of `candidate`, which opens the plugin there: the plugin as
    /// the host sees it (its module hands out proxies of the services served there), or why it
    /// cannot be served so. Its start hook, run there, is bounded by `startTimeout`; the contract
    /// libraries mapped here for it are shown to `fileCheck`.
    func launch(_ candidate: PluginCandidate, startTimeout: Duration, fileCheck: FileCheck?) -> Result<LoadedPlugin, PluginLoadError>
}
