import HostKit
import MetricsTestKit
import PluginAPI
import PluginHostMetrics
import SampleContracts
import Testing

/// `SwiftMetricsPluginMetrics`: a host's counts of its plugins recorded into swift-metrics (a test
/// backend here; the example server's is Prometheus).
@Suite struct MetricsTests {
    @Test func slotsHooksAndReloadsReachSwiftMetrics() throws {
        let backend = TestMetrics()
        let host = PluginHost(metrics: SwiftMetricsPluginMetrics(factory: backend))
        let report = host.load([Samples.file("ClockPlugin"), Samples.file("GreeterPlugin")])
        #expect(report.problems.isEmpty, "\(report.text)")
        _ = host.locator.getService(key: SampleKeys.greeter)
        _ = host.locator.getService(key: SampleKeys.greeter)
        _ = host.locator.getService(key: ServiceLocatorEasyKey<Int>(name: "sample.greeter"))  // another type
        host.shutdown()

        let slot = [("plugin", "greeter"), ("key", "sample.greeter")]
        #expect(try backend.expectCounter("plugin_service_gets_total", slot).totalValue == 2)
        #expect(try backend.expectCounter("plugin_service_get_failures_total", slot).totalValue == 1)
        #expect(try backend.expectTimer("plugin_service_make_duration", slot).values.count == 1)
        for (plugin, hook) in [("clock", "start"), ("greeter", "start"), ("greeter", "shutdown"), ("clock", "shutdown")] {
            let timer = try backend.expectTimer("plugin_hook_duration",
                                                [("plugin", plugin), ("hook", hook), ("outcome", "finished")])
            #expect(timer.values.count == 1, "\(plugin) \(hook)")
        }
    }

    /// A host's call to a plugin in a process of its own, as PluginMetrics hears of it, recorded by
    /// plugin, method and outcome, and timed.
    @Test func callsToAPluginInAProcessOfItsOwnReachSwiftMetrics() throws {
        let backend = TestMetrics()
        let metrics = SwiftMetricsPluginMetrics(factory: backend)
        metrics.processCalled(plugin: "echo", method: "echo", outcome: "answered", duration: .milliseconds(2))
        metrics.processCalled(plugin: "echo", method: "echo", outcome: "answered", duration: .milliseconds(3))
        metrics.processCalled(plugin: "echo", method: "fail", outcome: "threw", duration: .milliseconds(1))
        let answered = [("plugin", "echo"), ("method", "echo"), ("outcome", "answered")]
        #expect(try backend.expectCounter("plugin_process_calls_total", answered).totalValue == 2)
        #expect(try backend.expectCounter("plugin_process_calls_total", [("plugin", "echo"), ("method", "fail"), ("outcome", "threw")])
            .totalValue == 1)
        #expect(try backend.expectTimer("plugin_process_call_duration", [("plugin", "echo"), ("method", "echo")]).values
            == [2_000_000, 3_000_000])
    }
}
