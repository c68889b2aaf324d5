/// What a plugin or contract library written in another package imports, as
/// `.product(name: "PluginActors", package: ...)` of this package: the nested dynamic product
/// re-exported, for the reason ``PluginAPIExport`` re-exports PluginAPI (one copy in the process).
@_exported import PluginActors
