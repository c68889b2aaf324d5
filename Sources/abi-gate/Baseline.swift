import Foundation

/// The ABI and the version of a library's last release: what the library is compared with.
struct Baseline {
    /// The release's ABI, as `swift-api-digester -dump-sdk -abi` wrote it.
    let dump: URL
    /// The release's version.
    let version: SemanticVersion
    /// Where it came from, for the verdict: "api/PluginAPI.abi.json", "tag 1.0.0".
    let origin: String
    /// What to do at the next release so that the gate compares with it.
    let atRelease: String
}
