import Glibc

/// Which file a path named when discovery read it, and which contents: its device and inode, its
/// size and its modification time. Two reads of one path with different identities are two files
/// (renamed over the old one) or new contents written into the old one.
package struct FileIdentity: Sendable, Hashable, Codable {
    package let device: UInt64
    package let inode: UInt64
    package let size: Int64
    let modifiedSeconds: Int64
    let modifiedNanoseconds: Int64

    package init(_ info: stat) {
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modifiedSeconds = Int64(info.st_mtim.tv_sec)
        modifiedNanoseconds = Int64(info.st_mtim.tv_nsec)
    }

    /// True if both name one file (device and inode), whatever its contents.
    func isSameFile(as other: FileIdentity) -> Bool {
        device == other.device && inode == other.inode
    }
}
