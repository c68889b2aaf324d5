/// The semantic version of a library whose types cross a plugin boundary: PluginAPI, or a contract
/// library such as SampleContracts.
///
/// A plugin records, in its own binary, the version of each such library it was compiled against;
/// a host compares it with the copy the process loaded before it touches any Swift type of the plugin
/// (same major version, a minor version no newer than the loaded copy's). A library declares its
/// version once, as an `@_alwaysEmitIntoClient` static property, so that the number is compiled into
/// whoever uses it, and exports a C function that returns the same value from the loaded copy:
///
/// ```swift
/// extension LibraryVersion {
///     /// WeatherContracts' version: a minor release only adds (README, "Versioning").
///     @_alwaysEmitIntoClient
///     public static var weatherContracts: LibraryVersion { LibraryVersion("WeatherContracts", 2, 3, 1) }
/// }
///
/// /// The version of the WeatherContracts this process loaded, for hosts.
/// @c(swift_library_version_WeatherContracts)
/// public func weatherContractsLoadedVersion() -> UInt64 { LibraryVersion.weatherContracts.encoded }
/// ```
///
/// A plugin lists the contract libraries it uses in ``Plugin/contractLibraries``; PluginAPI's own
/// version is recorded always.
// @frozen: a plugin compiles this layout in and every later host reads it: it can never change.
@frozen
public struct LibraryVersion: Sendable, Hashable, CustomStringConvertible {
    /// The library's name: its module and product name, such as `SampleContracts`.
    public let name: String
    /// Changes when a release breaks plugins built against the one before.
    public let major: UInt16
    /// Changes when a release adds declarations.
    public let minor: UInt16
    /// Changes when a release only fixes.
    public let patch: UInt16

    /// Version `major.minor.patch` of the library `name`.
    // Inlinable: runs in the plugin, before the host has compared any version.
    @inlinable
    public init(_ name: String, _ major: UInt16, _ minor: UInt16, _ patch: UInt16) {
        self.name = name
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    /// The three numbers in one integer (`major << 32 | minor << 16 | patch`), as a library's
    /// version function returns them to a host.
    // Inlinable: a library's exported version function, and a plugin's header, compute it.
    @inlinable
    public var encoded: UInt64 {
        UInt64(major) << 32 | UInt64(minor) << 16 | UInt64(patch)
    }

    /// `major.minor.patch`.
    public var description: String { "\(major).\(minor).\(patch)" }

    /// PluginAPI's version, compiled into whoever uses it. A minor release only adds; anything that
    /// breaks a plugin built against the release before is a major one (`.ci/api-check` holds it to that).
    @_alwaysEmitIntoClient
    public static var pluginAPI: LibraryVersion { LibraryVersion("PluginAPI", 5, 4, 0) }
}

/// The version of the PluginAPI this process loaded, for hosts: every versioned library exports one
/// such function, named `swift_library_version_` and the library's name.
@c(swift_library_version_PluginAPI)
public func pluginAPILoadedVersion() -> UInt64 { LibraryVersion.pluginAPI.encoded }
