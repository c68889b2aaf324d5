@testable import HostKit
import Testing

/// What `dlopen` says of a missing Swift declaration is also said in Swift terms.
@Suite struct SwiftDemangleTests {
    @Test func anUndefinedSwiftSymbolIsNamedInSwiftTerms() {
        let message = "/plugins/libClock.so: undefined symbol: $s15SampleContracts5ClockP4zoneSSyFTj"
        let explained = SwiftDemangle.explain(message)
        #expect(explained.hasPrefix(message))
        #expect(explained.contains("(dispatch thunk of SampleContracts.Clock.zone() -> Swift.String)"), "\(explained)")
        #expect(explained.contains("built against a newer version"))
    }

    @Test func otherMessagesStayAsTheyAre() {
        for message in ["/p/x.so: undefined symbol: not_a_swift_symbol", "/p/x.so: file too short", ""] {
            #expect(SwiftDemangle.explain(message) == message)
        }
    }
}
