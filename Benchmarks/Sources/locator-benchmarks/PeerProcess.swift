import Glibc

/// A second process of this benchmark, started as `locator-benchmarks --peer ROLE ARGUMENTS...` with its
/// end of a Unix stream socket pair as descriptor 3 (as HostKit gives a plugin's process its own): the
/// other side of the call cases.
struct PeerProcess {
    /// The descriptor the peer finds its socket on.
    static let descriptor: Int32 = 3

    let pid: pid_t
    /// This process's end of the socket pair.
    let socket: Int32

    /// Starts `role` with `arguments` in a new process of this executable; `sharing`, if given, is
    /// the peer's descriptor 4 (``SharedMemoryFloor/descriptor``).
    static func start(_ role: String, _ arguments: [String] = [], sharing shared: Int32? = nil) -> PeerProcess {
        var pair: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            fail("socketpair: \(String(cString: strerror(errno)))")
        }
        // dup2 onto 3 clears close-on-exec, unless the end is 3 already: then it is moved first.
        var childEnd = pair[1]
        if childEnd == descriptor {
            childEnd = fcntl(pair[1], F_DUPFD_CLOEXEC, 10)
            close(pair[1])
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, childEnd, descriptor)
        // Moved above 4 first: a descriptor numbered 3 would be overwritten by the socket's dup2.
        let sharedCopy = shared.map { fcntl($0, F_DUPFD_CLOEXEC, 10) }
        defer { sharedCopy.map { _ = close($0) } }
        if let sharedCopy { posix_spawn_file_actions_adddup2(&actions, sharedCopy, SharedMemoryFloor.descriptor) }
        let executable = Self.executablePath
        let argv = ([executable, "--peer", role] + arguments).map { strdup($0) } + [nil]
        // This process's environment (the `environ` global is not usable in Swift 6 mode).
        let variables = (Machine.readText("/proc/self/environ") ?? "").split(separator: "\0").map { strdup(String($0)) } + [nil]
        defer { (argv + variables).forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, nil, argv, variables)
        close(childEnd)
        guard status == 0 else { fail("posix_spawn \(executable): \(String(cString: strerror(status)))") }
        return PeerProcess(pid: pid, socket: pair[0])
    }

    /// Closes this end (the peer sees the end of its stream and exits) and reaps the peer.
    func finish() {
        close(socket)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }

    /// This executable, by absolute path.
    static var executablePath: String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { fail("readlink /proc/self/exe: \(String(cString: strerror(errno)))") }
        return String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The folder this executable lies in (the build's products: the plugin, `plugin-process`).
    static var executableFolder: String {
        String(executablePath.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/"))
    }
}

/// Blocking reads and writes of whole messages on a socket (the floor's, and the frame capture's).
enum RawSocket {
    /// Reads exactly `count` bytes into `buffer` (from its start); false at the end of the stream.
    static func read(_ socket: Int32, _ buffer: inout [UInt8], count: Int) -> Bool {
        var filled = 0
        while filled < count {
            let got = buffer.withUnsafeMutableBytes { Glibc.read(socket, $0.baseAddress! + filled, count - filled) }
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { return false }
            filled += got
        }
        return true
    }

    /// Writes all of `bytes`; false if the peer is gone.
    static func write(_ socket: Int32, _ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { send(socket, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// The little-endian integer `bytes` hold (at most 8 of them).
    static func littleEndian(_ bytes: [UInt8]) -> Int {
        bytes.enumerated().reduce(0) { $0 | Int($1.element) << ($1.offset * 8) }
    }

    /// One frame of PluginActors' connection: a little-endian `UInt32` length, then that many bytes.
    static func readFrame(_ socket: Int32) -> [UInt8]? {
        var header = [UInt8](repeating: 0, count: 4)
        guard read(socket, &header, count: 4) else { return nil }
        let length = littleEndian(header)
        guard length <= 1 << 20 else { return nil }
        var body = [UInt8](repeating: 0, count: length)
        guard read(socket, &body, count: length) else { return nil }
        return header + body
    }
}
