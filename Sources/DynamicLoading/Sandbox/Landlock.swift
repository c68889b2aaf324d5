import CSandbox
import Glibc

/// The Landlock rules of a plugin's process: what it may read and write, which TCP ports it may
/// connect to, and that it reaches no process outside its sandbox. Landlock binds the thread that
/// installs it and what that thread starts later, so the child installs it before it starts any.
///
/// Denied by Landlock besides the files: `ptrace` of, and `/proc/PID/mem` and `environ` of, any
/// process not in the same sandbox (Landlock's own rule since ABI 1), so also the host's.
enum Landlock {
    // Access rights (linux/landlock.h): each ABI adds some.
    private static let execute: UInt64 = 1 << 0, writeFile: UInt64 = 1 << 1, readFile: UInt64 = 1 << 2,
                       readFolder: UInt64 = 1 << 3
    /// Every file right ABI `abi` knows: 13 at ABI 1, then refer (2), truncate (3), ioctl on devices (5).
    private static func fileRights(abi: Int32) -> UInt64 {
        let bits = abi >= 5 ? 16 : abi >= 3 ? 15 : abi >= 2 ? 14 : 13
        return (UInt64(1) << UInt64(bits)) - 1
    }
    /// The rights that apply to a file (not a folder): execute, write, read, truncate, ioctl.
    private static let fileOnlyRights: UInt64 = execute | writeFile | readFile | 1 << 14 | 1 << 15
    private static let bindTCP: UInt64 = 1 << 0, connectTCP: UInt64 = 1 << 1
    private static let abstractUnixSockets: UInt64 = 1 << 0, signals: UInt64 = 1 << 1

    /// Confines this thread (and what it starts later) to reading `readable`, writing in `writable`,
    /// running `runnable` and connecting to `tcpPorts`; the layers it could enter.
    static func restrict(readable: [String], writable: [String], runnable: [String], tcpPorts: [UInt16],
                         acceptsMissingLayers: Bool) throws(SandboxError) -> [SandboxLayer] {
        let abi = sandbox_landlock_abi()
        guard abi >= 1 else {
            throw SandboxError(layer: .landlockFiles, reason: "Landlock is not enabled in this kernel (\(String(cString: strerror(-abi))))")
        }
        var layers: [SandboxLayer] = [.landlockFiles]
        if abi >= 4 { layers.append(.landlockNetwork) }
        if abi >= 6 { layers.append(.landlockScopes) }
        if !acceptsMissingLayers, let missing = [SandboxLayer.landlockNetwork, .landlockScopes].first(where: { !layers.contains($0) }) {
            throw SandboxError(layer: missing, reason: "this kernel's Landlock is ABI \(abi); TCP rules need 4, scopes 6")
        }
        let all = fileRights(abi: abi)
        let ruleset = sandbox_landlock_ruleset(all, abi >= 4 ? bindTCP | connectTCP : 0,
                                               abi >= 6 ? abstractUnixSockets | signals : 0, abi)
        guard ruleset >= 0 else { throw SandboxError(layer: .landlockFiles, reason: "landlock_create_ruleset: \(String(cString: strerror(-ruleset)))") }
        defer { close(ruleset) }
        for path in Set(readable) {
            try allow(path, readFile | readFolder, handled: all, in: ruleset)
        }
        for path in Set(runnable) {
            try allow(path, execute | readFile | readFolder, handled: all, in: ruleset)
        }
        for path in Set(writable) {
            try allow(path, all & ~execute, handled: all, in: ruleset)
        }
        if abi >= 4 {
            for port in Set(tcpPorts) {
                let result = sandbox_landlock_allow_port(ruleset, UInt64(port), connectTCP)
                guard result == 0 else { throw SandboxError(layer: .landlockNetwork, reason: "TCP port \(port): \(String(cString: strerror(-result)))") }
            }
        }
        let result = sandbox_landlock_restrict(ruleset)
        guard result == 0 else { throw SandboxError(layer: .landlockFiles, reason: "landlock_restrict_self: \(String(cString: strerror(-result)))") }
        return layers
    }

    /// Lets `rights` under `path` (those of them a file can have, if it is a file). A path that does not
    /// exist is skipped: there is nothing to read there, and nothing made there later is readable.
    private static func allow(_ path: String, _ rights: UInt64, handled: UInt64, in ruleset: Int32) throws(SandboxError) {
        let descriptor = sandbox_open_path(path)
        guard descriptor >= 0 else { return }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return }
        let isFolder = status.st_mode & S_IFMT == S_IFDIR
        let result = sandbox_landlock_allow_path(ruleset, descriptor, (isFolder ? rights : rights & fileOnlyRights) & handled)
        guard result == 0 else { throw SandboxError(layer: .landlockFiles, reason: "\(path): \(String(cString: strerror(-result)))") }
    }
}
