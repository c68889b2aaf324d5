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
}
