/// Which call of a params slot a resolution frame makes: a cycle is the same slot asked again with
/// equal params, while the same slot with other params (`n` asking for `n - 1`) is a recursion that
/// may end, and is only as limited as any path's depth (``ServiceLocatorError/resolutionTooDeep(key:depth:)``).
///
/// Params are generic: they are compared when their type is `Hashable`. Params of any other type
/// cannot be told apart, and a call with them is never taken for a cycle: a recursion through them
/// that does not end is stopped by the depth check instead, as too deep.
enum ParamsOnPath: Sendable {
    /// A service without params: the slot alone names the call.
    case none
    /// Params that can be compared.
    case params(Copy)
    /// Params that cannot: no other call is the same.
    case incomparable

    /// The params a factory was called with, kept on its frame to be compared with `==`.
    struct Copy: @unchecked Sendable {
        // @unchecked: `Params` need not be Sendable. The copy is never changed, and it is compared
        // only by gets on the same resolution path: the factory's thread, or a task it started.
        let value: AnyHashable
    }

    init<Params>(_ params: Params) {
        if let comparable = params as? AnyHashable {
            self = .params(Copy(value: comparable))
        } else {
            self = .incomparable
        }
    }

    /// Whether a frame making this call of a slot and one making `other` of it make the same service.
    func isSameCall(as other: ParamsOnPath) -> Bool {
        switch (self, other) {
        case (.none, .none): true
        case let (.params(mine), .params(theirs)): mine.value == theirs.value
        default: false
        }
    }
}
