/// One message on a connection between two processes, and its bytes.
///
/// Layout, little-endian: `length: UInt32` (of what follows), `kind: UInt8`, `call: UInt64` (the id
/// the caller gave the call; replies and cancellations name it), then the body:
/// - ``Kind/call``: the service's name and the target (each a `UInt16` length and UTF-8), then
///   the arguments (``PluginInvocationEncoder``: a `UInt16` count, each a `UInt32` length and its
///   ``WireFormat`` bytes); ``Kind/callWithHeaders``: the same, with the call's headers
///   (``PluginCallContext``: a `UInt16` count, then each name and value as a text) between the
///   target and the arguments (a call without headers is a plain `call`, as before there were any);
/// - ``Kind/value``: the result's ``WireFormat`` bytes; ``Kind/void``: nothing;
/// - ``Kind/failure``: a ``Failure`` in ``WireFormat``; ``Kind/cancel``: nothing.
struct Frame {
    enum Kind: UInt8 {
        case call = 1, value, void, failure, cancel, callWithHeaders
    }

    /// What a reply that failed says: how, and the texts the caller's error carries.
    struct Failure: Codable {
        enum Reason: UInt8, Codable {
            /// The service threw (`type`, `message`).
            case thrown
            /// No service of that name, or no such method (`message` says which).
            case notServed
            /// The call's arguments could not be read.
            case invalidMessage
        }
        var reason: Reason
        var type: String
        var message: String
    }

    /// Bytes before the body: length, kind, call.
    static let headerSize = 4 + 1 + 8
    /// The largest body accepted: a peer that announces more broke the protocol.
    static let maximumBody = 64 << 20
    /// The longest text taken from a peer for a name, a type or a message.
    static let maximumText = 4096

    let kind: Kind
    let call: UInt64
    let body: ArraySlice<UInt8>

    /// A tail larger than this is sent as it is, after the frame's other bytes, not copied behind them.
    static let tailCopiedUpTo = 64 * 1024

    /// A frame's bytes: header and body.
    static func bytes(_ kind: Kind, call: UInt64, bodySize: Int = 0, body write: (inout [UInt8]) -> Void = { _ in }) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(headerSize + bodySize)
        bytes.appendLittleEndian(UInt32(0))
        bytes.append(kind.rawValue)
        bytes.appendLittleEndian(call)
        write(&bytes)
        bytes.patchLittleEndian(UInt32(bytes.count - 4), at: 0)
        return bytes
    }

    /// A frame whose body ends with `tail` (a call's arguments, a reply's value), as the parts an
    /// ``Outbox`` writes one after another: one part if `tail` is small, else the header with what
    /// `write` adds, then `tail` itself (a 16 MiB argument is not copied into its frame).
    static func parts(_ kind: Kind, call: UInt64, headSize: Int = 0, tail: [UInt8],
                      head write: (inout [UInt8]) -> Void = { _ in }) -> [ArraySlice<UInt8>] {
        guard tail.count > tailCopiedUpTo else {
            return [bytes(kind, call: call, bodySize: headSize + tail.count) { bytes in
                write(&bytes)
                bytes.append(contentsOf: tail)
            }[...]]
        }
        var head = bytes(kind, call: call, bodySize: headSize, body: write)
        head.patchLittleEndian(UInt32(head.count - 4 + tail.count), at: 0)
        return [head[...], tail[...]]
    }
}

extension Array<UInt8> {
    mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        Swift.withUnsafeBytes(of: value.littleEndian) { append(contentsOf: $0) }
    }

    mutating func patchLittleEndian<T: FixedWidthInteger>(_ value: T, at offset: Int) {
        Swift.withUnsafeBytes(of: value.littleEndian) { raw in
            for (index, byte) in raw.enumerated() { self[offset + index] = byte }
        }
    }

    /// `text` as a `UInt16` length and its UTF-8 (cut at ``Frame/maximumText`` bytes).
    mutating func appendShortText(_ text: String) {
        var utf8 = Array(text.utf8)
        if utf8.count > Frame.maximumText { utf8.removeLast(utf8.count - Frame.maximumText) }
        appendLittleEndian(UInt16(utf8.count))
        append(contentsOf: utf8)
    }
}
