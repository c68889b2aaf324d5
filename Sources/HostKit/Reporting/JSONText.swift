import Foundation

/// `value` as pretty, key-sorted JSON, formatted as ``LoadReport/json`` is: for hosts that print
/// JSON of their own beside the report. Every string keeps its exact value, with anything a terminal
/// would act on written as a `\u` escape. Encoding plain strings and arrays cannot fail, but if it
/// does, the JSON says so.
public func encodeJSON(_ value: some Encodable) -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    guard let data = try? encoder.encode(value) else { return #"{"error": "could not encode the report"}"# }
    return String(decoding: data, as: UTF8.self).jsonEscapingUnprintables
}
