internal import DynamicLoading
import Foundation
import PluginAPI

/// Plugins' settings from a JSON file (`host --config FILE`): each plugin's under `plugins`, by
/// the name in its metadata. A dotted key reads into nested objects.
///
/// ```json
/// { "plugins": {
///     "greeter": { "greeting": "Good morning", "timeoutSeconds": 5, "apiToken": "s3cr3t" },
///     "notes":   { "store": { "path": "/var/lib/notes" } }
/// } }
/// ```
///
/// Here plugin `notes` reads `store.path` and gets `/var/lib/notes`; `greeter` reading `store.path`
/// gets nothing: a key is looked up in its plugin's object only, and a key never leaves it (no
/// component of it may be empty: `.x`, `a..b` are refused). A number or `true`/`false` reads as
/// its JSON text; `null` is unset; an object or a list is not a value.
///
/// The file is read when made, and again as each load and reload begins (so a `SIGHUP` brings an
/// edit in); one that cannot be read then leaves the settings as they were, and the reload's report
/// says why. It must be a regular file of at most 16 MiB, nested at most 32 levels deep, that only
/// the host's user or root can change, on such a path, as plugin files must: it may hold secrets, and
/// it steers what plugins do.
///
/// ```swift
/// let host = PluginHost(settings: try PluginSettingsFile(contentsOf: "/etc/myapp/plugins.json"))
/// ```
public final class PluginSettingsFile: PluginSettingsSource {
    /// The file's path, as given (made absolute).
    public let path: String
    /// The `plugins` object and the `placement` object as last read.
    private let contents: Lock<(plugins: [String: SettingsValue], placements: [String: PluginPlacement])>

    /// The settings in the file at `path`, read now; throws ``Unusable`` if it cannot be read, is not
    /// trusted, or is not a JSON object whose `plugins`, if any, is an object of objects.
    public init(contentsOf path: String) throws {
        self.path = Paths.absolute(path)
        contents = Lock(try Self.read(self.path))
    }

    /// Reads the file again; if it cannot be, throws ``Unusable`` and keeps the settings as they were.
    public func loadBegins() throws {
        let read = try Self.read(path)
        contents.withLock { $0 = read }
    }

    /// The value of `key` in `plugin`'s object, as text; nil if unset. Throws ``Unusable`` for a key
    /// with an empty component, or one that names an object or a list.
    public func value(forKey key: String, of plugin: String) throws -> String? {
        let components = key.split(separator: ".", omittingEmptySubsequences: false)
        guard !components.contains(where: \.isEmpty) else {
            throw Unusable(path: path, reason: "cannot hold the key '\(key)': a key's parts between dots may not be empty")
        }
        var value = contents.withLock { $0.plugins[plugin] }
        for component in components {
            guard case let .object(members)? = value else { return nil }
            value = members[String(component)]
        }
        switch value {
        case nil, .null?: return nil
        case let .text(text)?: return text
        case .object?, .list?:
            throw Unusable(path: path, reason: "has an object or a list at 'plugins.\(plugin).\(key)', not a value")
        }
    }

    /// Why the file cannot be used.
    public struct Unusable: Error, CustomStringConvertible {
        /// The file's path.
        public let path: String
        /// What is wrong with it.
        public let reason: String
        /// `the settings file PATH REASON`.
        public var description: String { "the settings file \(path) \(reason)" }
    }

    /// The most a settings file may hold.
    static let largest = 16 << 20

    /// Where the operator places plugin files, from the file's `placement` object as last read: by a
    /// file name, a real path, or `*` for every plugin (`PluginSettingsFile+Placement.swift`).
    public var placements: [String: PluginPlacement] { contents.withLock { $0.placements } }

    /// The `plugins` and `placement` objects of the file at `path`.
    private static func read(_ path: String) throws(Unusable) -> (plugins: [String: SettingsValue], placements: [String: PluginPlacement]) {
        let bytes: [UInt8]
        do {
            bytes = try OperatorFile.bytes(at: path, largest: largest,
                                           tooLarge: "is larger than \(largest >> 20) MiB, more than any settings need")
        } catch {
            throw Unusable(path: path, reason: error.reason)
        }
        let scan = SettingsFileScan(bytes)
        guard scan.depth <= SettingsValue.deepest else {
            throw Unusable(path: path, reason: "nests deeper than \(SettingsValue.deepest) levels, more than any settings need")
        }
        if let duplicate = scan.duplicate {
            throw Unusable(path: path, reason: "gives '\(duplicate)' twice (one would be ignored)")
        }
        let root: SettingsValue
        do {
            root = try JSONDecoder().decode(SettingsValue.self, from: Data(bytes))
        } catch let error as SettingsValue.OutOfRange {
            throw Unusable(path: path, reason: "has a number at '\(error.path)' that no Double holds")
        } catch {
            throw Unusable(path: path, reason: "is not JSON: \(Self.reason(error))")
        }
        guard case let .object(members) = root else { throw Unusable(path: path, reason: "is not a JSON object") }
        return (try plugins(of: members, path: path), try placements(of: members, path: path))
    }

    /// The `plugins` object among the file's `members`.
    private static func plugins(of members: [String: SettingsValue], path: String) throws(Unusable) -> [String: SettingsValue] {
        switch members["plugins"] {
        case nil, .null?: return [:]
        case let .object(plugins)?:
            for (name, settings) in plugins {
                guard case let .object(members) = settings else {
                    throw Unusable(path: path, reason: "has 'plugins.\(name)', which is not an object of settings")
                }
                if let dotted = Self.dottedName(in: members) {
                    throw Unusable(path: path, reason: "has the setting '\(dotted)' of plugin '\(name)', which no key reads "
                                   + "(a key's dots step into objects: write {\"a\": {\"b\": ...}} for 'a.b')")
                }
            }
            return plugins
        case .text?, .list?:
            throw Unusable(path: path, reason: "has 'plugins', which is not an object (plugin names, each with its settings)")
        }
    }

    /// The first name among `members` (and the objects in them) with a dot in it, which no key can
    /// read: a plugin's `a.b` is member `b` of object `a`. (At most 32 levels: the file was scanned.)
    private static func dottedName(in members: [String: SettingsValue]) -> String? {
        for (name, value) in members.sorted(by: { $0.key < $1.key }) {
            if name.contains(".") || name.isEmpty { return name }
            if case let .object(inner) = value, let dotted = dottedName(in: inner) { return name + "." + dotted }
        }
        return nil
    }

    /// What went wrong in the JSON, without the values around it (the file may hold secrets).
    private static func reason(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return "it cannot be parsed" }
        switch error {
        case let .dataCorrupted(context):
            let underlying = (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
            return underlying ?? context.debugDescription
        default: return "it cannot be parsed"
        }
    }
}
