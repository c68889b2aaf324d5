import Foundation

/// `value` as pretty, key-sorted JSON, formatted as ``LoadReport/json`` is (the `host` command prints
/// its own JSON with it). Every string keeps its exact value, with anything a terminal would act on
/// written as a `\u` escape. Encoding plain strings and arrays cannot fail, but if it does, the JSON
/// says so.
package func encodeJSON(_ value: some Encodable) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    guard let data = try? encoder.encode(value) else { return #"{"error": "could not encode the report"}"# }
    return escapingUnprintables(String(decoding: data, as: UTF8.self))
}

/// JSON text (as `JSONEncoder` writes it) with every unprintable character inside its strings
/// written as a `\uXXXX` escape: the same value to a JSON reader, nothing raw for a terminal.
/// `JSONEncoder` escapes only the control characters below U+0020; DEL, C1 controls (U+009B is
/// a CSI to some terminals), bidirectional overrides and U+2028 it writes as they are.
private func escapingUnprintables(_ json: String) -> String {
    if json.utf8.allSatisfy({ $0 < 0x7F }) { return json }
    var escaped = ""
    escaped.reserveCapacity(json.utf8.count)
    for scalar in json.unicodeScalars {
        // Below U+0020 only JSON's own whitespace is left: JSONEncoder escaped the rest.
        guard scalar.value >= 0x7F, TerminalText.isUnprintable(scalar) else {
            escaped.unicodeScalars.append(scalar)
            continue
        }
        // JSON's escapes are UTF-16 code units: a scalar beyond the BMP takes a surrogate pair.
        for unit in String(scalar).utf16 {
            let hex = String(unit, radix: 16, uppercase: true)
            escaped += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        }
    }
    return escaped
}
