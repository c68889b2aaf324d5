import PluginAPI

extension LibraryVersion {
    /// SampleContracts' version, compiled into every plugin that lists it in its
    /// `contractLibraries`. A minor release only adds (README, "Versioning and compatibility");
    /// anything else is a major one, and `.ci/api-check` fails until this says so.
    @_alwaysEmitIntoClient
    public static var sampleContracts: LibraryVersion { LibraryVersion("SampleContracts", 1, 1, 0) }
}

/// The version of the SampleContracts this process loaded: a host compares it with the version a
/// plugin was compiled against (``LibraryVersion/symbol(of:)`` names this function).
@c(swift_library_version_SampleContracts)
public func sampleContractsLoadedVersion() -> UInt64 { LibraryVersion.sampleContracts.encoded }
