public import PluginAPI

extension LibraryVersion {
    /// FixtureRemoteContracts' version, compiled into every plugin that lists it in its `contractLibraries`.
    @_alwaysEmitIntoClient
    public static var fixtureRemoteContracts: LibraryVersion { LibraryVersion("FixtureRemoteContracts", 1, 0, 0) }
}

/// The version of the FixtureRemoteContracts this process loaded, for hosts.
@c(swift_library_version_FixtureRemoteContracts)
public func fixtureRemoteContractsLoadedVersion() -> UInt64 { LibraryVersion.fixtureRemoteContracts.encoded }
