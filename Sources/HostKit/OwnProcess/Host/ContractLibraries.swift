internal import DynamicLoading

/// The contract libraries of a plugin served from a process of its own, mapped in this process: the
/// host remakes the plugin's keys from their types' names (``RemotePluginModule/metadata(of:path:)``)
/// and makes proxies of their contracts' stubs, types of those libraries. The plugin file itself is
/// never opened here.
///
/// Each library is the copy an in-process load of the plugin would be bound to, by the same rules. A
/// library some loaded object answers to already (the host links it, a plugin in process brought it)
/// is that one, and so is one this process opened by its path before for another such plugin: no
/// second copy of a module is mapped (two copies are two sets of types). Any other is the file the
/// plugin's library closure finds and checks (``LibraryClosure``: the loader's search where this host
/// can model it exactly, a trusted path, a regular file, ELF headers), and it must say its version (a
/// contract library); it is opened as a plugin's file is (``DynamicLibrary``: its own libraries
/// checked first, what the loader mapped checked after), so its initializers run in this process, as
/// they would for the plugin in process. What cannot be decided so refuses the plugin, naming the library.
///
/// The names come from the child (its plugin's header) but only choose among the libraries the plugin's
/// file links, as this process reads the file: a child cannot have the host map any other.
enum ContractLibraries {
    /// The host's own libraries: never a plugin's copy.
    private static let hostLibraries: Set<String> = ["PluginAPI", "PluginActors"]
    /// Held while a plugin's libraries are looked up and mapped: two launches at once would each find
    /// a library missing and map a copy.
    private static let opening = Lock(())

    /// Maps, of the libraries `names` (as the plugin's header records them) that this process lacks,
    /// the copies `candidate`'s plugin would be bound to; or why the plugin is refused.
    static func open(_ names: [String], for candidate: PluginCandidate, fileCheck: FileCheck? = nil) -> Result<Void, PluginLoadError> {
        opening.withLock { openHeld(names, for: candidate, fileCheck: fileCheck) }
    }

    /// ``open(_:for:)``, its lock held.
    private static func openHeld(_ names: [String], for candidate: PluginCandidate,
                                 fileCheck: FileCheck?) -> Result<Void, PluginLoadError> {
        let path = candidate.realPath
        // Each library's name and file name (`libName.so`), as the plugin links it.
        var libraries: [(name: String, file: String)] = []
        for name in names where !hostLibraries.contains(name) {
            let file = "lib\(name).so"
            guard LibraryCheck.libraryName(file) == name else {
                return .failure(.processFailed(path: path, reason: "its process named a library that is no library name"))
            }
            libraries.append((name, file))
        }
        _ = LoadedObjects.count()  // reads the loaded objects anew
        let missing = libraries.filter { !LoadedObjects.answer($0.file) && LoadedObjects.opened(as: $0.file) == nil }
        guard !missing.isEmpty else { return .success(()) }
        let closure: LibraryClosure
        do {
            let dynamic = try candidate.dynamic ?? ELFCheck.validate(candidate.image)
            closure = try LibraryClosure(plugin: candidate.image, reportedAs: path, dynamic: dynamic,
                                         allowUntrusted: candidate.allowUntrusted, shadow: candidate.shadow, fileCheck: fileCheck)
        } catch let refusal as ELFCheck.Refusal {
            return .failure(PluginLoadError(refusal))
        } catch let error as LoadingError {
            return .failure(PluginLoadError(error))
        } catch {
            return .failure(.processFailed(path: path, reason: "\(error)"))
        }
        for (name, file) in missing {
            guard let image = closure.file(named: file) else {
                return .failure(.processFailed(path: path, reason: "its header records the contract library \(file), which its "
                                               + "file does not link: this host cannot tell which copy its types are in"))
            }
            guard ELFCheck.dynamicSymbols(image)?.defined.contains(LibraryCopy.versionSymbol(of: name)) == true else {
                return .failure(.libraryRefused(path: path, library: file, file: ShadowFolder.original(of: image),
                                                reason: "it says no version (\(LibraryCopy.versionSymbol(of: name))): no contract library"))
            }
            do {
                _ = try DynamicLibrary.open(image, reportedAs: path, allowUntrustedLibraries: candidate.allowUntrusted,
                                            shadow: candidate.shadow, fileCheck: fileCheck)
            } catch {
                return .failure(PluginLoadError(error))
            }
            LoadedObjects.noteOpened(file, at: image)
        }
        return .success(())
    }
}
