@testable import HostKit
import PluginAPI
import Testing

/// What a plugin's log line prints (`PluginLogLine.description`) tells whose line it is.
@Suite struct PluginLogLineTests {
    /// A plugin's name and version are its metadata's, any text: a plugin named so that its name and
    /// version run on into a level and a message must not print a line that `auth` could have written.
    @Test func aPluginsNameCannotRunOnIntoAnotherPluginsLine() {
        let auth = PluginLogLine(plugin: "auth", version: "1.0.0", level: .critical, message: "disk failing] info: x",
                                 metadata: [:], file: "Auth/Auth.swift", line: 1)
        let impostor = PluginLogLine(plugin: "auth 1.0.0] critical: disk", version: "failing", level: .info, message: "x",
                                     metadata: [:], file: "Impostor/Impostor.swift", line: 1)
        #expect(auth.description != impostor.description, "both print \(auth.description)")
    }

    /// A metadata value is the plugin's text: one with a space and `=` must not print as two fields.
    @Test func aMetadataValueCannotReadAsTwoFields() {
        let one = PluginLogLine(plugin: "p", version: "1", level: .info, message: "m", metadata: ["a": "1 b=2"],
                                file: "P/P.swift", line: 1)
        let two = PluginLogLine(plugin: "p", version: "1", level: .info, message: "m", metadata: ["a": "1", "b": "2"],
                                file: "P/P.swift", line: 1)
        #expect(one.description != two.description, "both print \(one.description)")
        #expect(one.description == "[p 1] info: m a=\"1 b=2\"")
        #expect(two.description == "[p 1] info: m a=1 b=2")
    }
}
