@_spi(HostKit) @testable import PluginActors
import Testing

/// A call target named in an error as its contract's author wrote it: without the runtime's
/// `distributed thunk`, the stub's `$`, the effects and the result; a context's parentheses kept.
@Suite struct TargetNameTests {
    @Test(arguments: [
        ("distributed thunk Contracts.$Echo.echo(Contracts.EchoMessage) async throws -> Contracts.EchoMessage",
         "Contracts.Echo.echo(Contracts.EchoMessage)", "echo"),
        ("distributed thunk Contracts.$Echo.hang() async throws -> ()", "Contracts.Echo.hang()", "hang"),
        // A parameter whose type has parentheses of its own.
        ("distributed thunk M.$Pool.run(_: (Swift.Int) -> Swift.Int) async throws -> Swift.Int",
         "M.Pool.run(_: (Swift.Int) -> Swift.Int)", "run"),
        // A context in parentheses before the method's name.
        ("distributed thunk (extension in M):M.$Foo.bar(Swift.Int) async throws -> ()", "(extension in M):M.Foo.bar(Swift.Int)", "bar"),
        ("distributed thunk M.(Hidden in _1A2B).$Foo.bar() async throws -> ()", "M.(Hidden in _1A2B).Foo.bar()", "bar"),
        // Not a thunk: as it is.
        ("M.foo() -> ()", "M.foo() -> ()", "foo"),
    ])
    func aTargetIsDescribedAsItsContractNamesIt(_ demangled: String, _ described: String, _ method: String) {
        #expect(TargetName.described(demangled) == described)
        #expect(TargetName.methodName(of: described) == method)
    }

    /// A contract is named by its stub type's name without its generic arguments, as
    /// `String(reflecting:)` writes it (the name is written without that function's conformance checks).
    @Test func aStubTypeNamesItsContract() {
        #expect(TargetName.contract(of: Stub<PluginActorSystem>.self) == "PluginActorsTests.Stub")
        #expect(TargetName.contract(of: Stub<Int>.Nested.self) == "PluginActorsTests.Stub")
        #expect(String(reflecting: Stub<PluginActorSystem>.self).hasPrefix(TargetName.contract(of: Stub<PluginActorSystem>.self) + "<"))
    }
}

/// A generic type standing in for a distributed actor's stub, for its contract's name.
struct Stub<System> {
    struct Nested {}
}
