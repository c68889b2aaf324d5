import Glibc
@testable import DynamicLoading
@testable import HostKit
import TestSupport
import Testing

/// PluginAPI writes a plugin's header with constants compiled into the plugin; HostKit reads it with
/// its own (`PluginHeader.Layout`). A real plugin's header must say what the host expects.
@Suite struct HeaderLayoutTests {
    @Test func aRealPluginsHeaderHasTheLayoutTheHostReads() throws {
        let handle = try #require(dlopen(BuiltPlugins.path("ClockPlugin"), RTLD_NOW | RTLD_LOCAL))
        let symbol = try #require(dlsym(handle, EntrySymbol.name))
        typealias Entry = @convention(c) () -> UnsafeRawPointer
        let header = unsafeBitCast(symbol, to: Entry.self)()
        #expect(header.loadUnaligned(fromByteOffset: 0, as: UInt64.self) == PluginHeader.Layout.magic.littleEndian)
        #expect(header.loadUnaligned(fromByteOffset: 8, as: UInt32.self) == PluginHeader.Layout.format.littleEndian)
        #expect(header.loadUnaligned(fromByteOffset: 12, as: UInt32.self) == PluginHeader.Layout.headerSize.littleEndian)
        let records = try #require(header.loadUnaligned(fromByteOffset: 24, as: UnsafeRawPointer?.self))
        let count = header.loadUnaligned(fromByteOffset: 32, as: UInt32.self)
        #expect(count >= 2, "PluginAPI and SampleContracts")
        // The second record starts one record size after the first: its name is SampleContracts.
        let name = records.loadUnaligned(fromByteOffset: PluginHeader.Layout.recordSize, as: UnsafePointer<CChar>.self)
        #expect(String(cString: name) == "SampleContracts")
    }
}
