import PluginAPI

extension LibraryVersion {
    /// WeatherContracts' version, compiled into every plugin that lists it in its `contractLibraries`.
    /// Bump the minor version when you add a declaration, the major one for anything else (see the
    /// host's Sources/PluginAPI/PluginAPI.docc/YourOwnContracts.md, "What a release may change").
    /// `ci/check-abi` (`swift package check-abi`) fails until this says so; at a release, write the
    /// new baseline: `swift package --allow-writing-to-package-directory check-abi --update`.
    @_alwaysEmitIntoClient
    public static var weatherContracts: LibraryVersion { LibraryVersion("WeatherContracts", 1, 0, 0) }
}

/// The version of the WeatherContracts the process loaded: the host compares it with the version a
/// plugin was compiled against. The name must be `swift_library_version_` and the library's name.
@c(swift_library_version_WeatherContracts)
public func weatherContractsLoadedVersion() -> UInt64 { LibraryVersion.weatherContracts.encoded }
