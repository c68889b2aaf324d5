import Glibc

/// Whether anyone but this user or root could change which file a path leads to, or the file itself:
/// ssh's StrictModes, for every folder from `/` down and for every symlink on the way.
///
/// The path is followed one name at a time, as the kernel does: each folder passed through, each
/// symlink and each folder on the way to its target, and the file at the end. Each must belong to
/// this user or root, and no folder or file may be writable by its group or by others, since
/// whoever may write a folder may rename its entries and put others in their place. One exception,
/// the one that keeps `/tmp` usable: a folder with the sticky bit lets others add entries but not
/// rename or remove those they do not own, so it is passed through when the entry taken in it
/// belongs to this user or root (which is checked as that entry's own step).
package enum PathTrust {
    /// How every reason ends: the option that lets such a file in. HostKit's
    /// `PluginLoadError.allowedBy` knows a reason of this walk by it, also inside a library's refusal.
    package static let allowance = "PluginDiscovery.allowUntrusted loads it anyway"

    /// Linux's limit on symlinks followed in one path (MAXSYMLINKS).
    private static let maximumLinks = 40

    /// Why others could change what the absolute `path` leads to, or `nil` if only this user or root can.
    package static func problem(_ path: String) -> String? {
        let root: FileStatus
        do {
            root = try FileStatus(linkAt: "/")
        } catch {
            return "/ cannot be checked: \(error.reason)"
        }
        if let reason = untrustedReason(root, path: "/") { return reason }
        // The names still to follow, the next one last. Split and joined as bytes, as the kernel
        // reads a path: a `/` followed by a combining character is one Swift Character, which a split
        // on Characters would not cut, leaving a folder unchecked.
        var pending = names(path).reversed() as [String]
        // The real folder reached so far ("" for "/"): every folder in it was checked on the way.
        var current = ""
        var links = 0
        while let name = pending.popLast() {
            if name.utf8.elementsEqual(".".utf8) { continue }
            if name.utf8.elementsEqual("..".utf8) {
                let parent = current.utf8.lastIndex(of: slash) ?? current.utf8.startIndex
                current = String(decoding: current.utf8[..<parent], as: UTF8.self)
                continue
            }
            let next = current + "/" + name
            let status: FileStatus
            do {
                status = try FileStatus(linkAt: next)
            } catch {
                return "\(next) cannot be checked: \(error.reason)"
            }
            guard status.isSymlink else {
                if let reason = untrustedReason(status, path: next) { return reason }
                current = next
                continue
            }
            // A symlink's own mode means nothing; whoever owns it may replace it where the folder is sticky.
            if let reason = ownerReason(status, path: next, kind: "symlink") { return reason }
            links += 1
            guard links <= maximumLinks else { return "symlink \(next) cannot be followed: too many symlinks" }
            let target: [UInt8]
            do {
                target = try Posix.readlink(next)
            } catch {
                return "symlink \(next) cannot be followed: \(error.reason)"
            }
            // Decoding would replace the bytes that are not UTF-8, and the walk would check another
            // name than the one the kernel follows.
            guard let target = String(validating: target, as: UTF8.self) else {
                return "symlink \(next) points at a name that is not UTF-8, which cannot be checked"
            }
            if target.utf8.first == slash { current = "" }
            pending += names(target).reversed()
        }
        return nil
    }

    private static let slash = UInt8(ascii: "/")

    /// The names of `path` between its `/` bytes, empty ones left out.
    private static func names(_ path: String) -> [String] {
        path.utf8.split(separator: slash).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Why someone else than its owner could change the file or folder at `path` (whose status is
    /// `status`), if they could.
    private static func untrustedReason(_ status: FileStatus, path: String) -> String? {
        let what = status.isDirectory ? "folder" : "file"
        let sticky = status.isDirectory && status.mode & S_ISVTX != 0
        if status.mode & (S_IWGRP | S_IWOTH) != 0 && !sticky {
            return "\(what) \(path) is writable by \(status.mode & S_IWOTH != 0 ? "others" : "its group")"
                + " (mode \(String(status.mode & 0o7777, radix: 8)), owner \(status.owner)); \(allowance)"
        }
        return ownerReason(status, path: path, kind: what)
    }

    /// Why the file, folder or symlink at `path` does not belong to this user or root, if it does not.
    private static func ownerReason(_ status: FileStatus, path: String, kind: String) -> String? {
        let me = Posix.effectiveUser
        guard status.owner != me && status.owner != 0 else { return nil }
        return "\(kind) \(path) is owned by user \(status.owner), not by this user (\(me)) or root"
            + "; \(allowance)"
    }
}
