/// One value being encoded. Encoding builds a tree of these, one for each value that is not written
/// by a fast path (``WireScalarEncoding``), so that containers may be written in any order, as
/// `Encoder` allows; the message is written from the tree at the end, once every size is known.
final class WireNode {
    /// Which kind of container the value became; a value becomes one kind only.
    enum Shape {
        /// Nothing encoded yet (and, if it stays so, written as an empty keyed container).
        case none
        /// One value written through a single-value container.
        case single
        /// A keyed container: `bytes` holds its entries.
        case keyed
        /// An unkeyed container: `bytes` holds its elements.
        case unkeyed
    }

    private(set) var shape = Shape.none
    /// The value's own bytes, without its tag and length; a part written by a node of its own is
    /// missing from them, and is in `parts` at the offset where it goes.
    var bytes: [UInt8] = []
    /// The parts written by nodes of their own, each with the offset in `bytes` where it goes, in order.
    private var parts: [(offset: Int, node: WireNode)] = []
    /// Entries of a keyed container, elements of an unkeyed one.
    var count = 0
    /// The size of the value's bytes with its parts', once measured.
    private var contentSize = 0
    /// What went wrong in a call that cannot throw (a second kind of container asked of one value,
    /// a container nested too deep): thrown when the tree is measured.
    private var failure: EncodingError?

    /// Makes the value a container of `shape`; records a failure if it already is another kind.
    func become(_ shape: Shape, at codingPath: [any CodingKey]) {
        if self.shape == shape, shape != .single { return }
        guard self.shape == .none else {
            fail(.invalidValue(shape, EncodingError.Context(
                codingPath: codingPath,
                debugDescription: "a value asked for a \(shape) container after a \(self.shape) one")))
            return
        }
        self.shape = shape
        if shape != .single { bytes.reserveCapacity(64) }
    }

    /// A new node for a part of this value, placed at the end of what is written so far.
    func addPart() -> WireNode {
        let part = WireNode()
        parts.append((bytes.count, part))
        return part
    }

    /// Records `error`, the first one only, to be thrown when the tree is measured.
    func fail(_ error: EncodingError) {
        if failure == nil { failure = error }
    }

    /// The size of the value's encoding, after measuring its parts; throws the first failure recorded
    /// in the tree.
    func measure() throws -> Int {
        if let failure { throw failure }
        contentSize = bytes.count
        for part in parts {
            contentSize += try part.node.measure()
        }
        switch shape {
        case .none:
            return 2
        case .single:
            return contentSize
        case .keyed:
            return 1 + [UInt8].varintSize(of: contentSize) + contentSize
        case .unkeyed:
            let length = [UInt8].varintSize(of: count) + contentSize
            return 1 + [UInt8].varintSize(of: length) + length
        }
    }

    /// Appends the value's encoding to `message`; the tree was measured.
    func write(into message: inout [UInt8]) {
        switch shape {
        case .none:
            message.appendTag(.keyed)
            message.appendVarint(0)
        case .single:
            writeContent(into: &message)
        case .keyed:
            message.appendTag(.keyed)
            message.appendVarint(contentSize)
            writeContent(into: &message)
        case .unkeyed:
            message.appendTag(.unkeyed)
            message.appendVarint([UInt8].varintSize(of: count) + contentSize)
            message.appendVarint(count)
            writeContent(into: &message)
        }
    }

    /// Appends the value's bytes with its parts in their places.
    private func writeContent(into message: inout [UInt8]) {
        var written = 0
        for part in parts {
            message.append(contentsOf: bytes[written..<part.offset])
            part.node.write(into: &message)
            written = part.offset
        }
        message.append(contentsOf: bytes[written...])
    }
}
