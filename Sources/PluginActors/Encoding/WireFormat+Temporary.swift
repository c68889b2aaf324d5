// TEMPORARY until the codec branch lands: JSON stands in for the binary encoding.
internal import Foundation

enum WireFormat {
    static func encode<T: Encodable>(_ value: T, into bytes: inout [UInt8]) throws {
        bytes.append(contentsOf: try JSONEncoder().encode(value))
    }

    static func decode<T: Decodable>(_ type: T.Type, from bytes: ArraySlice<UInt8>) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(bytes))
    }
}
