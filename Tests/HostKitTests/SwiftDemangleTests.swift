@testable import HostKit
import PluginAPI
import Testing

/// What `dlopen` says of a missing Swift declaration is also said in Swift terms.
@Suite struct SwiftDemangleTests {
    @Test func anUndefinedSwiftSymbolIsNamedInSwiftTerms() {
        let message = "/plugins/libClock.so: undefined symbol: $s15SampleContracts5ClockP4zoneSSyFTj"
        let copy = SwiftDemangle.Copy(file: "/plugins/libSampleContracts.so", version: LibraryVersion("SampleContracts", 2, 0, 0))
        var asked: [String] = []
        let explained = SwiftDemangle.explain(message, opened: "/plugins/libClock.so") { asked.append($0); return copy }
        #expect(explained == "undefined symbol: $s15SampleContracts5ClockP4zoneSSyFTj (dispatch thunk of "
                + "SampleContracts.Clock.zone() -> Swift.String): a declaration of SampleContracts that the copy it was "
                + "bound to, SampleContracts 2.0.0 (/plugins/libSampleContracts.so), lacks: built against another version "
                + "of SampleContracts, rebuild it against SampleContracts 2.0.0 or load it with the copy it was built against")
        #expect(asked == ["SampleContracts"], "the library is the symbol's module")
    }

    @Test func otherMessagesStayAsTheyAre() {
        for message in ["/p/x.so: undefined symbol: not_a_swift_symbol", "/p/x.so: file too short", ""] {
            #expect(SwiftDemangle.explain(message, opened: "/q/y.so") { _ in nil } == message)
        }
    }
}
