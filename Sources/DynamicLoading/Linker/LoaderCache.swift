import Glibc

/// What glibc's `/etc/ld.so.cache` (the `ldconfig` cache, format `glibc-ld.so.cache1.1`) says of a
/// library name: where the dynamic linker takes a library that no run path folder holds, before its
/// default folders. Read once, as the loader reads it when it first needs it.
///
/// Modelled: a name with exactly one entry for this machine (flags `libc6` and this architecture)
/// and no hardware capability: the loader opens that path. Refused: a name with several such entries
/// or one for hardware capabilities (the loader's choice then depends on the processor), and any
/// name while the cache exists but cannot be read as this format.
package enum LoaderCache {
    /// The cache's file.
    package static let path = "/etc/ld.so.cache"

    #if arch(x86_64)
    /// `FLAG_ELF_LIBC6 | FLAG_X8664_LIB64`: the entries the loader of this machine accepts.
    private static let machineFlags: Int32 = 0x0303
    #else
    /// `FLAG_ELF_LIBC6 | FLAG_AARCH64_LIB64`.
    private static let machineFlags: Int32 = 0x0A03
    #endif

    /// The cache read: each name's entries for this machine (path, hardware capability bits); `nil`
    /// if there is no cache; a refusal if it cannot be read.
    private static let entries: Result<[String: [(path: String, hwcap: UInt64)]]?, SearchModel.Refusal> = read()

    /// Where the loader takes `name` from its cache, `nil` if the cache does not name it (or there is
    /// no cache); throws if the cache cannot say it exactly.
    package static func path(of name: String) throws(SearchModel.Refusal) -> String? {
        guard let found = try entries.get()?[name] else { return nil }
        guard found.count == 1, let only = found.first, only.hwcap == 0 else {
            throw SearchModel.Refusal(reason: "the loader's cache (\(path)) holds \(found.count) builds of it for this "
                                      + "machine, chosen by the processor's capabilities")
        }
        return only.path
    }

    private static func read() -> Result<[String: [(path: String, hwcap: UInt64)]]?, SearchModel.Refusal> {
        guard FileStatus(path) != nil else { return .success(nil) }
        let unreadable = SearchModel.Refusal(reason: "the loader's cache (\(path)) cannot be read by this host")
        guard let descriptor = try? Posix.open(path, O_RDONLY) else { return .failure(unreadable) }
        defer { Posix.close(descriptor) }
        guard let size = try? Posix.fstat(descriptor).st_size, size > 0, size < 1 << 26,
              let bytes = try? Posix.pread(descriptor, offset: 0, count: Int(size)), bytes.count == Int(size)
        else { return .failure(unreadable) }
        // Header: the magic and version (20 bytes), the entry count, the strings' length, flags, and
        // reserved words: 48 bytes. Each entry: flags (Int32), key and value (offsets of C strings
        // from the start of the file), an unused word, hardware capabilities (UInt64): 24 bytes.
        let magic = Array("glibc-ld.so.cache1.1".utf8)
        guard bytes.count >= 48, Array(bytes[0..<20]) == magic else { return .failure(unreadable) }
        let count = Int(integer(bytes, 20, UInt32.self))
        guard count <= (bytes.count - 48) / 24 else { return .failure(unreadable) }
        var entries: [String: [(path: String, hwcap: UInt64)]] = [:]
        for index in 0..<count {
            let base = 48 + index * 24
            guard integer(bytes, base, Int32.self) == machineFlags else { continue }
            guard let key = string(bytes, at: Int(integer(bytes, base + 4, UInt32.self))),
                  let value = string(bytes, at: Int(integer(bytes, base + 8, UInt32.self)))
            else { return .failure(unreadable) }
            entries[key, default: []].append((value, integer(bytes, base + 16, UInt64.self)))
        }
        return .success(entries)
    }

    /// The C string at `offset`, if it lies in `bytes` and ends there.
    private static func string(_ bytes: [UInt8], at offset: Int) -> String? {
        guard offset < bytes.count, let end = bytes[offset...].firstIndex(of: 0) else { return nil }
        return String(decoding: bytes[offset..<end], as: UTF8.self)
    }

    /// The little-endian `T` at `offset`; callers checked that `bytes` holds it.
    private static func integer<T: FixedWidthInteger>(_ bytes: [UInt8], _ offset: Int, _ type: T.Type) -> T {
        bytes.withUnsafeBytes { T(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: T.self)) }
    }
}
