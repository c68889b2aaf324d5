import Glibc

/// The system calls HostKit makes, each in one place: a call that can be interrupted by a signal
/// (`EINTR`) is made again, and a failure is a thrown ``SystemCallError`` naming the call and its
/// `errno`, not a `-1` and a global to read before anything else overwrites it. Memory handed to
/// a call is the caller's buffer, alive for the call.
package enum Posix {
    // MARK: Files

    /// `open(2)` of `path`, close-on-exec always: no probe child inherits the descriptor.
    package static func open(_ path: String, _ flags: Int32) throws(SystemCallError) -> Int32 {
        try retrying("open") { Glibc.open(path, flags | O_CLOEXEC) }
    }

    /// `open(2)` of `path` with `O_CREAT` among `flags`: a file made has `mode`. Close-on-exec always.
    package static func open(_ path: String, _ flags: Int32, mode: mode_t) throws(SystemCallError) -> Int32 {
        try retrying("open") { Glibc.open(path, flags | O_CLOEXEC, mode) }
    }

    /// `close(2)`. Not retried: on Linux the descriptor is released even when `close` says `EINTR`,
    /// and a second call could close a descriptor another thread has just been given.
    package static func close(_ descriptor: Int32) {
        _ = Glibc.close(descriptor)
    }

    /// `fstat(2)` of an open descriptor.
    static func fstat(_ descriptor: Int32) throws(SystemCallError) -> stat {
        var info = Glibc.stat()
        guard Glibc.fstat(descriptor, &info) == 0 else { throw .last("fstat") }
        return info
    }

    /// `stat(2)` (symlinks followed) or `lstat(2)` (the entry itself) of `path`.
    static func stat(_ path: String, followingSymlinks: Bool) throws(SystemCallError) -> stat {
        var info = Glibc.stat()
        if followingSymlinks {
            guard statFollowing(path, &info) == 0 else { throw .last("stat") }
        } else {
            guard lstat(path, &info) == 0 else { throw .last("lstat") }
        }
        return info
    }

    /// Up to `count` bytes of the file at `offset` (`pread(2)`); fewer at its end.
    package static func pread(_ descriptor: Int32, offset: Int, count: Int) throws(SystemCallError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let got = bytes.withUnsafeMutableBytes { buffer in
            Result { () throws(SystemCallError) in
                try retrying("pread") { Glibc.pread(descriptor, buffer.baseAddress, count, off_t(offset)) }
            }
        }
        return Array(bytes.prefix(try got.get()))
    }

    /// Every byte of the file at `path`, read to its end (a file of `/proc` says its size is 0).
    static func readWhole(_ path: String) throws(SystemCallError) -> [UInt8] {
        let descriptor = try open(path, O_RDONLY)
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let got = try chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(SystemCallError) in try read(descriptor, into: buffer) }
            }.get()
            if got == 0 { return bytes }
            bytes += chunk.prefix(got)
        }
    }

    /// `read(2)` into `buffer`: how many bytes came (0 at the end of the file or pipe).
    package static func read(_ descriptor: Int32, into buffer: UnsafeMutableRawBufferPointer) throws(SystemCallError) -> Int {
        try retrying("read") { Glibc.read(descriptor, buffer.baseAddress, buffer.count) }
    }

    /// `write(2)` of the `count` bytes at `address`: how many were written. The kernel checks the
    /// address: one the process cannot read is `EFAULT`, never a signal (``ForeignMemory`` relies on it).
    package static func write(_ descriptor: Int32, from address: UnsafeRawPointer, count: Int) throws(SystemCallError) -> Int {
        try retrying("write") { Glibc.write(descriptor, address, count) }
    }

    /// A pipe whose two ends are close-on-exec. (Swift's Glibc module lacks `pipe2`: a child forked
    /// between the two calls inherits the pipe, which nobody waits on.)
    package static func pipe() throws(SystemCallError) -> (read: Int32, write: Int32) {
        var ends: [Int32] = [-1, -1]
        guard Glibc.pipe(&ends) == 0 else { throw .last("pipe") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }

    // MARK: Paths

    /// `realpath(3)`: the canonical path of `path`, as the bytes the system holds (they need not be UTF-8).
    package static func realpath(_ path: String) throws(SystemCallError) -> [UInt8] {
        // realpath mallocs the NUL-terminated result: copied, then freed.
        guard let resolved = Glibc.realpath(path, nil) else { throw .last("realpath") }
        defer { free(resolved) }
        return UnsafeBufferPointer(start: resolved, count: strlen(resolved)).map { UInt8(bitPattern: $0) }
    }

    /// `readlink(2)`: the bytes the symlink at `path` holds.
    static func readlink(_ path: String) throws(SystemCallError) -> [UInt8] {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = Glibc.readlink(path, &buffer, buffer.count)
        guard count >= 0 else { throw .last("readlink") }
        return buffer.prefix(count).map { UInt8(bitPattern: $0) }
    }

    /// `getcwd(3)`: the current folder, as bytes.
    static func currentDirectory() throws(SystemCallError) -> [UInt8] {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { throw .last("getcwd") }
        return buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    }

    /// The names in the folder at `path` (`opendir(3)`, `readdir(3)`), as bytes, `.` and `..` included.
    package static func directoryEntries(_ path: String) throws(SystemCallError) -> [[UInt8]] {
        guard let stream = opendir(path) else { throw .last("opendir") }
        defer { closedir(stream) }
        var names: [[UInt8]] = []
        while let entry = readdir(stream) {
            // `entry` is readdir's, valid until the next readdir; `d_name` is read within its own size.
            names.append(withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) })
        }
        return names
    }

    /// The paths `glob(3)` finds for `pattern`, sorted; none if it finds none or fails.
    static func glob(_ pattern: String) -> [String] {
        var result = glob_t()
        defer { globfree(&result) }
        guard Glibc.glob(pattern, 0, nil, &result) == 0 else { return [] }
        return (0..<Int(result.gl_pathc)).compactMap { result.gl_pathv[$0].map { String(cString: $0) } }.sorted()
    }

    /// `mkdir(2)` of `path` with `mode` (whatever the umask); anything already there is an error.
    /// A folder that cannot be given `mode` is removed again.
    static func makeNewFolder(_ path: String, mode: mode_t) throws(SystemCallError) {
        guard mkdir(path, mode) == 0 else { throw .last("mkdir") }
        guard chmod(path, mode) == 0 else {
            let error = SystemCallError.last("chmod")
            rmdir(path)
            throw error
        }
    }

    /// `mkdir(2)` of `path` with `mode`; a folder already there is no error.
    static func makeFolder(_ path: String, mode: mode_t) throws(SystemCallError) {
        if mkdir(path, mode) == 0 {
            // `mkdir` takes the umask off the mode; the folder gets it whole.
            guard chmod(path, mode) == 0 else { throw .last("chmod") }
        } else if errno != EEXIST {
            throw .last("mkdir")
        }
    }

    /// `fchmod(2)`: gives the open file `mode`.
    static func setMode(of descriptor: Int32, _ mode: mode_t) throws(SystemCallError) {
        guard fchmod(descriptor, mode) == 0 else { throw .last("fchmod") }
    }

    /// Whether the file system holding `path` is mounted without permission to run or map code from
    /// it (`statvfs(3)`'s `ST_NOEXEC`).
    static func isMountedNoExec(_ path: String) throws(SystemCallError) -> Bool {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { throw .last("statvfs") }
        let noExec: UInt = 8  // ST_NOEXEC of <sys/statvfs.h>, an enum Swift does not import
        return info.f_flag & noExec != 0
    }

    /// Copies what is left to read of `source`, up to `limit` bytes, to `destination`, both open
    /// descriptors; returns how many bytes it copied (one more than `limit` if there was more).
    package static func copy(from source: Int32, to destination: Int32, atMost limit: Int) throws(SystemCallError) -> Int {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 18, alignment: 16)
        defer { buffer.deallocate() }
        // The buffer is this call's own, allocated above and alive until it returns.
        guard let base = buffer.baseAddress else { return 0 }
        var total = 0
        while true {
            let got = try read(source, into: buffer)
            if got == 0 { return total }
            if total + got > limit { return limit + 1 }
            var written = 0
            while written < got {
                written += try write(destination, from: base + written, count: got - written)
            }
            total += got
        }
    }

    /// Copies the first `size` bytes of `source` but those in `skipped` (sorted, apart) to `destination`,
    /// each at its offset (`pread(2)`, `pwrite(2)`), and makes `destination` `size` bytes long: what
    /// was skipped reads as zeros there, a hole that takes no room. Returns how many bytes were copied:
    /// fewer than asked if `source` ended early.
    package static func copy(from source: Int32, to destination: Int32, size: Int,
                             skipping skipped: [Range<Int>]) throws(SystemCallError) -> Int {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 18, alignment: 16)
        defer { buffer.deallocate() }
        // The buffer is this call's own, allocated above and alive until it returns.
        guard let base = buffer.baseAddress else { return 0 }
        var copied = 0, next = 0
        // The bytes before each skipped range, then those after the last.
        for range in skipped + [size..<size] {
            var position = next
            while position < min(range.lowerBound, size) {
                let count = min(buffer.count, min(range.lowerBound, size) - position)
                let got = try retrying("pread") { Glibc.pread(source, base, count, off_t(position)) }
                if got == 0 { return copied }
                var written = 0
                while written < got {
                    written += try retrying("pwrite") { Glibc.pwrite(destination, base + written, got - written, off_t(position + written)) }
                }
                position += got
                copied += got
            }
            next = max(next, range.upperBound)
        }
        _ = try retrying("ftruncate") { Glibc.ftruncate(destination, off_t(size)) }
        return copied
    }

    // MARK: The process

    /// The environment variable `name`, if it is set.
    package static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// Removes `name` from the environment (`unsetenv(3)`).
    package static func removeEnvironment(_ name: String) {
        unsetenv(name)
    }

    /// This process's id (`getpid(2)`, which cannot fail).
    static var processID: Int32 { getpid() }

    /// Whether a process `process` exists (`kill(2)` with signal 0: `ESRCH` if none does).
    package static func isRunning(_ process: Int32) -> Bool {
        Glibc.kill(process, 0) == 0 || errno != ESRCH
    }

    /// The effective user id (`geteuid(2)`, which cannot fail).
    static var effectiveUser: uid_t { geteuid() }

    /// The size of a memory page, at least 4096.
    static var pageSize: Int { max(4096, sysconf(Int32(_SC_PAGESIZE))) }

    /// The system's name for `signal` (`strsignal(3)`).
    package static func signalName(_ signal: Int32) -> String {
        strsignal(signal).map { String(cString: $0) } ?? "signal \(signal)"
    }

    /// Sends `signal` to the process `process` (`kill(2)`).
    package static func kill(_ process: pid_t, _ signal: Int32) throws(SystemCallError) {
        guard Glibc.kill(process, signal) == 0 else { throw .last("kill") }
    }

    // MARK: -

    /// `call()`, made again while it fails with `EINTR`; a result below 0 is thrown with its `errno`.
    static func retrying<T: BinaryInteger>(_ name: StaticString, _ call: () -> T) throws(SystemCallError) -> T {
        while true {
            let result = call()
            if result >= 0 { return result }
            if errno != EINTR { throw .last(name) }
        }
    }
}

// The C function that shares its name with a C struct: `Glibc.stat(...)` names the struct, so the
// call is made here, where the bare name finds the function.

private func statFollowing(_ path: String, _ info: inout stat) -> Int32 {
    stat(path, &info)
}
