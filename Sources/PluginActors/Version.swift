import PluginAPI

extension LibraryVersion {
    /// PluginActors' version, compiled into every plugin and contract library that uses it: a plugin
    /// lists it in its `contractLibraries`. A minor release only adds; anything else is a major one
    /// (`.ci/api-check` holds it to that).
    @_alwaysEmitIntoClient
    public static var pluginActors: LibraryVersion { LibraryVersion("PluginActors", 1, 1, 0) }
}

/// The version of the PluginActors this process loaded, for hosts: the host compares it with the
/// version a plugin was compiled against.
@c(swift_library_version_PluginActors)
public func pluginActorsLoadedVersion() -> UInt64 { LibraryVersion.pluginActors.encoded }
