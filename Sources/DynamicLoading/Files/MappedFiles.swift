/// The files this process has mapped, as the kernel says (`/proc/self/maps`): by path, the device and
/// inode of the file each mapping was made from. The loader maps a library by opening its path, and a
/// file renamed over that path after the host checked it is another inode: this tells them apart.
package enum MappedFiles {
    /// The device and inode each of `paths` is mapped from, for those mapped; empty if the kernel's
    /// list cannot be read.
    package static func files(at paths: Set<String>) -> [String: (device: UInt64, inode: UInt64)] {
        guard !paths.isEmpty, let bytes = try? Posix.readWhole("/proc/self/maps") else { return [:] }
        var found: [String: (device: UInt64, inode: UInt64)] = [:]
        for line in bytes.split(separator: UInt8(ascii: "\n")) {
            // address perms offset major:minor inode, then spaces, then the path (which may hold spaces).
            let fields = line.split(separator: UInt8(ascii: " "), maxSplits: 5, omittingEmptySubsequences: true)
            guard fields.count == 6 else { continue }
            let path = String(decoding: fields[5].drop { $0 == UInt8(ascii: " ") }, as: UTF8.self)
            guard paths.contains(path), found[path] == nil else { continue }
            let numbers = fields[3].split(separator: UInt8(ascii: ":"))
            guard numbers.count == 2, let major = UInt64(String(decoding: numbers[0], as: UTF8.self), radix: 16),
                  let minor = UInt64(String(decoding: numbers[1], as: UTF8.self), radix: 16),
                  let inode = UInt64(String(decoding: fields[4], as: UTF8.self))
            else { continue }
            found[path] = (device(major: major, minor: minor), inode)
        }
        return found
    }

    /// glibc's `makedev`: the `st_dev` of a device numbered `major`:`minor`.
    package static func device(major: UInt64, minor: UInt64) -> UInt64 {
        ((major & 0xFFFF_F000) << 32) | ((major & 0x0000_0FFF) << 8) | ((minor & 0xFFFF_FF00) << 12) | (minor & 0x0000_00FF)
    }
}
