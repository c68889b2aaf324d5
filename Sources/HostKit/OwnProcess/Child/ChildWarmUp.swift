internal import DynamicLoading
import Foundation

/// What a zygote runs once before it forks (``PluginProcesses/zygote``): the first uses a child
/// makes of the types it decodes as it starts, so that each child it forks finds them done (the
/// runtime's first look-up of a type, and of each of its conformances, scans every image's
/// records). On this thread only: a zygote may start no other.
enum ChildWarmUp {
    static func run() {
        let candidate = PluginCandidate(path: "/plugin.so", realPath: "/plugin.so", image: "/plugin.so", shadowRoot: nil)
        if let text = ChildLoadRequest(candidate: candidate, startTimeout: .seconds(1)).variableValue {
            _ = ChildLoadRequest(variableValue: text)
        }
        if let policy = try? JSONEncoder().encode(SandboxPolicy(readable: ["/"], folder: "/")) {
            _ = try? JSONDecoder().decode(SandboxPolicy.self, from: policy)
        }
    }
}
