extension ServiceSlotInfo {
    /// Why this slot cannot serve `declared`, or `nil` if it can (same service type, the same
    /// parameters type or none on both sides, async on both sides or on neither). Two distinct types
    /// of the same name are said to be so: the module defining them is linked into more than one
    /// binary. A plain key met by a slot with parameters, or by an async slot, is a mismatch: every
    /// plain get of it would fail.
    @_spi(HostKit)
    public func mismatch(with declared: DeclaredKey) -> String? {
        let sameParams = declared.params.map(ObjectIdentifier.init) == params.map(ObjectIdentifier.init)
        if declared.service == service && sameParams && declared.isAsync == isAsync { return nil }
        let slotText = Self.signature(serviceType, params: paramsType, isAsync: isAsync)
        let wantedText = Self.signature(declared.serviceType, params: declared.paramsType, isAsync: declared.isAsync)
        guard slotText == wantedText else { return "the slot holds \(slotText), \(wantedText) is declared" }
        return "the slot holds \(slotText) and \(wantedText) is declared: "
            + ServiceLocatorError.twoCopies(of: declared.serviceType)
    }
}
