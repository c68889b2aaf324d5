import Foundation
import Glibc

/// A folder only this host's user can write, into which a load copies every file it will map: each
/// plugin file and each library it brings. The checks read the copy, and `dlopen` maps the copy, so
/// the code that runs is the very bytes that were checked: a file written into, renamed over or
/// swapped after the check (by an operator's `cp` over a served plugin, say) cannot reach an image,
/// whose pages the kernel may read from its file at any time. (As ASP.NET's shadow copies do.)
///
/// A file is copied to the folder's root followed by its own absolute path (`/srv/plugins/a.so` to
/// `ROOT/srv/plugins/a.so`), so the copies lie to each other as the originals do: `$ORIGIN`, and a
/// run path such as `$ORIGIN/../lib`, lead from one copy to the others (``LibraryClosure`` copies each
/// library where the loader will look for it). Each load has a folder of its own, removed when the
/// load is done: a mapped file stays mapped after its name is removed, and a library a later load
/// needs is matched by its name among the loaded objects, never looked for again. The folder is made
/// when a load first needs it (its first copy, a probe or a child's folder inside it): a reload that
/// finds nothing changed makes none (on ext4, making and removing it was most of such a reload).
///
/// What it costs: the bytes of every file copied, once per load that maps it (a file unchanged since
/// it was opened is not copied again). On a disk these are ordinary file pages; on a `tmpfs` they are
/// memory, kept as long as the image is mapped (for the process, as plugins are never unloaded). So a
/// copy leaves out what nothing reads of it once its folder is gone (a plugin's debugging information
/// and static symbol table, often most of a debug build's file), unless an operator's file check,
/// which may read every byte, is in force. (A debugger or crash reporter finds no file at the copy's
/// path then either: the folder is removed once the load is done.)
package final class ShadowFolder: Sendable {
    /// The folder: a real path, with a name no other process can foretell, made (mode 0700) when
    /// first needed (``create()``) if this process makes it.
    package let root: String
    /// What was copied in this folder: the copy of each original path, by its normalized path.
    private let copies = Lock<[String: (image: String, identity: FileIdentity)]>([:])
    /// Whether this process makes the folder (and removes it): a probe child uses its parent's.
    private let owned: Bool
    /// Whether ``create()`` made it: until then, nothing is in it, nor is there anything to remove.
    private let created = Lock(false)
    /// Whether every copy holds every byte of its file: for a load with an operator's file check (a
    /// digest list, say), which may read or hash any byte of a copy, and in a folder another process
    /// made (a whole copy serves every reader). Else a copy leaves out what nothing reads of it.
    package let copiesWhole: Bool

    /// Every folder this process made or used, so that a path of a loaded copy can be told by its
    /// original name in reports, long after the folder is gone.
    private static let roots = Lock<[String]>([])
    /// The folders this process made and has not removed: what ``existing(_:)`` hands back.
    private static let live = Lock<[String: ShadowFolder]>([:])

    private init(root: String, owned: Bool, copiesWhole: Bool = true) {
        self.root = root
        self.owned = owned
        self.copiesWhole = copiesWhole
        Self.roots.withLock { roots in if !roots.contains(root) { roots.append(root) } }
    }

    /// The folder's parent when no other is given: `TMPDIR` if it is an absolute path, else `/tmp`.
    static var defaultParent: String {
        Posix.environment("TMPDIR").flatMap { $0.hasPrefix("/") ? $0 : nil } ?? "/tmp"
    }

    /// A new folder in `parent` (``defaultParent`` if `nil`), made when first needed, or why there
    /// cannot be one there: the parent is not a folder, or its file system is mounted without
    /// permission to map code (`noexec`), or (if `checkingParent`) others than this user or root
    /// could change the path to it. A parent this process may not write in is found at the first
    /// copy, which is refused naming the folder. Its copies hold every byte of their files if
    /// `copiesWhole`.
    package static func make(in parent: String?, checkingParent: Bool = true,
                             copiesWhole: Bool = true) -> Result<ShadowFolder, Unusable> {
        let parent = parent ?? defaultParent
        let unusable = { (reason: String) in Unusable(path: parent, reason: reason) }
        guard parent.hasPrefix("/") else { return .failure(unusable("it is not an absolute path")) }
        // Whoever may write the parent may rename the folder away and put another in its place: the
        // same rule as for a plugin's folders (a sticky folder such as /tmp is fine).
        if checkingParent, let reason = PathTrust.problem(parent) {
            return .failure(unusable(reason.replacing("; " + PathTrust.allowance, with: "")))
        }
        let prefix = (parent.hasSuffix("/") ? parent : parent + "/") + namePrefix
        // Once per folder and process (a host killed meanwhile leaves its folder to the next host's
        // first): a scan of a busy /tmp (4,000 entries here) cost 1.5 ms of every load's start-up.
        if swept.withLock({ $0.insert(prefix).inserted }) { removeLeftovers(prefix) }
        // A folder made in the parent is on the parent's file system (it cannot be a mount point).
        guard let realParent = Paths.realPath(parent), FileStatus(realParent)?.isDirectory == true else {
            return .failure(unusable("a folder cannot be made in it: it is no folder, or cannot be read"))
        }
        do {
            if try Posix.isMountedNoExec(realParent) {
                return .failure(unusable("its file system is mounted noexec, so no code may be mapped from it"))
            }
        } catch {
            return .failure(unusable("its file system cannot be read: \(error.reason)"))
        }
        // As unforeseeable as `mkdtemp`'s, whose name is chosen as it makes the folder: this one is
        // handed out before (a reload that finds nothing changed never makes it).
        let name = namePrefix + "\(Posix.processID)-" + String(UInt64.random(in: 0 ... .max), radix: 36)
        let real = (realParent.hasSuffix("/") ? realParent : realParent + "/") + name
        let folder = ShadowFolder(root: real, owned: true, copiesWhole: copiesWhole)
        live.withLock { $0[real] = folder }
        return .success(folder)
    }

    /// The folders (with ``namePrefix``) this process removed the leftovers of.
    private static let swept = Lock<Set<String>>([])

    /// How the name of every such folder starts; the process that made it follows, then a dash.
    package static let namePrefix = "swift-plugin-host-"

    /// Removes the folders named `prefix` + a process number + `-…` whose process is gone and that
    /// belong to this user: left by a host that was killed while it loaded.
    private static func removeLeftovers(_ prefix: String) {
        for folder in Posix.glob(prefix + "*-*") {
            let number = folder.dropFirst(prefix.count).prefix { $0 != "-" }
            guard let process = Int32(number), process != Posix.processID, !Posix.isRunning(process),
                  let status = try? FileStatus(linkAt: folder), status.isDirectory, status.owner == Posix.effectiveUser
            else { continue }
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    /// The folder at `root`: the one this process made, or one another process of this host made (a
    /// probe child's parent), whose copies are removed with it, by that process.
    package static func existing(_ root: String) -> ShadowFolder {
        live.withLock { $0[root] } ?? ShadowFolder(root: root, owned: false)
    }

    /// Makes the folder (mode 0700, whatever the umask) unless it is made already or another process
    /// makes it (a probe child's parent). A folder at its path that this process did not make is
    /// an error, never used: someone else's.
    package func create() throws(SystemCallError) {
        guard owned else { return }
        let outcome = created.withLock { created -> Result<Void, SystemCallError> in
            guard !created else { return .success(()) }
            do throws(SystemCallError) {
                try Posix.makeNewFolder(root, mode: 0o700)
            } catch {
                return .failure(error)
            }
            created = true
            return .success(())
        }
        try outcome.get()
    }

    /// Where the copy of the file at the absolute path `original` lies (or will lie).
    package func image(of original: String) -> String {
        root + Paths.normalized(original)
    }

    /// The original path of `path` if it lies in this folder: a folder or file of a copy.
    package func original(ofPathInside path: String) -> String? {
        let path = Paths.normalized(path)
        guard path == root || path.hasPrefix(root + "/") else { return nil }
        let rest = String(path.dropFirst(root.count))
        return rest.isEmpty ? "/" : rest
    }

    /// `path` as the file it was copied from, if it lies in a folder this process made or used.
    package static func original(of path: String) -> String {
        roots.withLock { roots in
            roots.lazy.compactMap { root in path.hasPrefix(root + "/") ? String(path.dropFirst(root.count)) : nil }.first
        } ?? path
    }

    /// `text` (a loader's message, say) with every path of a copy written as its original.
    package static func originals(in text: String) -> String {
        roots.withLock { roots in roots.reduce(text) { $0.replacing($1 + "/", with: "/") } }
    }

    /// Copies the regular file at the real path `real` to ``image(of:)`` of `original` (the path it
    /// is known by: the real path, or the path a library was found at) and returns the copy and the
    /// identity of the file copied. Copied once per folder: a second call returns the first copy.
    /// Refused if the file is not the one `expected` (another was put at its path since it was
    /// checked), or if it changed while it was copied (a write in progress: the next load reads it
    /// again). Unless the folder ``copiesWhole``, the copy leaves out the bytes nothing reads of it
    /// (``ELFCheck/unreadRanges(_:fileSize:)``: debugging information, the static symbol table), as
    /// holes of zeros.
    package func copy(_ real: String, as original: String,
                      expected: FileIdentity? = nil) throws(Refusal) -> (image: String, identity: FileIdentity) {
        let image = self.image(of: original)
        if let known = copies.withLock({ $0[image] }) { return known }
        let source: Int32
        do {
            source = try Posix.open(real, O_RDONLY | O_NOFOLLOW)
        } catch {
            throw Refusal(reason: "cannot be read: \(error.reason)")
        }
        defer { Posix.close(source) }
        guard let info = try? Posix.fstat(source) else { throw Refusal(reason: "cannot be read: fstat failed") }
        guard info.st_mode & S_IFMT == S_IFREG else { throw Refusal(reason: "not a regular file") }
        let before = FileIdentity(info)
        if let expected, !before.isSameFile(as: expected) {
            throw Refusal(reason: "another file was put at its path while it was checked")
        }
        do {
            try create()
        } catch where error.code == EEXIST {
            throw Refusal(reason: "a folder this host did not make is at the path of its folder of copies, \(root): nothing is copied there")
        } catch {
            throw Refusal(reason: "its folder of copies \(root) cannot be made: \(error.reason) (name another folder for the copies)")
        }
        do {
            try makeFolders(to: image)
        } catch {
            throw Refusal(reason: "its copy's folder cannot be made in \(root): \(error.reason)")
        }
        let destination: Int32
        do {
            destination = try Posix.open(image, O_WRONLY | O_CREAT | O_EXCL, mode: 0o500)
        } catch where error.code == EEXIST {
            // Copied in this load by another process of this host (a probe child, or its parent): the
            // folder is this user's alone (mode 0700, in a folder only this user or root may rename
            // it out of).
            return (image, before)
        } catch {
            throw Refusal(reason: "cannot be copied to \(root): \(error.reason)")
        }
        let copied: Int, after: FileIdentity?
        do {
            // Read and run by this user only, whatever the umask; never more than the file had.
            try Posix.setMode(of: destination, 0o500)
            let skipped = copiesWhole ? [] : ELFCheck.unreadRanges(source, fileSize: Int(before.size))
            if skipped.isEmpty {
                copied = try Posix.copy(from: source, to: destination, atMost: Int(before.size))
            } else {
                // Counted as the whole file once every byte between the holes came.
                let expected = Int(before.size) - skipped.reduce(0) { $0 + $1.count }
                let got = try Posix.copy(from: source, to: destination, size: Int(before.size), skipping: skipped)
                copied = got == expected ? Int(before.size) : got
            }
            Posix.close(destination)
            after = (try? Posix.fstat(source)).map(FileIdentity.init)
        } catch {
            Posix.close(destination)
            unlink(image)
            throw Refusal(reason: "cannot be copied to \(root): \(error.reason)")
        }
        guard after == before, Int64(copied) == before.size else {
            unlink(image)
            throw Refusal(reason: "it changed while it was read (a write in progress?); it is read again at the next load")
        }
        copies.withLock { $0[image] = (image, before) }
        return (image, before)
    }

    /// Why no folder of copies can be made in `path`.
    package struct Unusable: Error {
        package let path: String
        package let reason: String
    }

    /// Why a file cannot be copied.
    package struct Refusal: Error {
        package let reason: String
    }

    /// Removes the folder and every copy in it, if this process made it. Mapped copies stay mapped.
    package func remove() {
        guard owned else { return }
        Self.live.withLock { $0[root] = nil }
        guard created.withLock({ $0 }) else { return }
        try? FileManager.default.removeItem(atPath: root)
    }

    /// Makes the folders on the way to `image`, below ``root``, each readable by this user only.
    private func makeFolders(to image: String) throws(SystemCallError) {
        var folder = root
        for part in image.dropFirst(root.count).split(separator: "/").dropLast() {
            folder += "/" + part
            try Posix.makeFolder(folder, mode: 0o700)
        }
    }
}
