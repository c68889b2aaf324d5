import Crypto
import HostKit

extension DigestAllowlist {
    /// The `sha256sum` list at `path` (``DigestAllowlist/init(contentsOf:sha256:)``), each file's
    /// digest computed by swift-crypto's `SHA256` (BoringSSL's code, using the processor's SHA
    /// instructions where it has them) instead of HostKit's own.
    ///
    /// ```swift
    /// let discovery = PluginDiscovery(fileCheck: try DigestAllowlist.swiftCrypto(contentsOf: "/srv/plugins/SHA256SUMS"))
    /// ```
    public static func swiftCrypto(contentsOf path: String) throws -> DigestAllowlist {
        try DigestAllowlist(contentsOf: path) { file in
            var hash = SHA256()
            try file.read { hash.update(data: $0) }
            return Array(hash.finalize())
        }
    }
}
