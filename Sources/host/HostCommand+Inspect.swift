import HostKit

/// `host inspect FILE`: one plugin file, without loading it into the host.
extension HostCommand {
    /// `inspect FILE`: what the plugin in `path` says of itself, and whether this host would load it;
    /// 1 if it would not (why, on stderr).
    func inspect(_ path: String) -> Int32 {
        let inspection = PluginHost.inspect(path, discovery: arguments.discovery, probe: probe())
        if let plugin = inspection.plugin {
            let meta = plugin.metadata
            let libraries = plugin.libraries.map { "\($0.name) \($0)" }
            if arguments.json {
                Output.json(encodeJSON(Descriptor(name: meta.name, version: meta.version, provides: meta.provides.map(\.storeKey),
                                                  requires: meta.requires.map(\.storeKey), builtAgainst: libraries,
                                                  loadable: inspection.refusal == nil, refusal: inspection.refusal?.description)))
            } else {
                Output.lines([
                    "name:     \(meta.name)",
                    "version:  \(meta.version)",
                    "built against: \(libraries.joined(separator: ", "))",
                    "provides: \(meta.provides.map(\.storeKey).joined(separator: ", "))",
                    "requires: \(meta.requires.isEmpty ? "-" : meta.requires.map(\.storeKey).joined(separator: ", "))",
                    // As `--json`'s `loadable`: what the operator asked `inspect` for.
                    inspection.refusal == nil ? "loadable: yes, this host would load it"
                        : "loadable: no, this host would refuse it (see below)",
                ])
            }
        }
        guard let refusal = inspection.refusal else { return 0 }
        Output.problem(refusal)
        return 1
    }

    /// What `inspect --json` prints.
    private struct Descriptor: Encodable {
        let name: String
        let version: String
        let provides: [String]
        let requires: [String]
        /// The libraries the plugin was compiled against, as `PluginAPI 4.0.0`.
        let builtAgainst: [String]
        /// Whether this host would load it, and if not, why.
        let loadable: Bool
        let refusal: String?
    }
}
