internal import DynamicLoading
import Glibc

/// A file the operator gives the host to steer plugins (a digest list, the plugins' settings): read
/// whole, from one opening, only if it is trusted as plugin files are (it and its folders up to `/`
/// changeable only by this user or root, ``PathTrust``): whoever could write it would choose which
/// files load, or what a plugin connects to.
enum OperatorFile {
    /// Why the file cannot be used, as the end of a sentence that begins with its path.
    struct Unreadable: Error {
        let reason: String
    }

    /// The bytes of the file at `path` (absolute): a regular file (a FIFO would block the host at start
    /// and at each reload) of at most `largest` bytes (a huge one would fill its memory), else
    /// `tooLarge` is the reason.
    static func bytes(at path: String, largest: Int, tooLarge: String) throws(Unreadable) -> [UInt8] {
        let unreadable = { (reason: String) in Unreadable(reason: reason) }
        guard FileStatus(path) != nil else { throw unreadable("does not exist") }
        if let problem = PathTrust.problem(path) {
            // Without the hint a plugin file's refusal ends with: nothing lets an untrusted operator file in.
            let hint = "; " + PathTrust.allowance
            let reason = problem.hasSuffix(hint) ? String(problem.dropLast(hint.count)) : problem
            throw unreadable("is refused, \(reason)")
        }
        let descriptor: Int32
        do {
            descriptor = try Posix.open(path, O_RDONLY | O_NONBLOCK)
        } catch {
            throw unreadable("cannot be read: \(error.reason)")
        }
        defer { Posix.close(descriptor) }
        guard let status = try? FileStatus(descriptor: descriptor) else { throw unreadable("cannot be read") }
        guard status.isRegularFile else { throw unreadable("cannot be read: not a regular file (\(status.kind))") }
        guard status.identity.size <= largest else { throw unreadable(tooLarge) }
        var bytes: [UInt8] = []
        while bytes.count <= largest {
            let piece: [UInt8]
            do {
                piece = try Posix.pread(descriptor, offset: bytes.count, count: 1 << 16)
            } catch {
                throw unreadable("cannot be read: \(error.reason)")
            }
            if piece.isEmpty { return bytes }
            bytes += piece
        }
        throw unreadable(tooLarge)
    }
}
