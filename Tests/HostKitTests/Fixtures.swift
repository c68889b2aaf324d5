import Foundation
import HostKit
import PluginAPI

/// A shared library of the system that is certainly not a plugin.
let systemLibrary: String? = ["/lib/x86_64-linux-gnu/libm.so.6", "/usr/lib/x86_64-linux-gnu/libm.so.6",
                              "/lib/aarch64-linux-gnu/libm.so.6", "/usr/lib64/libm.so.6"]
    .first { FileManager.default.fileExists(atPath: $0) }

extension LoadReport {
    /// The error for the file or plugin whose subject ends with `suffix`.
    func error(for suffix: String) -> PluginLoadError? {
        problems.first { $0.subject.hasSuffix(suffix) }
    }

    var loadedNames: [String] {
        loaded.compactMap { $0.metadata?.name }
    }
}
