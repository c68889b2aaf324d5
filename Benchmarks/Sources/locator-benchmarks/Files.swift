import Glibc

/// The few file operations the generated-plugin cases need, failing the run on any error (a case whose
/// files cannot be written measures nothing).
enum Files {
    /// `$TMPDIR`, or `/tmp`.
    static var temporaryRoot: String {
        getenv("TMPDIR").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    }

    /// A new, empty folder under the temporary root, named after `prefix`.
    static func makeTemporaryDirectory(_ prefix: String) -> String {
        var template = Array("\(temporaryRoot)/\(prefix)-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ $0.baseAddress.flatMap { mkdtemp($0) } }) else {
            fail("mkdtemp: \(String(cString: strerror(errno)))")
        }
        return String(cString: made)
    }

    /// Makes `folder`; it must not exist yet unless `existing` is allowed.
    static func makeDirectory(_ folder: String, existing: Bool = false) {
        guard mkdir(folder, 0o755) == 0 || (existing && errno == EEXIST) else {
            fail("mkdir \(folder): \(String(cString: strerror(errno)))")
        }
    }

    static func read(_ path: String) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { fail("open \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
        }
        return bytes
    }

    /// Writes `bytes` to `path`, a new file or one truncated first.
    static func write(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o755) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard descriptor >= 0 else { fail("create \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else { fail("write \(path): \(String(cString: strerror(errno)))") }
    }

    /// Writes `text` unless the file already holds it, so that a build of the folder stays up to date.
    static func writeIfChanged(_ path: String, _ text: String) {
        if access(path, R_OK) == 0, read(path) == Array(text.utf8) { return }
        write(path, Array(text.utf8), mode: 0o644)
    }

    /// Writes `bytes` to a new file beside `path`, then renames it over `path`: how a new version is
    /// deployed (a new file, a new inode; a reader of the old one keeps the old one).
    static func install(_ bytes: [UInt8], over path: String) {
        let staged = "\(path).staged"
        write(staged, bytes)
        guard rename(staged, path) == 0 else { fail("rename \(staged): \(String(cString: strerror(errno)))") }
    }

    static func removeTree(_ folder: String) {
        _ = system("rm -rf '\(folder)'")
    }

    /// The names of the entries of `folder`.
    static func names(in folder: String) -> [String] {
        guard let directory = opendir(folder) else { fail("opendir \(folder): \(String(cString: strerror(errno)))") }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            names.append(withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) })
        }
        return names
    }

    /// Every file under `folder`, as a path relative to it, its folders walked into (hidden entries,
    /// such as `.build`, left out).
    static func files(under folder: String, prefix: String = "") -> [String] {
        names(in: folder).filter { !$0.hasPrefix(".") }.flatMap { name -> [String] in
            var status = stat()
            guard stat(folder + "/" + name, &status) == 0 else { return [] }
            return status.st_mode & S_IFMT == S_IFDIR ? files(under: folder + "/" + name, prefix: prefix + name + "/") : [prefix + name]
        }
    }

    /// The size of the file at `path` in bytes.
    static func size(_ path: String) -> Int {
        var status = stat()
        guard stat(path, &status) == 0 else { fail("stat \(path): \(String(cString: strerror(errno)))") }
        return Int(status.st_size)
    }
}
