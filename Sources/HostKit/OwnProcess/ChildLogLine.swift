/// One line of a plugin's own log, as its process sends it to the host (``HostLogService``): the host
/// adds the plugin's name and version, which the child does not choose.
struct ChildLogLine: Codable, Sendable {
    /// ``PluginAPI/PluginLog/Level``'s raw value.
    let level: String
    let message: String
    let metadata: [String: String]
    let file: String
    let line: UInt
}
