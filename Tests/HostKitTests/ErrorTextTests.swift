@testable import DynamicLoading
@testable import HostKit
import Testing

/// HostKit serves programs that have no command line: its errors say what was refused and name the
/// option of its API that allows it, never a flag of the `host` command (which adds its own hint).
@Suite struct ErrorTextTests {
    /// One error of every case: `caseNumber` switches over all of them, so a case added later must be
    /// added here too.
    static let everyError: [PluginLoadError] = [
        .notFound(path: "/p.so"),
        .emptySearchPath(":"),
        .unusablePath(path: "/p.so", reason: "too long"),
        .notARegularFile(path: "/p.so", kind: "a pipe"),
        .untrusted(path: "/p.so", reason: "folder /tmp/x is writable by others (mode 777, owner 1000); \(PathTrust.allowance)"),
        .compilerMismatch(path: "/p.so", plugin: "clang version 1", host: "clang version 2"),
        .notASharedLibrary(path: "/p.so", reason: "invalid ELF header"),
        .libraryRefused(path: "/p.so", library: "libA.so", file: "/l/libA.so", reason: "file /l/libA.so is owned by user 7; \(PathTrust.allowance)"),
        .libraryRefused(path: "/p.so", library: "libA.so", file: nil, reason: "not found"),
        .missingEntrySymbol(path: "/p.so", symbol: "swift_plugin_entry"),
        .entryNotAFunction(path: "/p.so", symbol: "swift_plugin_entry", reason: "data"),
        .entryReturnedNothing(path: "/p.so"),
        .badMagic(path: "/p.so", found: 1),
        .unsupportedHeader(path: "/p.so", format: 2),
        .unsupportedHeader(path: "/p.so", format: 99),
        .malformedHeader(path: "/p.so", reason: "no descriptor"),
        .incompatibleLibraries(path: "/p.so", mismatches: [
            .version(library: "A", plugin: "1.0.0", host: "2.0.0", file: "/l/libA.so"), .unknown(library: "A", plugin: "1.0.0"),
            .unrecorded(library: "A", host: "1.0.0"), .ownCopy(library: "A", carrier: "libB.so"), .unreadableLinks,
        ]),
        .foreignDescriptor(path: "/p.so"),
        .malformedMetadata(path: "/p.so", reason: "empty name"),
        .duplicatePlugin(name: "p", path: "/p.so", loadedFrom: "/q.so"),
        .keyConflict(key: "k", plugin: "p", providedBy: "q"),
        .missingRequirement(plugin: "p", key: "k", reason: "no loaded plugin provides it"),
        .requirementTypeMismatch(plugin: "p", key: "k", providedBy: "q", reason: "another type"),
        .requirementCycle(plugin: "p", chain: ["p", "q", "p"]),
        .registrationFailed(plugin: "p", reason: "threw"),
        .probeFailed(path: "/p.so", reason: "crashed"),
        .startFailed(plugin: "p", reason: HookOutcome.timedOut(.seconds(1)).description),
        .shadowFolderUnusable(path: "/tmp", reason: "its file system is mounted noexec"),
        .stillRequired(plugin: "p", requiredBy: ["q", "r"]),
        .processFailed(path: "/p.so", reason: "the key 'k' is not distributed"),
        .fileRefused(path: "/p.so", reason: "it is not in the digest list /l/SHA256SUMS; its SHA-256 is 00"),
        .settingsUnreadable(reason: "the settings file /etc/p.json is not JSON"),
    ]

    private static func caseNumber(_ error: PluginLoadError) -> Int {
        switch error {
        case .notFound: 0
        case .emptySearchPath: 1
        case .unusablePath: 2
        case .notARegularFile: 3
        case .untrusted: 4
        case .compilerMismatch: 5
        case .notASharedLibrary: 6
        case .libraryRefused: 7
        case .missingEntrySymbol: 8
        case .entryNotAFunction: 9
        case .entryReturnedNothing: 10
        case .badMagic: 11
        case .unsupportedHeader: 12
        case .malformedHeader: 13
        case .incompatibleLibraries: 14
        case .foreignDescriptor: 15
        case .malformedMetadata: 16
        case .duplicatePlugin: 17
        case .keyConflict: 18
        case .missingRequirement: 19
        case .requirementTypeMismatch: 20
        case .requirementCycle: 21
        case .registrationFailed: 22
        case .probeFailed: 23
        case .startFailed: 24
        case .shadowFolderUnusable: 25
        case .stillRequired: 26
        case .processFailed: 27
        case .fileRefused: 28
        case .settingsUnreadable: 29
        }
    }

    @Test func noErrorDescriptionNamesACommandLineFlag() {
        #expect(Set(Self.everyError.map(Self.caseNumber)) == Set(0...29))
        for error in Self.everyError {
            #expect(!error.description.contains("--"), "\(error.description)")
        }
        for outcome in [HookOutcome.finished, .failed("x"), .timedOut(.seconds(1)), .stopped] {
            #expect(!outcome.description.contains("--"), "\(outcome.description)")
        }
    }

    /// The refusals an option lifts name it, as text and as the option itself.
    @Test func aRefusalAnOptionLiftsNamesTheOption() {
        for error in Self.everyError {
            switch error {
            case .untrusted, .libraryRefused(_, _, _?, _):
                #expect(error.allowedBy == \.allowUntrusted, "\(error)")
                #expect(error.description.hasSuffix("PluginDiscovery.allowUntrusted loads it anyway"), "\(error)")
            case .compilerMismatch:
                #expect(error.allowedBy == \.allowOtherCompilers, "\(error)")
                #expect(error.description.hasSuffix("PluginDiscovery.allowOtherCompilers loads it anyway"), "\(error)")
            default:
                #expect(error.allowedBy == nil, "\(error)")
            }
        }
    }
}
