import Foundation
@testable import HostKit
import TestSupport
import Testing

/// The host's model of the dynamic linker's search (`SearchModel`, `LibraryClosure`) against the real
/// loader: generated layouts (run paths with every token form, absolute, relative and empty entries,
/// names with and without a slash, DT_RPATH, symlinked folders, hardware-capability subfolders,
/// libraries missing in some places), each judged by the host, then opened for real in a child
/// process whose libraries' constructors only write down which file they run from. For every plugin
/// the host accepts, the files that ran must be exactly the files it checked. Seeded and replayable:
/// `SEARCH_MODEL_SEED=N swift test --filter SearchModelTests` runs the cases of seed N.
@Suite struct SearchModelTests {
    /// A library whose constructor appends the path of the file it runs from to `$SEARCH_MODEL_MARKS`.
    static func marking(_ function: String) -> String {
        """
        #define _GNU_SOURCE
        #include <dlfcn.h>
        #include <stdio.h>
        #include <stdlib.h>
        static void mark(void) __attribute__((constructor));
        static void mark(void) {
            Dl_info info;
            const char *marks = getenv("SEARCH_MODEL_MARKS");
            if (marks && dladdr((void *)mark, &info) && info.dli_fname) {
                FILE *file = fopen(marks, "a");
                if (file) { fprintf(file, "%s\\n", info.dli_fname); fclose(file); }
            }
        }
        int \(function)(void) { return 1; }

        """
    }

    /// Opens the file it is given as a plugin host would (`RTLD_NOW | RTLD_LOCAL`); says why not.
    static let opener = """
        #include <dlfcn.h>
        #include <stdio.h>
        int main(int argc, char **argv) {
            if (argc < 2 || !dlopen(argv[1], RTLD_NOW | RTLD_LOCAL)) { printf("%s\\n", dlerror()); return 1; }
            return 0;
        }

        """

