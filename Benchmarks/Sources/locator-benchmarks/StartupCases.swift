import Glibc
import HostKit

/// Start-up with many plugin libraries: HostKit's whole load against bare `dlopen` + `dlsym` of as many
/// fresh copies of the same library, in the same run.
///
/// One ``GeneratedPlugin`` is built once. Each copy of the library gets its own plugin number patched
/// into its strings (`generated-plugin-017`, keys `generated-plugin-017.service0` ...). A library is
/// never unloaded, so every repetition of every contestant opens its own fresh copies.
enum StartupCases {
    struct Size: Sendable {
        var plugins: Int
        var services: Int
    }

    struct Result: Sendable {
        let size: Size
        /// Milliseconds per repetition, by contestant.
        let host: [Double]
        let bare: [Double]
        let bareWithEntry: [Double]

        /// The host's median over bare `dlopen` + `dlsym`'s.
        var ratio: Double { host.median / bare.median }
    }

    static let name = "startup"

    static func run(_ size: Size, repetitions: Int) -> Result {
        let image = GeneratedPlugin.Image(path: GeneratedPlugin.build(services: size.services, type: .pluginClass, for: name))
        let runDirectory = Files.makeTemporaryDirectory("locator-benchmarks-run")
        defer { Files.removeTree(runDirectory) }

        // Writes `size.plugins` fresh copies into a new folder; returns their paths, sorted.
        var folders = 0
        func freshCopies() -> (folder: String, files: [String]) {
            folders += 1
            let folder = "\(runDirectory)/copies\(folders)"
            Files.makeDirectory(folder)
            let files = (0..<size.plugins).map { index in
                let number = String(index + 1000).dropFirst()   // 000, 001, ...
                let path = "\(folder)/plugin-\(number).so"
                Files.write(path, image.numbered(number))
                return path
            }
            return (folder, files)
        }

        // Each contestant loads the copies in `folder` and returns a check, run after the clock stopped.
        typealias Contestant = (_ folder: String, _ files: [String]) -> () -> Void
        let contestants: [(String, Contestant)] = [
            ("host", { folder, files in
                let host = PluginHost()
                let report = host.load([.directory(folder)])
                return {
                    guard report.loaded.count == files.count, !report.hasProblems else { fail("PluginHost.load: \(report.text)") }
                    let slots = host.locator.slots.count
                    guard slots == size.plugins * size.services else { fail("PluginHost.load registered \(slots) slots") }
                }
            }),
            ("bare", { _, files in
                var entries: [UnsafeMutableRawPointer?] = []
                entries.reserveCapacity(files.count)
                for file in files {
                    entries.append(GeneratedPlugin.openBare(file))
                }
                return {
                    guard entries.allSatisfy({ $0 != nil }) else { fail("dlopen or dlsym failed: \(GeneratedPlugin.lastDlerror())") }
                    blackHole(UInt(bitPattern: entries.last??.hashValue ?? 0))
                }
            }),
            ("bareWithEntry", { _, files in
                typealias Entry = @convention(c) () -> UnsafeRawPointer?
                var headers: [UnsafeRawPointer?] = []
                headers.reserveCapacity(files.count)
                for file in files {
                    let entry = GeneratedPlugin.openBare(file)
                    headers.append(entry.flatMap { unsafeBitCast($0, to: Entry.self)() })
                }
                return {
                    guard headers.allSatisfy({ $0 != nil }) else { fail("dlopen, dlsym or the entry failed: \(GeneratedPlugin.lastDlerror())") }
                    blackHole(UInt(headers.last??.load(as: UInt64.self) ?? 0))
                }
            }),
        ]

        var samples: [String: [Double]] = [:]
        // Repetition -1 warms up each contestant (first calls into HostKit, the loader's caches).
        for repetition in -1..<repetitions {
            let order = repetition.isMultiple(of: 2) ? contestants : contestants.reversed()
            for (name, load) in order {
                let (folder, files) = freshCopies()
                let start = now()
                let check = load(folder, files)
                let elapsed = Double(now() - start) / 1_000_000
                check()
                if repetition >= 0 { samples[name, default: []].append(elapsed) }
            }
        }
        return Result(size: size, host: samples["host"] ?? [], bare: samples["bare"] ?? [],
                      bareWithEntry: samples["bareWithEntry"] ?? [])
    }
}
