/// Makes `resolve --param` text into the parameters a slot takes, by the slot's parameters type name:
/// the literal types a command line can spell.
enum ParameterText {
    /// `text` as a value of the type `typeName` names (as `String(reflecting:)` writes it), or nil if
    /// the text does not fit that type or the type is not one the command line makes.
    static func value(_ text: String, as typeName: String) -> Any? {
        // An optional takes its wrapped type's text (the slot's cast makes it the optional).
        if typeName.hasPrefix("Swift.Optional<"), typeName.hasSuffix(">") {
            return value(text, as: String(typeName.dropFirst("Swift.Optional<".count).dropLast()))
        }
        return switch typeName {
        case "Swift.String": text
        case "Swift.Substring": Substring(text)
        case "Swift.Bool": Bool(text)
        case "Swift.Int": Int(text)
        case "Swift.Int8": Int8(text)
        case "Swift.Int16": Int16(text)
        case "Swift.Int32": Int32(text)
        case "Swift.Int64": Int64(text)
        case "Swift.UInt": UInt(text)
        case "Swift.UInt8": UInt8(text)
        case "Swift.UInt16": UInt16(text)
        case "Swift.UInt32": UInt32(text)
        case "Swift.UInt64": UInt64(text)
        case "Swift.Double": Double(text)
        case "Swift.Float": Float(text)
        default: nil
        }
    }
}
