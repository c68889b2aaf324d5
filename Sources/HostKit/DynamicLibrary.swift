import Glibc
import Synchronization

/// A shared library opened with `dlopen`, never closed: Swift plugins leave type metadata and
/// conformance records in the runtime's caches, which would dangle after `dlclose` (ARCHITECTURE.md).
struct DynamicLibrary: @unchecked Sendable {
    // @unchecked: the handle is an opaque token that dlsym accepts from any thread.
    let path: String
    private let handle: UnsafeMutableRawPointer

    /// Opens `path`, which must be absolute (a bare name would search the system's library path).
    static func open(_ path: String) throws(PluginLoadError) -> DynamicLibrary {
        guard path.hasPrefix("/") else { throw .notFound(path: path) }
        try ELFCheck.validate(path)
        _ = dlerror()
        guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) else {
            throw .notASharedLibrary(path: path, reason: lastError().map(SwiftDemangle.explain) ?? "unknown dlopen error")
        }
        return DynamicLibrary(path: path, handle: handle)
    }

    /// The address of `symbol`, or `nil` if the library does not define it.
    func symbol(_ name: String) -> UnsafeMutableRawPointer? {
        _ = dlerror()
        return dlsym(handle, name)
    }

    private static func lastError() -> String? {
        dlerror().map { String(cString: $0) }
    }
}
