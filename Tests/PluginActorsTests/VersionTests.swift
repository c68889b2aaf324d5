import PluginAPI
import PluginActors
import Testing

@Suite struct VersionTests {
    /// The loaded library's version function answers the version compiled into its users.
    @Test func theLoadedVersionIsTheDeclaredOne() {
        #expect(pluginActorsLoadedVersion() == LibraryVersion.pluginActors.encoded)
        #expect(LibraryVersion.pluginActors.name == "PluginActors")
    }
}
