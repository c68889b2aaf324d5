import Glibc

/// The parts of `stat` that discovery looks at.
struct FileStatus {
    let mode: mode_t
    let owner: uid_t

    /// The file or folder at `path`, symlinks followed.
    init?(_ path: String) {
        self.init(path, following: true)
    }

    /// The entry at `path` itself: a symlink is not followed.
    init?(linkAt path: String) {
        self.init(path, following: false)
    }

    private init?(_ path: String, following: Bool) {
        var info = stat()
        guard (following ? stat(path, &info) : lstat(path, &info)) == 0 else { return nil }
        mode = info.st_mode
        owner = info.st_uid
    }

    var isRegularFile: Bool { mode & S_IFMT == S_IFREG }
    var isSymlink: Bool { mode & S_IFMT == S_IFLNK }
    var isDirectory: Bool { mode & S_IFMT == S_IFDIR }

    var kind: String {
        switch mode & S_IFMT {
        case S_IFDIR: "a directory"
        case S_IFCHR, S_IFBLK: "a device"
        case S_IFIFO: "a pipe"
        case S_IFSOCK: "a socket"
        default: "not a regular file"
        }
    }
}
