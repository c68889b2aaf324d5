import PluginAPI

extension LibraryVersion {
    /// The version of RouteContracts a plugin is compiled against.
    @_alwaysEmitIntoClient
    public static var routeContracts: LibraryVersion { LibraryVersion("RouteContracts", 1, 2, 0) }
}

/// The version of the loaded copy, for the host's check.
@c(swift_library_version_RouteContracts)
public func routeContractsLoadedVersion() -> UInt64 { LibraryVersion.routeContracts.encoded }
