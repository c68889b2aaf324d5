import Foundation
import HostKit
import PluginAPI
import TestSupport
import Testing

/// `PluginSettingsFile` as an adversary sees it: a plugin chooses its keys (and its name), and must
/// reach no other plugin's settings; the operator's file may be broken, huge, or writable by others.
@Suite struct PluginSettingsFileTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
    }

    /// `json` written to the folder's `settings.json`; its path.
    func file(_ json: String, mode: Int = 0o644) throws -> String {
        try folder.write("settings.json", Array(json.utf8), mode: mode)
    }

    @Test func aKeyIsLookedUpInItsPluginsObjectOnly() throws {
        let path = try file("""
        {"plugins": {"a": {"x": "mine", "db": {"host": "h", "port": 5432, "tls": false, "ratio": 0.5, "none": null}},
                     "a.b": {"x": "dotted"}, "b": {"x": "theirs", "secret": "s"}},
         "x": "top", "plugins.b.x": "flat"}
        """)
        let settings = try PluginSettingsFile(contentsOf: path)
        #expect(try settings.value(forKey: "x", of: "a") == "mine")
        #expect(try settings.value(forKey: "db.host", of: "a") == "h")
        #expect(try settings.value(forKey: "db.port", of: "a") == "5432")
        #expect(try settings.value(forKey: "db.tls", of: "a") == "false")
        #expect(try settings.value(forKey: "db.ratio", of: "a") == "0.5")
        #expect(try settings.value(forKey: "db.none", of: "a") == nil)
        #expect(try settings.value(forKey: "x", of: "a.b") == "dotted")
        // Keys that would reach another plugin's settings, or the file's top, if the scope were a prefix.
        for key in ["b.x", "b.secret", "plugins.b.x", "a.b.x", "x.x", "secret"] {
            #expect(try settings.value(forKey: key, of: "a") == nil, "\(key)")
        }
        #expect(try settings.value(forKey: "x", of: "plugins") == nil)
        #expect(try settings.value(forKey: "x", of: "c") == nil)
        for key in ["", ".x", "x.", "db..host", ".", "../b/x", "..b.x"] {
            #expect(throws: PluginSettingsFile.Unusable.self, "\(key)") { try settings.value(forKey: key, of: "a") }
        }
        // An object is no value.
        #expect(throws: PluginSettingsFile.Unusable.self) { try settings.value(forKey: "db", of: "a") }
    }

    /// What makes a file unusable is said without its values (it may hold secrets).
    @Test func aBrokenFileIsRefusedWithoutShowingItsValues() throws {
        for json in ["{\"plugins\": {\"a\": {\"token\": \"hunter2", "[\"hunter2\"]", "{\"plugins\": [\"hunter2\"]}",
                     "{\"plugins\": {\"a\": \"hunter2\"}}", "\"hunter2\""] {
            let path = try file(json)
            do {
                _ = try PluginSettingsFile(contentsOf: path)
                Issue.record("accepted: \(json)")
            } catch let error as PluginSettingsFile.Unusable {
                #expect(!error.description.contains("hunter2"), "\(error)")
                #expect(error.description.hasPrefix("the settings file \(path) "), "\(error)")
            }
        }
    }

    /// A file others could write (or a FIFO, which would block the host) is refused, as plugin files are.
    @Test func aFileOthersCanWriteIsRefused() throws {
        let path = try file("{}", mode: 0o666)
        #expect {
            try PluginSettingsFile(contentsOf: path)
        } throws: { error in
            "\(error)".contains("is refused") && "\(error)".contains("writable")
        }
        let fifo = folder.file("fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        #expect { try PluginSettingsFile(contentsOf: fifo) } throws: { "\($0)".contains("not a regular file") }
    }

    /// A symlink is trusted through to its target: one to a file in a folder others can write, or
    /// one that sits in such a folder (whoever can write there can point it elsewhere), is refused;
    /// so is a device that never ends (`/dev/zero`, which everyone may write).
    @Test func aSymlinkThroughAFolderOthersCanWriteIsRefused() throws {
        let open = folder.file("open")
        #expect(mkdir(open, 0o777) == 0 && chmod(open, 0o777) == 0)
        let trusted = try file("{}")
        let inOpen = open + "/settings.json"
        #expect(FileManager.default.createFile(atPath: inOpen, contents: Data("{}".utf8), attributes: [.posixPermissions: 0o644]))
        let toOpen = folder.file("to-open.json"), fromOpen = open + "/to-trusted.json"
        #expect(symlink(inOpen, toOpen) == 0 && symlink(trusted, fromOpen) == 0)
        for path in [toOpen, fromOpen] {
            #expect { try PluginSettingsFile(contentsOf: path) } throws: { "\($0)".contains("is refused") }
        }
        #expect { try PluginSettingsFile(contentsOf: "/dev/zero") } throws: { "\($0)".contains("is refused") }
    }

    /// The refusal of a file others can write names no way to take it anyway: a plugin file's does
    /// (`PluginDiscovery.allowUntrusted`), but nothing lets an untrusted settings file in (`host
    /// --allow-untrusted --config` refuses it again), so that hint would send the operator astray.
    @Test func aRefusedFileNamesNoAllowanceThatDoesNotApply() throws {
        let path = try file("{}", mode: 0o666)
        #expect { try PluginSettingsFile(contentsOf: path) } throws: { error in
            "\(error)".contains("writable by others") && !"\(error)".contains("allowUntrusted")
        }
    }

    /// Nesting is counted before anything decodes (decoding recurses): 32 levels are read, 33 are
    /// refused by name; brackets inside a string, escaped quotes among them, are text.
    @Test func nestingIsCountedOutsideStringsOnly() throws {
        let nested = { (depth: Int) in
            #"{"plugins": {"a": {"text": "[[{{\"[[", "n": "# + String(repeating: #"{"x": "#, count: depth - 3) + "1"
                + String(repeating: "}", count: depth - 3) + "}}}"
        }
        let settings = try PluginSettingsFile(contentsOf: try file(nested(32)))
        #expect(try settings.value(forKey: "text", of: "a") == #"[[{{"[["#)
        #expect(try settings.value(forKey: "n" + String(repeating: ".x", count: 29), of: "a") == "1")
        #expect { try PluginSettingsFile(contentsOf: try file(nested(33))) } throws: { "\($0)".contains("nests deeper than 32") }
    }

    /// Read again as each load begins; one that cannot be read then keeps what was read before.
    @Test func loadBeginsReadsTheFileAgainAndKeepsTheOldOnFailure() throws {
        let path = try file("{\"plugins\": {\"a\": {\"x\": \"1\"}}}")
        let settings = try PluginSettingsFile(contentsOf: path)
        try folder.write("settings.json", Array("{\"plugins\": {\"a\": {\"x\": \"2\"}}}".utf8))
        #expect(try settings.value(forKey: "x", of: "a") == "1")
        try settings.loadBegins()
        #expect(try settings.value(forKey: "x", of: "a") == "2")
        try folder.write("settings.json", Array("{\"plugins\": ".utf8))
        #expect(throws: PluginSettingsFile.Unusable.self) { try settings.loadBegins() }
        #expect(try settings.value(forKey: "x", of: "a") == "2")
    }

    /// The type promises that a number reads as its JSON text; a whole number past `Int.max` (an
    /// account id, a snowflake) is read as a `Double` and comes back rounded, in another spelling.
    @Test func aWholeNumberPastIntMaxReadsAsItsJSONText() throws {
        let path = try file(#"{"plugins": {"a": {"id": 12345678901234567890, "max": 9223372036854775808}}}"#)
        let settings = try PluginSettingsFile(contentsOf: path)
        #expect(try settings.value(forKey: "id", of: "a") == "12345678901234567890")
        #expect(try settings.value(forKey: "max", of: "a") == "9223372036854775808")
    }

    /// `1e400` is valid JSON (RFC 8259 sets no range); a number no `Double` holds must read as its
    /// text, or be refused naming where it is, not make the whole file "not JSON" (every plugin's
    /// settings lost at start, none of its edits taken at a reload).
    @Test func aNumberPastDoubleDoesNotMakeTheFileNotJSON() throws {
        let path = try file(#"{"plugins": {"a": {"far": 1e400}, "b": {"x": "kept"}}}"#)
        do {
            let settings = try PluginSettingsFile(contentsOf: path)
            #expect(try settings.value(forKey: "far", of: "a") == "1e400")
            #expect(try settings.value(forKey: "x", of: "b") == "kept")
        } catch {
            #expect(!"\(error)".contains("is not JSON"), "\(error)")
            #expect("\(error)".contains("plugins.a.far"), "\(error)")
        }
    }

    /// A plugin named twice in `plugins` (or a key given twice, or spelled two ways that Swift holds
    /// equal: `é` composed and decomposed) is read silently as its first spelling: an operator who
    /// appends an override sees it ignored. Bad input must be a named error.
    @Test func aNameOrKeyGivenTwiceIsANamedError() throws {
        for json in [#"{"plugins": {"a": {"x": "old"}, "a": {"x": "new"}}}"#,
                     #"{"plugins": {"a": {"x": "old", "x": "new"}}}"#,
                     "{\"plugins\": {\"a\": {\"caf\u{E9}\": \"old\", \"cafe\u{301}\": \"new\"}}}"] {
            let path = try file(json)
            #expect(throws: PluginSettingsFile.Unusable.self, "\(json)") { try PluginSettingsFile(contentsOf: path) }
        }
    }

    /// A setting whose name has a dot (or is empty) can never be read, since a key's dots step into
    /// objects: the file is refused naming it, not read with the setting silently out of reach.
    @Test func aSettingNoKeyCanReadIsRefusedByName() throws {
        let dotted = try file(#"{"plugins": {"a": {"db": {"pool.size": 4}}}}"#)
        #expect {
            try PluginSettingsFile(contentsOf: dotted)
        } throws: { error in
            "\(error)".contains("has the setting 'db.pool.size' of plugin 'a', which no key reads")
        }
        let empty = try file(#"{"plugins": {"a": {"": 1}}}"#)
        #expect(throws: PluginSettingsFile.Unusable.self) { try PluginSettingsFile(contentsOf: empty) }
        // A plugin's name may have dots: it is one name, never stepped into.
        let named = try file(#"{"plugins": {"a.b": {"x": 1}}}"#)
        #expect(try PluginSettingsFile(contentsOf: named).value(forKey: "x", of: "a.b") == "1")
    }
}
