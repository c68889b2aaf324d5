/// What a file's dynamic symbol table says of the plugin entry symbol, read before `dlopen`: only a
/// file that defines it as a function is opened. Data of that name would be jumped into, and an
/// indirect function's resolver (code of the file's) runs as soon as the symbol is looked up; a file
/// without it is no plugin, and opening it would run its initializers for nothing.
enum EntrySymbol: Hashable, Sendable, Codable {
    case function
    case indirectFunction
    case data
    case missing

    /// What `symbols` (a file's dynamic symbols, `nil` if they could not be read) say of the entry.
    init(_ symbols: ELFCheck.DynamicSymbols?) {
        let entry = PluginHeader.Layout.entrySymbol
        guard let symbols, symbols.defined.contains(entry) else {
            self = .missing
            return
        }
        self = symbols.functions.contains(entry) ? .function : symbols.indirectFunctions.contains(entry) ? .indirectFunction : .data
    }

    /// Why the file is refused before `dlopen`, or nil if its entry is a function.
    func refusal(path: String) -> PluginLoadError? {
        let symbol = PluginHeader.Layout.entrySymbol
        switch self {
        case .function: return nil
        case .missing: return .missingEntrySymbol(path: path, symbol: symbol)
        case .data:
            return .entryNotAFunction(path: path, symbol: symbol, reason: "the file's symbol of that name is data, not a function")
        case .indirectFunction:
            return .entryNotAFunction(path: path, symbol: symbol, reason: "the file's symbol of that name is an indirect "
                                      + "function (IFUNC), whose resolver would run as soon as it is looked up")
        }
    }
}
