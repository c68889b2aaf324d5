internal import DynamicLoading
import Foundation

/// The file the host asks its child to load: the one its discovery checked.
struct ChildLoadRequest: Codable, Sendable {
    /// The file as the host's discovery checked it: the child checks the file again, and refuses it
    /// if it is not the same file with the same contents (``PluginCandidate/identity``).
    let candidate: PluginCandidate
    /// How long the plugin's start hook may take.
    let startTimeout: Duration
}

extension ChildLoadRequest {
    /// The variable that gives a child its load request as JSON: it loads its plugin as soon as it
    /// is in its sandbox (the file opened and checked, its constructors run, nothing registered nor
    /// started), so that a standby's takeover skips that step, and another's load overlaps its
    /// connection's start.
    static let preloadVariable = "SWIFT_PLUGIN_PRELOAD"

    /// The request as the variable holds it.
    var variableValue: String? {
        (try? JSONEncoder().encode(self)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The request a variable holds; nil if it holds none that reads.
    init?(variableValue: String) {
        guard let request = try? JSONDecoder().decode(Self.self, from: Data(variableValue.utf8)) else { return nil }
        self = request
    }
}
