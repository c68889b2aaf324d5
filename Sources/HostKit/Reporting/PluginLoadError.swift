internal import DynamicLoading
import PluginAPI

/// Why one plugin file was not loaded. Each case names the file (or plugin) and the cause.
public enum PluginLoadError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Nothing at this path.
    case notFound(path: String)
    /// A search path (`SWIFT_PLUGIN_PATH`, say) holds separators only: it names no file or folder,
    /// so no plugin was looked for.
    case emptySearchPath(String)
    /// The path cannot be used as it is: a name in it is not valid UTF-8, it is longer than the system
    /// allows, a folder on it cannot be searched. `reason` says which. A name that is not UTF-8 is
    /// shown with its bad bytes as `\xFF`.
    case unusablePath(path: String, reason: String)
    /// The path is not a regular file (a directory, a device, a symlink loop...).
    case notARegularFile(path: String, kind: String)
    /// The file, a folder on its path or a symlink followed to it could be changed by someone else than
    /// the host's user or root; `reason` names which, with its mode and owner.
    case untrusted(path: String, reason: String)
    /// Another toolchain built the plugin than the host (their `.comment` lines differ); refused
    /// before `dlopen` unless the discovery allows other compilers.
    case compilerMismatch(path: String, plugin: String, host: String)
    /// `dlopen` refused the file; `reason` is what `dlerror` said.
    case notASharedLibrary(path: String, reason: String)
    /// A shared library the plugin links, which the dynamic linker would map with it, is missing or
    /// refused: `file` is where the linker would find it (`nil` if nowhere), `reason` why. Checked
    /// before `dlopen`, as the plugin file itself is.
    case libraryRefused(path: String, library: String, file: String?, reason: String)
    /// The library has no plugin entry symbol.
    case missingEntrySymbol(path: String, symbol: String)
    /// The library's entry symbol is not a function of its own (it is data, say): never called.
    case entryNotAFunction(path: String, symbol: String, reason: String)
    /// The entry symbol returned a null pointer.
    case entryReturnedNothing(path: String)
    /// The header does not start with the plugin magic.
    case badMagic(path: String, found: UInt64)
    /// The header has another layout than this host reads: the plugin was built against a PluginAPI
    /// before 4.0 (which wrote its ABI version, 2 or 3, where the format is now) or a far newer one.
    case unsupportedHeader(path: String, format: UInt32)
    /// The header has the right magic and format, but a field is impossible.
    case malformedHeader(path: String, reason: String)
    /// The plugin was built against library versions the process's copies cannot serve: another
    /// major version, a newer minor one, an unversioned copy, or a versioned library it does not record.
    case incompatibleLibraries(path: String, mismatches: [LibraryMismatch])
    /// The header's descriptor pointer points at something readable that is not a `PluginDescriptor`
    /// of this process's PluginAPI (a forged header, or a plugin that linked its own static copy).
    case foreignDescriptor(path: String)
    /// The plugin's metadata is impossible: an empty name or key, or a key listed twice.
    case malformedMetadata(path: String, reason: String)
    /// Another file already provided a plugin of this name.
    case duplicatePlugin(name: String, path: String, loadedFrom: String)
    /// Another plugin already provides this key; the later plugin is refused whole.
    case keyConflict(key: String, plugin: String, providedBy: String)
    /// No loaded plugin provides a key this plugin requires.
    case missingRequirement(plugin: String, key: String, reason: String)
    /// The slot that meets a key this plugin requires holds another type than the plugin declared.
    case requirementTypeMismatch(plugin: String, key: String, providedBy: String, reason: String)
    /// Plugins require each other in a circle; `chain` starts and ends with the same plugin.
    case requirementCycle(plugin: String, chain: [String])
    /// The plugin's module threw, or added other keys than it declared; nothing of it was registered.
    case registrationFailed(plugin: String, reason: String)
    /// The operator's check of the files a load maps (``PluginDiscovery/fileCheck``: a list of
    /// digests, say) refused the plugin file; `reason` is the check's words.
    case fileRefused(path: String, reason: String)
    /// The plugins' settings (``PluginHost/settings``) could not be read again as the load began;
    /// plugins read them as they were before. Its subject is `settings`.
    case settingsUnreadable(reason: String)
    /// The plugin's child-process probe crashed, hung or failed.
    case probeFailed(path: String, reason: String)
    /// The plugin's `start` hook threw or timed out; its slots were removed again.
    case startFailed(plugin: String, reason: String)
    /// No folder for the copies of the files a load maps (``PluginDiscovery/shadowFolder``) can be
    /// made in `path`, or code cannot be mapped from there (a file system mounted `noexec`): nothing
    /// is loaded.
    case shadowFolderUnusable(path: String, reason: String)
    /// A reload found the plugin's file gone (or refused), but plugins that stay require its keys: the
    /// plugin is kept serving.
    case stillRequired(plugin: String, requiredBy: [String])
    /// The plugin was placed in a process of its own (``PluginProcesses``), and that process could
    /// not be started, refused the plugin, or the plugin cannot be served so (a key whose contract
    /// is not distributed, say).
    case processFailed(path: String, reason: String)

    /// The file or plugin the error is about.
    public var subject: String {
        switch self {
        case let .notFound(path), let .emptySearchPath(path), let .unusablePath(path, _), let .notARegularFile(path, _), let .untrusted(path, _),
             let .notASharedLibrary(path, _), let .missingEntrySymbol(path, _), let .entryReturnedNothing(path),
             let .libraryRefused(path, _, _, _),
             let .entryNotAFunction(path, _, _),
             let .compilerMismatch(path, _, _),
             let .badMagic(path, _), let .unsupportedHeader(path, _), let .malformedHeader(path, _),
             let .incompatibleLibraries(path, _), let .foreignDescriptor(path), let .malformedMetadata(path, _),
             let .duplicatePlugin(_, path, _), let .probeFailed(path, _), let .shadowFolderUnusable(path, _),
             let .processFailed(path, _), let .fileRefused(path, _):
            path
        case let .keyConflict(_, plugin, _), let .missingRequirement(plugin, _, _), let .requirementCycle(plugin, _),
             let .requirementTypeMismatch(plugin, _, _, _),
             let .registrationFailed(plugin, _), let .startFailed(plugin, _), let .stillRequired(plugin, _):
            plugin
        case .settingsUnreadable: "settings"
        }
    }

    /// The cause in one line, anything unprintable in what came from outside (a path, a name, a key,
    /// `dlerror`'s or a plugin's reason) escaped: safe to print (``TerminalText/escaped(_:)``).
    public var description: String { TerminalText.escaped(unescapedDescription) }

    /// The cause as a reload's `kept` line says it: what failed is the new instance, while the old one
    /// serves on. (A load's "its services were removed" read there as the served plugin's services.)
    var descriptionBesideTheKeptInstance: String {
        guard case let .startFailed(plugin, reason) = self else { return description }
        return TerminalText.escaped("plugin '\(plugin)': the new instance's start \(reason), so it was not swapped in")
    }

    /// The cause as the fields hold it.
    private var unescapedDescription: String {
        switch self {
        case let .notFound(path): "\(path): no such file"
        case let .emptySearchPath(value): "the search path '\(value)' names no file or folder: no plugin was found"
        case let .unusablePath(path, reason): "\(path): \(reason)"
        case let .notARegularFile(path, kind): "\(path): not a regular file (\(kind))"
        case let .untrusted(path, reason): "\(path): refused, \(reason)"
        case let .compilerMismatch(path, plugin, host):
            "\(path): built by another compiler than this host (plugin: \(plugin); host: \(host)); "
                + "PluginDiscovery.allowOtherCompilers loads it anyway"
        case let .notASharedLibrary(path, reason): "\(path): cannot be loaded: \(reason)"
        case let .libraryRefused(path, library, file?, reason):
            "\(path): not loaded, the library it links \(library) (\(file)) is refused: \(reason)"
        case let .libraryRefused(path, library, nil, reason): "\(path): not loaded, the library it links \(library) is \(reason)"
        case let .missingEntrySymbol(path, symbol): "\(path): not a plugin, no entry symbol '\(symbol)'"
        case let .entryNotAFunction(path, symbol, reason):
            "\(path): its entry symbol '\(symbol)' is not a function of its own, so it was not called: \(reason)"
        case let .entryReturnedNothing(path): "\(path): the plugin entry returned nothing"
        case let .badMagic(path, found):
            "\(path): bad plugin header (magic 0x\(String(found, radix: 16)))"
        case let .unsupportedHeader(path, format) where format < HeaderFormat.read:
            "\(path): built against PluginAPI ABI version \(format) (before PluginAPI 4.0.0), this host has "
                + "PluginAPI \(LibraryVersion.pluginAPI): rebuild the plugin"
        case let .unsupportedHeader(path, format):
            "\(path): its header has format \(format), this host reads format \(HeaderFormat.read) "
                + "(PluginAPI \(LibraryVersion.pluginAPI)): built against a newer PluginAPI"
        case let .malformedHeader(path, reason): "\(path): malformed plugin header: \(reason)"
        case let .incompatibleLibraries(path, mismatches):
            "\(path): " + mismatches.map(\.description).joined(separator: "; ")
        case let .foreignDescriptor(path):
            "\(path): its descriptor is not this host's PluginAPI type (a forged header, or PluginAPI linked statically?)"
        case let .malformedMetadata(path, reason): "\(path): malformed plugin metadata: \(reason)"
        case let .duplicatePlugin(name, path, loadedFrom):
            "\(path): a plugin named '\(name)' was already loaded from \(loadedFrom)"
        case let .keyConflict(key, plugin, providedBy):
            "plugin '\(plugin)': key '\(key)' is already provided by plugin '\(providedBy)'"
        case let .missingRequirement(plugin, key, reason):
            "plugin '\(plugin)': requires key '\(key)', \(reason)"
        case let .requirementTypeMismatch(plugin, key, providedBy, reason):
            "plugin '\(plugin)': requires key '\(key)' (provided by '\(providedBy)'), but \(reason)"
        case let .requirementCycle(plugin, chain):
            "plugin '\(plugin)': requirement cycle \(chain.joined(separator: " -> "))"
        case let .registrationFailed(plugin, reason):
            "plugin '\(plugin)': registration failed, nothing registered: \(reason)"
        case let .fileRefused(path, reason): "\(path): refused by the host's file check: \(reason)"
        case let .settingsUnreadable(reason):
            "the plugins' settings could not be read again: \(reason); plugins read them as they were"
        case let .probeFailed(path, reason): "\(path): probe failed: \(reason)"
        case let .processFailed(path, reason): "\(path): not served from a process of its own: \(reason)"
        case let .startFailed(plugin, reason):
            "plugin '\(plugin)': start \(reason); its services were removed"
        case let .shadowFolderUnusable(path, reason):
            "\(path): no plugin was loaded: the host copies each file it maps into a folder of its own made here, "
                + "but \(reason); name another folder for the copies (PluginDiscovery.shadowFolder)"
        case let .stillRequired(plugin, requiredBy):
            "plugin '\(plugin)': kept, still required by \(requiredBy.map { "'\($0)'" }.joined(separator: ", ")); "
                + "remove their files too to withdraw it"
        }
    }
}

extension PluginLoadError {
    /// The same error with `note` added to its reason: what else went wrong while the host dropped
    /// the plugin (a service that would not close). Other cases have no reason and stay as they are.
    func adding(_ note: String) -> PluginLoadError {
        switch self {
        case let .startFailed(plugin, reason): .startFailed(plugin: plugin, reason: "\(reason); \(note)")
        case let .missingRequirement(plugin, key, reason):
            .missingRequirement(plugin: plugin, key: key, reason: "\(reason); \(note)")
        default: self
        }
    }
}
