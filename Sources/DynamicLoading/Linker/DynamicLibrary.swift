import CDynamicLinker
import Glibc

/// A shared library opened with `dlopen`, never closed: Swift plugins leave type metadata and
/// conformance records in the runtime's caches, which would dangle after `dlclose` (ARCHITECTURE.md).
package struct DynamicLibrary: @unchecked Sendable {
    // @unchecked, and the raw handle: an opaque token of the loader's, never dereferenced, only handed
    // to dlsym and CDynamicLinker, which accept it from any thread; the library is never closed, so
    // the handle stays valid for the process.
    package let path: String
    private let handle: UnsafeMutableRawPointer
    /// The names of the Swift runtime's libraries (those beside `libswiftCore.so`) loaded before this
    /// one: no plugin records their versions, so they are not asked for one.
    package let runtimeLibraries: Set<String>

    /// Opens `image`, which must be absolute (a bare name would search the system's library path)
    /// and real: the copy of the plugin `path` in `shadow`, or a file that is not copied. Its ELF
    /// headers are checked first (unless discovery read them: then `dynamic`), and so is every
    /// library the loader would newly map with it (``LibraryClosure``, which copies the libraries the
    /// loader will find beside the copy), trusted unless `allowUntrustedLibraries`, and shown to
    /// `fileCheck`. If the loader then
    /// mapped a file that was not checked, the library is refused before anything of it is called.
    /// Errors name `path` and the originals of the copies; a failed `dlopen` is
    /// ``LoadingError/openFailed(path:image:message:brought:)``, the loader's words as it said them.
    package static func open(_ image: String, reportedAs path: String, dynamic known: ELFCheck.DynamicSection? = nil,
                             allowUntrustedLibraries: Bool = false, shadow: ShadowFolder? = nil,
                             fileCheck: FileCheck? = nil) throws(LoadingError) -> DynamicLibrary {
        guard image.hasPrefix("/") else { throw .notFound(path: path) }
        let dynamic: ELFCheck.DynamicSection
        if let known {
            dynamic = known
        } else {
            do {
                dynamic = try ELFCheck.validate(image)
            } catch {
                throw LoadingError(error)
            }
        }
        let closure = try LibraryClosure(plugin: image, reportedAs: path, dynamic: dynamic,
                                         allowUntrusted: allowUntrustedLibraries, shadow: shadow, fileCheck: fileCheck)
        if let second = closure.secondCopies().first {
            let opened = ShadowFolder.original(of: second.opened)
            throw .libraryRefused(path: path, library: second.name, file: ShadowFolder.original(of: second.file),
                                  reason: "another copy of it is mapped in this process already (of \(opened), for a plugin in "
                                  + "a process of its own), which answers to its path only: this one would be mapped beside "
                                  + "it, a second copy of one module; serve this plugin from a process of its own too, or "
                                  + "restart the host")
        }
        _ = dlerror()
        guard let handle = dlopen(image, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE) else {
            guard let error = lastError() else { throw .notASharedLibrary(path: path, reason: "unknown dlopen error") }
            throw .openFailed(path: path, image: image, message: error, brought: closure.libraries)
        }
        if let unchecked = closure.unchecked(allowing: image).first {
            throw .libraryRefused(path: path, library: String(unchecked.split(separator: "/").last ?? ""),
                                  file: ShadowFolder.original(of: unchecked),
                                  reason: "the dynamic linker mapped it, but it is not a file that was checked (replaced "
                                  + "since, or found where this host does not look), so the plugin was not called")
        }
        return DynamicLibrary(path: image, handle: handle, runtimeLibraries: LoadedObjects.runtimeLibraries())
    }

    /// The loaded library that a plugin linking `name` (a file name, such as `libSampleContracts.so`)
    /// would be bound to, if there is one: `dlopen` of the bare name with `RTLD_NOLOAD` answers with
    /// the object loaded under that name (as a plugin's dependency), and maps and runs nothing. (It
    /// also searches the host's own run path and `LD_LIBRARY_PATH` and would answer with an object
    /// it finds there loaded by path: not where plugins' libraries are.)
    package static func bound(to name: String) -> DynamicLibrary? {
        guard !name.contains("/"), let handle = dlopen(name, RTLD_LAZY | RTLD_NOLOAD) else { return nil }
        return DynamicLibrary(path: name, handle: handle, runtimeLibraries: [])
    }

    /// The loader's handle as a number: equal for two opens that the loader answered with one image.
    package var handleID: UInt { UInt(bitPattern: handle) }

    /// Calls the library's entry symbol (``EntrySymbol``) and returns what it returned, if the symbol
    /// is a function of this very library; throws what it is if it is not, and nothing of it runs.
    package func callEntry(reportedAs path: String) throws(LoadingError) -> UnsafeRawPointer? {
        let address = symbol(EntrySymbol.name)
        let entry = address.map { EntrySymbol(place(of: $0)) } ?? .missing
        guard let address, entry == .function else {
            throw entry.refusal(path: path) ?? .missingEntrySymbol(path: path, symbol: EntrySymbol.name)
        }
        // A function symbol at that address in an executable segment of this very file (above), which
        // `exportPlugin` defines as `@c () -> UnsafeRawPointer?`.
        typealias Entry = @convention(c) () -> UnsafeRawPointer?
        return unsafeBitCast(address, to: Entry.self)()
    }

    /// A symbol found in a library's scope: the object that defines it, and where.
    package struct Definition {
        /// The path of the object that defines it, as the dynamic loader knows it (the library's own
        /// path if the loader cannot say).
        package let owner: String
        fileprivate let address: UnsafeMutableRawPointer
    }

    /// Where `name` is defined in this library's scope (`dlsym`: the library, then the libraries it
    /// links), if it is.
    package func definition(of name: String) -> Definition? {
        guard let address = symbol(name) else { return nil }
        return Definition(owner: dynamic_linker_object_path(address).map { String(cString: $0) } ?? path, address: address)
    }

    /// What the version function `definition` returns, called as the `@c () -> UInt64` every versioned
    /// library defines; `nil`, and nothing is called, if it is not a function of the object that
    /// defines it (a function symbol at that address, in an executable segment): data of that name
    /// would be jumped into.
    package func callVersionFunction(_ definition: Definition) -> UInt64? {
        guard dynamic_linker_defining_kind(definition.address) == 1 else { return nil }
        typealias VersionFunction = @convention(c) () -> UInt64
        return unsafeBitCast(definition.address, to: VersionFunction.self)()
    }

    /// The address of `symbol`, or `nil` if the library does not define it.
    private func symbol(_ name: String) -> UnsafeMutableRawPointer? {
        _ = dlerror()
        return dlsym(handle, name)
    }

    /// What a symbol's address is to this library, by the segments and symbols the loader mapped.
    enum Place {
        /// A function of this library: a function symbol at that address, in an executable segment.
        case ownFunction
        /// Something else of this library: a data object, or code without a function symbol.
        case ownData
        /// In another loaded object, or in none.
        case elsewhere
    }

    /// What `address` is to this library; `nil` if the loader cannot say.
    private func place(of address: UnsafeMutableRawPointer) -> Place? {
        switch dynamic_linker_function_kind(handle, address) {
        case 1: .ownFunction
        case 0: .ownData
        case -1: .elsewhere
        default: nil
        }
    }

    /// The libraries this one links (its `DT_NEEDED` entries, as the loader mapped them), or `nil` if
    /// its link map cannot be read.
    package func neededLibraries() -> [String]? {
        // C strings in the loader's link map of this library, which is never closed: valid for the
        // process, and copied into Strings at once.
        var names = [UnsafePointer<CChar>?](repeating: nil, count: 64)
        let count = dynamic_linker_needed(handle, &names, names.count)
        guard count >= 0 else { return nil }
        if count > names.count {
            names = [UnsafePointer<CChar>?](repeating: nil, count: count)
            guard dynamic_linker_needed(handle, &names, names.count) == count else { return nil }
        }
        return names.prefix(count).compactMap { $0.map { String(cString: $0) } }
    }

    private static func lastError() -> String? {
        dlerror().map { String(cString: $0) }
    }
}
