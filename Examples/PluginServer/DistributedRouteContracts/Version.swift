public import PluginAPI

extension LibraryVersion {
    /// The version of DistributedRouteContracts a plugin is compiled against.
    @_alwaysEmitIntoClient
    public static var distributedRouteContracts: LibraryVersion { LibraryVersion("DistributedRouteContracts", 1, 0, 0) }
}

/// The version of the loaded copy, for the host's check.
@c(swift_library_version_DistributedRouteContracts)
public func distributedRouteContractsLoadedVersion() -> UInt64 { LibraryVersion.distributedRouteContracts.encoded }