    /// Runs `executable` with `arguments` in `folder` and waits (cc, and the opener: neither hangs).
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], in folder: String,
                    environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
        let process = Process()
        let pipe = Pipe()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    static func cc(_ arguments: [String], in folder: String) throws {
        let result = try run("/usr/bin/env", ["cc"] + arguments, in: folder)
        try #require(result.status == 0, "cc \(arguments): \(result.output)")
    }

    /// A small generator that replays from its seed (SplitMix64).
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    /// The places a library may lie in a case's folder, relative to it ("plugins" holds the plugin):
    /// ordinary folders, and subfolders the loader searches first for hardware capabilities.
    static let places = ["plugins", "plugins/lib", "lib", "abs", "real"]
    static let capabilityPlaces = ["plugins/tls", "plugins/x86_64", "plugins/glibc-hwcaps/x86-64-v2", "abs/tls/x86_64",
                                   "real/x86_64/x86_64"]

    /// Run path entries the model decides (`CASE` stands for the case's folder), and entries it refuses.
    static let modelled = ["$ORIGIN", "${ORIGIN}", "$ORIGIN/lib", "$ORIGIN/../lib", "${ORIGIN}/../lib", "$ORIGIN/",
                           "CASE/abs", "CASE/link", "CASE/plugins/../abs"]
    static let refused = ["$ORIGINAL", "$ORIGIN_X", "${ORIGIN}X", "$ORIGIN/$LIB", "$LIB", "${PLATFORM}", "lib", "", "./lib"]

    @Test func theFilesThatRunAreTheFilesTheHostChecked() throws {
        let given = ProcessInfo.processInfo.environment["SEARCH_MODEL_SEED"].flatMap { UInt64($0) }
        let seeds: [UInt64] = given.map { [$0] } ?? [1, 2]
        let work = try TemporaryFolder()
        let build = work.path
        try Self.marking("leaf_value").write(toFile: build + "/leaf.c", atomically: true, encoding: .utf8)
        try Self.marking("dep_value").write(toFile: build + "/dep.c", atomically: true, encoding: .utf8)
        try Self.opener.write(toFile: build + "/opener.c", atomically: true, encoding: .utf8)
        try "extern int dep_value(void);\nvoid *swift_plugin_entry(void) { return (void *)(long)dep_value(); }\n"
            .write(toFile: build + "/plugin.c", atomically: true, encoding: .utf8)
        try Self.cc(["-o", "opener", "opener.c", "-ldl"], in: build)
        try Self.cc(["-shared", "-fPIC", "-o", "libsmleaf.so", "leaf.c"], in: build)
        // Two builds of the dependency: alone, and linking the leaf library through its own $ORIGIN.
        try FileManager.default.createDirectory(atPath: build + "/alone", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: build + "/linked/lib", withIntermediateDirectories: true)
        try Self.cc(["-shared", "-fPIC", "-o", "alone/libsmdep.so", "dep.c"], in: build)
        try Self.cc(["-shared", "-fPIC", "-o", "linked/libsmdep.so", "dep.c", "-L.", "-lsmleaf",
                     "-Wl,--enable-new-dtags,-rpath,$ORIGIN"], in: build)
        try FileManager.default.copyItem(atPath: build + "/linked/libsmdep.so", toPath: build + "/linked/lib/libsmdep.so")
        var accepted = 0, refused = 0, fromCopies = 0
        for seed in seeds {
            var random = Generator(state: seed)
            for index in 0..<30 {
                switch try judge(case: "\(seed)-\(index)", in: work, build: build, random: &random) {
                case nil: refused += 1
                case let copied?: accepted += 1; fromCopies += copied ? 1 : 0
                }
            }
        }
        // Both kinds occur, or the layouts test nothing.
        #expect(accepted >= 5, "only \(accepted) accepted")
        #expect(refused >= 5, "only \(refused) refused")
        // Libraries beside the plugin ran from their copies beside the plugin's copy.
        #expect(fromCopies >= 3, "only \(fromCopies) ran a library from the shadow folder")
    }

    /// Lays out one case, judges it, and for an accepted plugin compares with the real loader.
    /// Returns nil if the host refused it, else whether a library ran from the shadow folder.
    private func judge(case name: String, in work: TemporaryFolder, build: String,
                       random: inout Generator) throws -> Bool? {
        let root = work.path + "/case-" + name
        let fileManager = FileManager.default
        for place in Self.places + Self.capabilityPlaces { try fileManager.createDirectory(atPath: root + "/" + place, withIntermediateDirectories: true) }
        try fileManager.createSymbolicLink(atPath: root + "/link", withDestinationPath: root + "/real")
        let linked = Bool.random(using: &random)
        let source = build + (linked ? "/linked" : "/alone")
        // The dependency in some places (maybe none), the leaf beside some of them.
        let placed = Self.places.filter { _ in Bool.random(using: &random) }
            + Self.capabilityPlaces.filter { _ in Int.random(in: 0..<6, using: &random) == 0 }
        for place in placed {
            try fileManager.copyItem(atPath: source + "/libsmdep.so", toPath: "\(root)/\(place)/libsmdep.so")
            if linked, Bool.random(using: &random) {
                try fileManager.copyItem(atPath: build + "/libsmleaf.so", toPath: "\(root)/\(place)/libsmleaf.so")
            }
        }
        let count = Int.random(in: 1...3, using: &random)
        let runpath = (0..<count).map { _ in
            let entries = Int.random(in: 0..<10, using: &random) < 8 ? Self.modelled : Self.refused
            return entries.randomElement(using: &random)?.replacing("CASE", with: root) ?? "$ORIGIN"
        }.joined(separator: ":")
        let tags = Int.random(in: 0..<6, using: &random) == 0 ? "--disable-new-dtags" : "--enable-new-dtags"
        // Linked by its bare name, or by a path with a slash (the name the file then needs).
        let library = Int.random(in: 0..<6, using: &random) == 0 ? ["linked/lib/libsmdep.so"] : ["-L\(source)", "-lsmdep"]
        let plugin = root + "/plugins/libplugin.so"
        try Self.cc(["-shared", "-fPIC", "-o", plugin, "plugin.c"] + library
                    + ["-Wl,-rpath-link,\(build)", "-Wl,\(tags),-rpath,\(runpath)"], in: build)
        // The host's judgement: discovered (copied), then the library closure of the copy.
        let shadow = try #require(try? ShadowFolder.make(in: work.path).get())
        defer { shadow.remove() }
        let candidate = try PluginDiscovery(allowUntrusted: true, allowOtherCompilers: true).candidate(plugin, into: shadow).get()
        let closure: LibraryClosure
        do {
            closure = try LibraryClosure(plugin: candidate.image, reportedAs: plugin, dynamic: candidate.dynamic ?? .init(),
                                         allowUntrusted: true, shadow: candidate.shadow)
        } catch {
            return nil
        }
        // The real loader, in a child, opening the very file the host would open.
        let marks = work.path + "/marks-" + name
        let opened = try Self.run(build + "/opener", [candidate.image], in: work.path, environment: ["SEARCH_MODEL_MARKS": marks])
        let ran = Set(((try? String(contentsOfFile: marks, encoding: .utf8)) ?? "").split(separator: "\n").map { path in
            LibraryClosure.realPath(String(path)) ?? String(path)
        })
        let layout = "case \(name): run path '\(runpath)' (\(tags)), \(library), linked leaf: \(linked)"
        #expect(opened.status == 0, "the host accepted what the loader could not open: \(layout): \(opened.output)")
        #expect(ran == Set(closure.libraries), "\(layout): ran \(ran.sorted()), checked \(closure.libraries)")
        return ran.contains { $0.hasPrefix(shadow.root + "/") }
    }

    /// The loader's cache as this host reads it against `ldconfig -p`, which prints it: each name
    /// listed once for this machine is where the host says the loader takes it.
    @Test func theLoaderCacheReadsAsLdconfigPrintsIt() throws {
        let printed = try Self.run("/sbin/ldconfig", ["-p"], in: "/")
        try #require(printed.status == 0, "\(printed.output)")
        #if arch(x86_64)
        let machine = "(libc6,x86-64)"
        #else
        let machine = "(libc6,AArch64)"
        #endif
        var listed: [String: [String]] = [:]
        for line in printed.output.split(separator: "\n") where line.contains(machine + " => ") {
            let parts = line.trimmingCharacters(in: .whitespaces).components(separatedBy: " => ")
            guard parts.count == 2, let name = parts[0].split(separator: " ").first else { continue }
            listed[String(name), default: []].append(parts[1])
        }
        try #require(listed.count > 10, "ldconfig -p listed \(listed.count) names")
        for (name, paths) in listed {
            if paths.count == 1 {
                #expect(try LoaderCache.path(of: name) == paths[0], "\(name)")
            } else {
                #expect(throws: SearchModel.Refusal.self, "\(name)") { try LoaderCache.path(of: name) }
            }
        }
        #expect(try LoaderCache.path(of: "libno-such-library-here.so.9") == nil)
    }
}
