import Foundation
import TestSupport
import Testing

extension HostCommandTests {
    /// The probe timeout is the point for the hanging fixture, and generous: the clock plugin's probe
    /// must end within it too, and with 2 s a busy machine once killed it.
    @Test func checkIsolatedSurvivesACrashingAndAHangingPlugin() async throws {
        let run = try await host(["check", "--isolated", "--probe-timeout", "30"]
            + ["ClockPlugin", "FixtureCrash", "FixtureHang"].flatMap { ["--plugins", plugin($0)] },
            environment: misbehave)
        #expect(run.status == 1)
        #expect(run.errorLines.count == 2, "\(run.errors)")
        #expect(run.errors.contains("libFixtureCrash.so: probe failed: crashed while loading: signal 11"))
        #expect(run.errors.contains("libFixtureHang.so: probe failed: did not finish loading within 30"))
        #expect(run.output.contains("1 loaded, 2 problem(s)"))
    }

    /// A header with the right magic and format whose pointers lie: each lie is refused with its own
    /// message, without a crash (the host reads them through the kernel, never by a Swift cast), and
    /// the good plugin beside it loads. In a `host` child, so that a crash would fail only this test.
    @Test(arguments: [
        ("", nil),
        ("descriptor-header", "its descriptor is not this host's PluginAPI type"),
        ("descriptor-object", "its descriptor is not this host's PluginAPI type"),
        ("descriptor-unmapped", "malformed plugin header: the descriptor pointer 0x0000000000000100 points at no readable memory"),
        ("descriptor-misaligned", "malformed plugin header: the descriptor pointer 0x"),
        ("records-unmapped", "malformed plugin header: the 1 library records at 0x0000000000000100 are not readable memory"),
        ("header-unmapped", "malformed plugin header: the entry returned 0x0000000000000100, which is not readable memory"),
    ] as [(String, String?)])
    func aHeaderWhosePointersLieIsRefusedWithoutACrash(forge: String, refusal: String?) async throws {
        let run = try await host(["check", "--plugins", plugin("FixtureForgedHeader"), "--plugins", plugin("ClockPlugin")],
                                 environment: ["HOSTKIT_FIXTURE_FORGE": forge])
        guard let refusal else {
            #expect(run.status == 0, "an honest header: \(run.errors)")
            return
        }
        #expect(run.status == 1, "\(forge): \(run.errors)")
        #expect(run.errors.contains("libFixtureForgedHeader.so: \(refusal)"), "\(forge): \(run.errors)")
        #expect(run.output.contains("1 loaded, 1 problem(s)"), "\(forge): \(run.output)")
        if forge == "descriptor-misaligned" { #expect(run.errors.contains("is not aligned for an object")) }
    }

    /// `inspect` runs the plugin's code (its initializers, its entry): with `--isolated`, in a child
    /// first. Before, the flag was accepted and ignored, and this crashed the host.
    @Test func inspectIsolatedSurvivesACrashingPlugin() async throws {
        var environment = misbehave
        environment["HOSTKIT_FIXTURE_CRASH_IN_ENTRY"] = "1"
        let crash = try await host(["inspect", "--isolated", plugin("FixtureCrash")], environment: environment)
        #expect(crash.status == 1 && crash.output.isEmpty, "\(crash.output)")
        #expect(crash.errors.contains("libFixtureCrash.so: probe failed: crashed while loading: signal 11"), "\(crash.errors)")
        let isolated = try await host(["inspect", "--isolated", plugin("GreeterPlugin")])
        #expect(isolated.status == 0, "\(isolated.errors)")
        #expect(isolated.output.contains("name:     greeter"), "\(isolated.output)")
    }

    /// A probe child that crashes leaves no folder of copies behind: its own lies inside its parent's,
    /// which the parent removes (from the adversarial review: one folder leaked per crash).
    @Test func aCrashingProbeChildLeavesNoFolderOfCopies() async throws {
        var environment = misbehave
        environment["HOSTKIT_FIXTURE_CRASH_IN_ENTRY"] = "1"
        let parent = try TemporaryFolder()
        let crash = try await host(["inspect", "--isolated", "--shadow-folder", parent.path, plugin("FixtureCrash")],
                                   environment: environment)
        #expect(crash.errors.contains("probe failed: crashed while loading: signal 11"), "\(crash.errors)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path).isEmpty)
    }

    /// A start hook bounded by `--start-timeout`, not by the 30 s default: the refusal names the bound
    /// it was held to. (Not timed: on a busy machine a host that stops after 1 s took 39 s to exit.)
    @Test func startTimeoutBoundsAHangingStartHook() async throws {
        let run = try await host(["check", "--start", "--start-timeout", "1", "--plugins", plugin("FixtureQuietControl"),
                                  "--plugins", plugin("FixtureLifecycleA")],
                                 environment: ["HOSTKIT_FIXTURE_LIFECYCLE_HANG": "start a"])
        #expect(run.status == 1)
        #expect(run.errors.contains("plugin 'fixture-lifecycle-a': start did not finish within 1.0 seconds"), "\(run.errors)")
    }
}
