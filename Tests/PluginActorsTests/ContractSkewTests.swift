import Distributed
import Testing
@_spi(HostKit) @testable import PluginActors

/// Calls from a peer built against another release of the contract than the serving side's: made by
/// hand here from a real call's frame (one process holds one release), changed as the other release
/// would send it. What the serving side cannot run is answered as such (`notServed`,
/// `invalidMessage`), never as an error of the service's own: the Distributed runtime hands both
/// failures to the result handler, not to the code that runs the call.
/// (`DistributedContractEvolutionTests` makes the same calls between two real builds.)
@Suite struct ContractSkewTests {
    /// The calculator served under "calc" by its contract, as a child serves a plugin's service.
    private func servedCalculator() throws -> RawPeer {
        let calculator = LocalCalculator(actorSystem: PluginActorSystem())
        return try RawPeer(connecting: PluginActorSystem(), as: "raw-client") { name in
            guard name == "calc" else { throw PluginActorError.unsupported("no \(name)") }
            return (calculator, $Calculator<PluginActorSystem>.self)
        }
    }

    /// The failure `peer` answers to a call of `target` with `arguments`.
    private func failure(from peer: RawPeer, target: String, arguments: [UInt8]) async throws -> Frame.Failure {
        try peer.send(.call, call: 1) { body in
            body.appendShortText("calc")
            body.appendShortText(target)
            body.append(contentsOf: arguments)
        }
        let reply = try #require(await peer.nextFrame())
        try #require(reply.kind == .failure, "answered \(reply.kind)")
        return try WireFormat.decode(Frame.Failure.self, from: reply.body)
    }

    /// A method of the contract that the serving side's release lacks (a newer caller's addition):
    /// the target names the contract, so it passes the check of whose method it is, and the runtime
    /// finds no code for it.
    @Test func aMethodTheServingSideLacksIsNotServed() async throws {
        let (target, arguments) = try await ConnectionAdversaryTests.callSent { system in
            try await $Calculator<PluginActorSystem>.resolve(id: PluginActorID(peer: "raw", name: "calc"), using: system).nothing()
        }
        // `nothing()` renamed `nowhere()` (as long, so the mangled name stays well formed).
        let newer = target.replacing("7nothing", with: "7nowhere")
        try #require(newer != target && TargetName.demangled(newer).contains("$Calculator.nowhere()"), "\(TargetName.demangled(newer))")

        let failure = try await failure(from: try servedCalculator(), target: newer, arguments: arguments)
        #expect(failure.reason == .notServed, "\(failure)")
        #expect(failure.message.contains("has no such method"), "\(failure)")
        #expect(failure.type == "", "answered as the service's own error: \(failure)")
    }

    /// An argument whose struct lacks a field the serving side requires (here renamed: `label` sent
    /// as `lobel`): the arguments cannot be read, and the field is named.
    @Test func anArgumentTheServingSideCannotReadIsAnInvalidMessage() async throws {
        let (target, arguments) = try await ConnectionAdversaryTests.callSent { system in
            let proxy = try $Calculator<PluginActorSystem>.resolve(id: PluginActorID(peer: "raw", name: "calc"), using: system)
            _ = try await proxy.add(Pair(left: 1, right: 2, label: "x"))
        }
        let label = Array("label".utf8), renamed = Array("lobel".utf8)
        let start = try #require(arguments.indices.first { arguments[$0...].starts(with: label) }, "no key 'label' in \(arguments)")
        var other = arguments
        other.replaceSubrange(start..<start + label.count, with: renamed)

        let failure = try await failure(from: try servedCalculator(), target: target, arguments: other)
        #expect(failure.reason == .invalidMessage, "\(failure)")
        #expect(failure.message.contains("label"), "\(failure)")
        #expect(failure.type == "", "answered as the service's own error: \(failure)")
    }
}
