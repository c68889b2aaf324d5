internal import DynamicLoading
import Foundation

/// What a zygote runs once before it forks (``PluginProcesses/zygote``): the first uses a child
/// makes of the types it decodes as it starts, so that each child it forks finds them done (the
/// runtime's first look-up of a type, and of each of its conformances, scans every image's
/// records). On this thread only: a zygote may start no other.
enum ChildWarmUp {
    static func run() {
        _ = ProcessInfo.processInfo.environment
        // A request as a host writes one, each field of its file filled: a field left nil is a
        // type the child's decoding meets first after the fork (0.3 ms of a start, measured).
        var candidate = PluginCandidate(path: "/plugin.so", realPath: "/plugin.so", image: "/plugin.so", shadowRoot: "/")
        var info = stat()
        if stat("/", &info) == 0 { candidate.identity = FileIdentity(info) }
        let dynamic = #"{"needed":["a.so"],"rpath":[],"runpath":["/"],"soname":"a.so","filters":[],"noDefaultLibraries":false}"#
        candidate.dynamic = try? JSONDecoder().decode(ELFCheck.DynamicSection.self, from: Data(dynamic.utf8))
        candidate.entry = .function
        candidate.versionedLibrary = "a.so"
        if let text = ChildLoadRequest(candidate: candidate, startTimeout: .seconds(1)).variableValue {
            _ = ChildLoadRequest(variableValue: text)
        }
        if let policy = try? JSONEncoder().encode(SandboxPolicy(readable: ["/"], folder: "/")) {
            _ = try? JSONDecoder().decode(SandboxPolicy.self, from: policy)
        }
    }
}
