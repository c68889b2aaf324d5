/// The symbol every plugin exports, and the one rule for it: only a function the file itself defines
/// is called. Data of that name would be jumped into, and an indirect function's resolver (code of
/// the file's) runs as soon as the symbol is looked up; a file without it is no plugin, and opening
/// it would run its initializers for nothing. Asked twice: of the file's dynamic symbol table before
/// `dlopen` (a file refused there is never opened), and of what the loader mapped before the call
/// (``DynamicLibrary/callEntry(reportedAs:)``: `dlsym` also finds a symbol of the libraries the file
/// links).
package enum EntrySymbol: Hashable, Sendable, Codable {
    /// The symbol's name. PluginAPI's `exportPlugin` defines it as `@c () -> UnsafeRawPointer?`.
    package static let name = "swift_plugin_entry"

    case function
    case indirectFunction
    case data
    case missing
    /// The loader found it but cannot say where it lies.
    case unplaced

    /// What `symbols` (a file's dynamic symbols, `nil` if they could not be read) say of the entry.
    package init(_ symbols: ELFCheck.DynamicSymbols?) {
        guard let symbols, symbols.defined.contains(Self.name) else {
            self = .missing
            return
        }
        self = symbols.functions.contains(Self.name) ? .function
            : symbols.indirectFunctions.contains(Self.name) ? .indirectFunction : .data
    }

    /// What the loader says of the address it found for the entry in a library (`nil`: it cannot say).
    init(_ place: DynamicLibrary.Place?) {
        switch place {
        case .ownFunction?: self = .function
        case .ownData?: self = .data
        case .elsewhere?: self = .missing
        case nil: self = .unplaced
        }
    }

    /// Why the file at `path` is not opened, or its entry not called; nil if its entry is a function.
    package func refusal(path: String) -> LoadingError? {
        switch self {
        case .function: nil
        case .missing: .missingEntrySymbol(path: path, symbol: Self.name)
        case .data: .entryNotAFunction(path: path, symbol: Self.name, reason: Self.dataReason)
        case .indirectFunction:
            .entryNotAFunction(path: path, symbol: Self.name, reason: "the file's symbol of that name is an indirect "
                               + "function (IFUNC), whose resolver would run as soon as it is looked up")
        case .unplaced: .entryNotAFunction(path: path, symbol: Self.name, reason: "the dynamic loader cannot say where it lies")
        }
    }

    /// Why a symbol is not called: what it is. The one text of this refusal.
    private static let dataReason = "the file's symbol of that name is data, not a function"
}
