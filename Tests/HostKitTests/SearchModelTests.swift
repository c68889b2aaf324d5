import Foundation
@testable import DynamicLoading
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
    static let refused = ["$ORIGINAL", "$ORIGIN_X", "${ORIGIN}X", "$ORIGIN/$LIB", "$LIB", "${PLATFORM}", "lib", "", "./lib",
                          // A `..` after a folder below $ORIGIN: the folder of copies need not have it.
                          "$ORIGIN/nosuch/../../lib", "$ORIGIN/lib/../../abs", "${ORIGIN}/lib/../lib"]

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
        var layouts = Self.foundByReview
        for seed in seeds {
            var random = Generator(state: seed)
            layouts += (0..<30).map { _ in Layout(random: &random) }
        }
        for (index, layout) in layouts.enumerated() {
            switch try judge(layout, name: "\(index)", in: work, build: build) {
            case nil: refused += 1
            case let copied?: accepted += 1; fromCopies += copied ? 1 : 0
            }
        }
        // Both kinds occur, or the layouts test nothing.
        #expect(accepted >= 5, "only \(accepted) accepted")
        #expect(refused >= 5, "only \(refused) refused")
        // Libraries beside the plugin ran from their copies beside the plugin's copy.
        #expect(fromCopies >= 3, "only \(fromCopies) ran a library from the shadow folder")
    }

    /// One case: where the dependency lies (and the leaf library beside it), which build of it, the
    /// plugin's run path (`CASE` for the case's folder), its tags, how it names the dependency, and
    /// whether it names the leaf as a filter (DT_AUXILIARY).
    struct Layout: CustomStringConvertible {
        var placed: [(place: String, leaf: Bool)]
        var linked: Bool
        var runpath: [String]
        var oldTags = false
        var slashName = false
        var filter = false

        var description: String {
            "run path '\(runpath.joined(separator: ":"))'\(oldTags ? " (DT_RPATH)" : ""), dependency in \(placed.map(\.place))"
                + "\(linked ? " linking the leaf" : "")\(slashName ? ", named with a slash" : "")\(filter ? ", leaf as a filter" : "")"
        }
    }

    /// Layouts an adversarial review broke the first model with: a `..` after a folder the copies do
    /// not have (the loader went on to the next folder), a filter library (mapped unchecked).
    static let foundByReview = [
        Layout(placed: [("lib", false), ("abs", false)], linked: false, runpath: ["$ORIGIN/nosuch/../../lib", "CASE/abs"]),
        Layout(placed: [("plugins/lib", false), ("abs", false)], linked: false, runpath: ["$ORIGIN/lib/../lib", "CASE/abs"]),
        Layout(placed: [("abs", true)], linked: false, runpath: ["CASE/abs"], filter: true),
    ]

    /// Lays out one case, judges it, and for an accepted plugin compares with the real loader.
    /// Returns nil if the host refused it, else whether a library ran from the shadow folder.
    private func judge(_ layout: Layout, name: String, in work: TemporaryFolder, build: String) throws -> Bool? {
        let root = work.path + "/case-" + name
        let fileManager = FileManager.default
        for place in Self.places + Self.capabilityPlaces { try fileManager.createDirectory(atPath: root + "/" + place, withIntermediateDirectories: true) }
        try fileManager.createSymbolicLink(atPath: root + "/link", withDestinationPath: root + "/real")
        let source = build + (layout.linked ? "/linked" : "/alone")
        for (place, leaf) in layout.placed {
            try fileManager.copyItem(atPath: source + "/libsmdep.so", toPath: "\(root)/\(place)/libsmdep.so")
            if leaf { try fileManager.copyItem(atPath: build + "/libsmleaf.so", toPath: "\(root)/\(place)/libsmleaf.so") }
        }
        let runpath = layout.runpath.map { $0.replacing("CASE", with: root) }.joined(separator: ":")
        let tags = layout.oldTags ? "--disable-new-dtags" : "--enable-new-dtags"
        let library = layout.slashName ? ["linked/lib/libsmdep.so"] : ["-L\(source)", "-lsmdep"]
        let plugin = root + "/plugins/libplugin.so"
        try Self.cc(["-shared", "-fPIC", "-o", plugin, "plugin.c"] + library + (layout.filter ? ["-Wl,-f,libsmleaf.so"] : [])
                    + ["-Wl,-rpath-link,\(build)", "-Wl,\(tags),-rpath,\(runpath)"], in: build)
        // The host's judgement: discovered (copied), then the library closure of the copy.
        let shadow = try #require(try? ShadowFolder.make(in: work.path).get())
        defer { shadow.remove() }
        let candidate = try PluginDiscovery(allowUntrusted: true, allowOtherCompilers: true).candidate(plugin, into: shadow, fileCheck: nil).get()
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
            Paths.realPath(String(path)) ?? String(path)
        })
        #expect(opened.status == 0, "the host accepted what the loader could not open: case \(name), \(layout): \(opened.output)")
        #expect(ran == Set(closure.libraries), "case \(name), \(layout): ran \(ran.sorted()), checked \(closure.libraries)")
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

    /// From the adversarial review: a library found through an absolute run path is mapped from where
    /// it lies; one renamed over its path between its check and `dlopen` keeps the path, so comparing
    /// paths missed it (1 run in 40). The device and inode it is mapped from tell it apart.
    @Test func aLibraryRenamedOverBetweenItsCheckAndDlopenIsCaught() throws {
        let work = try TemporaryFolder()
        let build = work.path
        try Self.marking("swapped_value").write(toFile: build + "/swapped.c", atomically: true, encoding: .utf8)
        try "extern int swapped_value(void);\nvoid *swift_plugin_entry(void) { return (void *)(long)swapped_value(); }\n"
            .write(toFile: build + "/plugin.c", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: build + "/lib", withIntermediateDirectories: true)
        try Self.cc(["-shared", "-fPIC", "-o", "lib/libsmswapped.so", "swapped.c"], in: build)
        try Self.cc(["-shared", "-fPIC", "-o", "other.so", "swapped.c"], in: build)
        try Self.cc(["-shared", "-fPIC", "-o", "libplugin.so", "plugin.c", "-Llib", "-lsmswapped",
                     "-Wl,--enable-new-dtags,-rpath,\(build)/lib"], in: build)
        let shadow = try #require(try? ShadowFolder.make(in: build).get())
        defer { shadow.remove() }
        let candidate = try PluginDiscovery(allowUntrusted: true, allowOtherCompilers: true)
            .candidate(build + "/libplugin.so", into: shadow, fileCheck: nil).get()
        let closure = try LibraryClosure(plugin: candidate.image, reportedAs: candidate.realPath,
                                         dynamic: candidate.dynamic ?? .init(), allowUntrusted: true, shadow: candidate.shadow)
        #expect(closure.libraries == [build + "/lib/libsmswapped.so"])
        // Another file renamed over the checked one, then the loader maps it.
        #expect(rename(build + "/other.so", build + "/lib/libsmswapped.so") == 0)
        #expect(dlopen(candidate.image, RTLD_NOW | RTLD_LOCAL) != nil)
        #expect(closure.unchecked(allowing: candidate.image) == [build + "/lib/libsmswapped.so"])
    }
}

extension SearchModelTests.Layout {
    /// A layout drawn from `random`: mostly what the model decides, now and then what it refuses.
    init(random: inout SearchModelTests.Generator) {
        linked = Bool.random(using: &random)
        let linkedLeaf = linked
        placed = (SearchModelTests.places.filter { _ in Bool.random(using: &random) }
            + SearchModelTests.capabilityPlaces.filter { _ in Int.random(in: 0..<6, using: &random) == 0 })
            .map { ($0, linkedLeaf && Bool.random(using: &random)) }
        runpath = (0..<Int.random(in: 1...3, using: &random)).map { _ in
            let entries = Int.random(in: 0..<10, using: &random) < 7 ? SearchModelTests.modelled : SearchModelTests.refused
            return entries.randomElement(using: &random) ?? "$ORIGIN"
        }
        oldTags = Int.random(in: 0..<6, using: &random) == 0
        slashName = Int.random(in: 0..<6, using: &random) == 0
        filter = Int.random(in: 0..<8, using: &random) == 0
        // A filter is mapped only if found: then it lies beside the plugin.
        if filter {
            placed.removeAll { $0.place == "plugins" }
            placed.append(("plugins", true))
        }
    }
}
