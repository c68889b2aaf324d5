import Foundation

/// The part of glibc's library search (ld.so(8)) that the host models exactly, and what it refuses
/// because it cannot: where the host's model and the dynamic linker could disagree, a plugin would
/// run a library the host never checked. A differential test (`SearchModelTests`) lays out search
/// paths of every kind, asks this model, and opens the plugin for real in a child process.
///
/// Modelled: a `DT_NEEDED` plain file name, looked for in each `LD_LIBRARY_PATH` folder (absolute),
/// then in each `DT_RUNPATH` folder: absolute, or `$ORIGIN` / `${ORIGIN}` alone or followed by `/`.
/// Refused, naming the entry: a name with a `/` (opened relative to the current folder) or a `$`; a
/// `DT_RPATH` (glibc searches it along the chain of objects that loaded this one, and the program's);
/// a relative or empty folder (the current folder at the time of `dlopen`); any other `$` token
/// (`$LIB`, `$PLATFORM`, `$ORIGINAL`, which glibc does not expand as `$ORIGIN`); a folder holding a
/// subfolder the loader looks in first for hardware capabilities (`glibc-hwcaps`, `tls`, `x86_64`,
/// ...). Then the loader's cache (``LoaderCache``: a name it holds once, for no hardware capability)
/// and its default folders (``defaultFolders``, with the same subfolder rule).
package enum SearchModel {
    /// Why a search cannot be modelled exactly.
    package struct Refusal: Error {
        package let reason: String
    }

    /// The folders searched for `name`, needed by an object in `origin` whose dynamic section is
    /// `dynamic`, in glibc's order, each absolute.
    package static func folders(for name: String, origin: String, dynamic: ELFCheck.DynamicSection) throws(Refusal) -> [String] {
        if name.contains("/") {
            throw Refusal(reason: "it is named with a '/' ('\(name)'), which the loader opens as a path, not by its search")
        }
        if name.contains("$") { throw Refusal(reason: "its name '\(name)' holds a '$' token") }
        try checkObject(dynamic)
        var folders: [String] = []
        for entry in try libraryPath.get() { folders.append(entry) }
        for entry in dynamic.runpath ?? [] {
            folders.append(try expand(entry, origin: origin))
        }
        return folders
    }

    /// The folders the loader searches last, when neither a run path nor its cache holds a name
    /// (glibc's system folders on Debian's multiarch layout, as `ld.so --help` lists them).
    #if arch(x86_64)
    static let defaultFolders = ["/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib", "/usr/lib"]
    #else
    static let defaultFolders = ["/lib/aarch64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/lib", "/usr/lib"]
    #endif

    /// Throws if the object whose dynamic section is `dynamic` makes the loader search in a way this
    /// model does not follow: a `DT_RPATH` (searched along every object that loaded it, up to the
    /// program), or filter libraries (`DT_AUXILIARY`, `DT_FILTER`: mapped beside it, by names of
    /// their own).
    static func checkObject(_ dynamic: ELFCheck.DynamicSection) throws(Refusal) {
        if dynamic.runpath == nil, !dynamic.rpath.isEmpty {
            throw Refusal(reason: "it has a DT_RPATH ('\(dynamic.rpath.joined(separator: ":"))'), searched along every "
                          + "object that loaded it; rebuild it with a DT_RUNPATH (-Wl,--enable-new-dtags)")
        }
        if let filter = dynamic.filters.first {
            throw Refusal(reason: "it names a filter library ('\(filter)', DT_AUXILIARY or DT_FILTER), which the loader "
                          + "maps beside it")
        }
    }

    /// The run path entry `entry` with `$ORIGIN` expanded to `origin`, or why it is refused.
    static func expand(_ entry: String, origin: String) throws(Refusal) -> String {
        for token in ["$ORIGIN", "${ORIGIN}"] where entry == token || entry.hasPrefix(token + "/") {
            let rest = entry.dropFirst(token.count)
            guard !rest.contains("$") else { break }
            // A `..` the kernel resolves only if the folder before it exists: among the copies, only the
            // copies' own folders and theirs do. So `..` only right after `$ORIGIN` (or another `..`).
            var named = false
            for part in rest.split(separator: "/") where part != "." {
                if part != ".." { named = true } else if named {
                    throw Refusal(reason: "its run path entry '\(entry)' goes back ('..') after a folder below $ORIGIN, "
                                  + "which the folder of copies need not have")
                }
            }
            return origin + rest
        }
        if entry.contains("$") {
            throw Refusal(reason: "its run path entry '\(entry)' holds a '$' token this host does not expand as the "
                          + "loader does (only '$ORIGIN' or '${ORIGIN}' at its start, alone or before a '/')")
        }
        guard entry.hasPrefix("/") else {
            throw Refusal(reason: "its run path entry '\(entry)' is \(entry.isEmpty ? "empty" : "relative"): the loader "
                          + "takes it from the current folder at the time of loading")
        }
        return entry
    }

    /// The subfolders glibc looks in before a folder itself, for this machine's hardware
    /// capabilities: `glibc-hwcaps/LEVEL/`, and the legacy ones, nested up to three deep (`tls/`,
    /// `x86_64/x86_64/`, ...). glibc 2.36's names, and a margin: a name here that the loader does not
    /// search only makes the model stricter.
    #if arch(x86_64)
    static let capabilityFolders = ["tls", "x86_64", "haswell", "xeon_phi", "avx512_1", "i686"]
    #else
    static let capabilityFolders = ["tls", "aarch64", "asimd", "atomics"]
    #endif

    /// Throws if a subfolder of `folder` where the loader looks first, depending on the processor,
    /// holds a file `name` (``capabilityFolders``, and each folder in `glibc-hwcaps/`).
    static func checkSubfolders(of folder: String, for name: String) throws(Refusal) {
        var folders = Posix.glob(folder + "/glibc-hwcaps/*").map { (path: $0, depth: 3) }
        var next = 0
        folders.append((folder, 0))
        while next < folders.count {
            let (path, depth) = folders[next]
            next += 1
            if path != folder, FileStatus(path + "/" + name) != nil {
                throw Refusal(reason: "\(path)/\(name) lies in a folder the loader may look in first (hardware capabilities)")
            }
            guard depth < 3 else { continue }
            for sub in capabilityFolders where FileStatus(path + "/" + sub)?.isDirectory == true {
                folders.append((path + "/" + sub, depth + 1))
            }
        }
    }

    /// The search's folders in words, for a library not found.
    static func describe(origin: String, dynamic: ELFCheck.DynamicSection) -> String {
        let own = (dynamic.runpath ?? []).map { "'\($0)'" }
        return (own.isEmpty ? "no run path" : "run path \(own.joined(separator: ", "))")
            + ((try? libraryPath.get())?.isEmpty == false ? ", LD_LIBRARY_PATH" : "")
            + ", the loader's cache, the system's folders"
    }

    /// `LD_LIBRARY_PATH`, read once: the loader read it when the process started. glibc splits it at
    /// `:` and `;`; an empty, relative or `$` entry is refused.
    static let libraryPath: Result<[String], Refusal> = {
        guard let value = Posix.environment("LD_LIBRARY_PATH"), !value.isEmpty else { return .success([]) }
        var folders: [String] = []
        for entry in value.split(separator: /[:;]/, omittingEmptySubsequences: false).map(String.init) {
            guard entry.hasPrefix("/"), !entry.contains("$") else {
                return .failure(Refusal(reason: "LD_LIBRARY_PATH holds '\(entry)', which the loader takes from the current "
                                        + "folder or expands as this host does not"))
            }
            folders.append(entry)
        }
        return .success(folders)
    }()
}
