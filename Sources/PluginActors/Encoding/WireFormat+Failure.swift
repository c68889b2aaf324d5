extension WireFormat {
    /// Why a value could not be encoded or decoded, and where: the coding path from the message's
    /// top ("tags[2]", "reply.name"). The path's keys may come from the other process (a
    /// dictionary's keys), so their control characters are escaped.
    struct Failure: Error, CustomStringConvertible {
        /// What kind of failure, as `DecodingError` and `EncodingError` name them.
        enum Kind: String, Sendable {
            /// A value of another kind than the type asked for.
            case typeMismatch
            /// nil, or nothing left, where a value was asked for.
            case valueNotFound
            /// No entry for a key the type requires.
            case keyNotFound
            /// Bytes that are not a valid message, or a number that does not fit its type.
            case dataCorrupted
            /// A value that cannot be encoded (nested too deep, or containers misused).
            case invalidValue
            /// An error thrown by a type's own `init(from:)` or `encode(to:)`.
            case thrownByType
        }

        let kind: Kind
        /// The coding path, written as "a.b[2].c"; empty at the message's top.
        let path: String
        /// What is wrong, in words.
        let what: String

        var description: String {
            "\(kind.rawValue) at \(path.isEmpty ? "the top" : path): \(what)"
        }

        /// `error` told as a failure: a decoding or encoding error's kind, path and words, or any
        /// other error as thrown by a type.
        init(_ error: any Error) {
            switch error {
            case let failure as Failure:
                self = failure
            case let error as DecodingError:
                self.init(decoding: error)
            case let EncodingError.invalidValue(_, context):
                self.init(.invalidValue, context.codingPath, context.debugDescription)
            default:
                self.init(.thrownByType, [], "\(type(of: error)): \(error)")
            }
        }

        private init(decoding error: DecodingError) {
            switch error {
            case let .typeMismatch(_, context):
                self.init(.typeMismatch, context.codingPath, context.debugDescription)
            case let .valueNotFound(_, context):
                self.init(.valueNotFound, context.codingPath, context.debugDescription)
            case let .keyNotFound(key, context):
                self.init(.keyNotFound, context.codingPath + [key], context.debugDescription)
            case let .dataCorrupted(context):
                self.init(.dataCorrupted, context.codingPath, context.debugDescription)
            @unknown default:
                self.init(.thrownByType, [], "\(error)")
            }
        }

        private init(_ kind: Kind, _ codingPath: [any CodingKey], _ what: String) {
            self.kind = kind
            self.path = Self.written(codingPath)
            self.what = what
        }

        /// `codingPath` as "a.b[2].c", each key's control characters escaped.
        private static func written(_ codingPath: [any CodingKey]) -> String {
            var path = ""
            for key in codingPath {
                if let index = key.intValue, key is WireCodingKey {
                    path += "[\(index)]"
                } else {
                    if !path.isEmpty { path += "." }
                    path += key.stringValue.unicodeScalars.map { $0.properties.generalCategory == .control
                        ? $0.escaped(asASCII: true) : String($0) }.joined()
                }
            }
            return path
        }
    }
}
