import Glibc

/// The parts of `stat` that discovery looks at.
package struct FileStatus {
    package let mode: mode_t
    package let owner: uid_t
    /// The file and its contents, as far as `stat` tells them apart.
    package let identity: FileIdentity

    /// The file or folder at `path`, symlinks followed; `nil` if there is none or it cannot be read.
    package init?(_ path: String) {
        try? self.init(at: path, followingSymlinks: true)
    }

    /// The entry at `path` itself (a symlink is not followed) or why it cannot be read.
    package init(linkAt path: String) throws(SystemCallError) {
        try self.init(at: path, followingSymlinks: false)
    }

    /// The file open as `descriptor`.
    package init(descriptor: Int32) throws(SystemCallError) {
        self.init(try Posix.fstat(descriptor))
    }

    private init(at path: String, followingSymlinks: Bool) throws(SystemCallError) {
        self.init(try Posix.stat(path, followingSymlinks: followingSymlinks))
    }

    private init(_ info: stat) {
        mode = info.st_mode
        owner = info.st_uid
        identity = FileIdentity(info)
    }

    package var isRegularFile: Bool { mode & S_IFMT == S_IFREG }
    var isSymlink: Bool { mode & S_IFMT == S_IFLNK }
    package var isDirectory: Bool { mode & S_IFMT == S_IFDIR }

    package var kind: String {
        switch mode & S_IFMT {
        case S_IFDIR: "a directory"
        case S_IFCHR, S_IFBLK: "a device"
        case S_IFIFO: "a pipe"
        case S_IFSOCK: "a socket"
        default: "not a regular file"
        }
    }
}
