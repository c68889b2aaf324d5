@testable import PluginActors
import Testing

/// A contract's argument in its first minor version...
struct ReplyV1: Codable, Equatable {
    var text: String
    var code: Int32
}

/// ...and in its second, which added two fields: one Optional (synthesized), one with a default read
/// by a custom `init(from:)`; and widened `code`.
struct ReplyV2: Codable, Equatable {
    var text: String
    var code: Int64
    var detail: String?
    var retries: Int

    enum CodingKeys: String, CodingKey { case text, code, detail, retries }

    init(text: String, code: Int64, detail: String?, retries: Int) {
        self.text = text
        self.code = code
        self.detail = detail
        self.retries = retries
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        text = try container.decode(String.self, forKey: .text)
        code = try container.decode(Int64.self, forKey: .code)
        detail = try container.decodeIfPresent(String.self, forKey: .detail)
        retries = try container.decodeIfPresent(Int.self, forKey: .retries) ?? 3
    }
}

/// A version that dropped a field the first one requires: not an addition, so old readers fail.
struct ReplyWithoutCode: Codable {
    var text: String
}

/// The first version of an enum, and one with a case added.
enum StatusV1: Codable, Equatable { case ok, failed(reason: String) }
enum StatusV2: Codable, Equatable { case ok, failed(reason: String), retrying(after: Double) }

/// A synthesized Optional added to a struct with nested values.
struct EnvelopeV1: Codable, Equatable { var replies: [ReplyV1]; var status: StatusV1 }
struct EnvelopeV2: Codable, Equatable { var replies: [ReplyV2]; var status: StatusV1; var trace: [String]? }

@Suite struct WireFormatEvolutionTests {
    @Test func aNewReaderReadsOldBytesWithItsDefaults() throws {
        let old = ReplyV1(text: "hello", code: -7)
        let read = try Wire.decode(ReplyV2.self, from: old)
        #expect(read == ReplyV2(text: "hello", code: -7, detail: nil, retries: 3))
    }

    @Test func anOldReaderSkipsWhatANewWriterAdded() throws {
        let new = ReplyV2(text: "hi", code: 12, detail: "some detail", retries: 9)
        #expect(try Wire.decode(ReplyV1.self, from: new) == ReplyV1(text: "hi", code: 12))
    }

    @Test func nestedValuesEvolveBothWays() throws {
        let old = EnvelopeV1(replies: [ReplyV1(text: "a", code: 1)], status: .failed(reason: "r"))
        let asNew = try Wire.decode(EnvelopeV2.self, from: old)
        #expect(asNew == EnvelopeV2(replies: [ReplyV2(text: "a", code: 1, detail: nil, retries: 3)],
                                    status: .failed(reason: "r"), trace: nil))
        let new = EnvelopeV2(replies: [ReplyV2(text: "b", code: 2, detail: "d", retries: 0)], status: .ok, trace: ["t"])
        #expect(try Wire.decode(EnvelopeV1.self, from: new) == EnvelopeV1(replies: [ReplyV1(text: "b", code: 2)], status: .ok))
    }

    @Test func anOldEnumReadsTheCasesItKnowsFromANewWriter() throws {
        #expect(try Wire.decode(StatusV1.self, from: StatusV2.failed(reason: "x")) == .failed(reason: "x"))
        #expect(try Wire.decode(StatusV2.self, from: StatusV1.ok) == .ok)
    }

    /// Not an addition: the call fails by name, it does not crash.
    @Test func aCaseTheReaderDoesNotKnowFailsByName() throws {
        let failure = #expect(throws: WireFormat.Failure.self) {
            try Wire.decode(StatusV1.self, from: StatusV2.retrying(after: 1))
        }
        #expect(failure?.kind == .typeMismatch || failure?.kind == .dataCorrupted)
    }

    @Test func aRequiredFieldTheWriterDroppedIsKeyNotFoundNamingIt() throws {
        let failure = #expect(throws: WireFormat.Failure.self) {
            try Wire.decode(ReplyV1.self, from: ReplyWithoutCode(text: "t"))
        }
        #expect(failure?.kind == .keyNotFound)
        #expect(failure?.path == "code")
        #expect(failure?.description.contains("code") == true)
    }

    /// A widened integer read back by an old reader fits when its value does, and says so when not.
    @Test func aWidenedIntegerReadsBackWhereItFits() throws {
        let wide = ReplyV2(text: "w", code: Int64(Int32.max) + 1, detail: nil, retries: 0)
        let failure = #expect(throws: WireFormat.Failure.self) { try Wire.decode(ReplyV1.self, from: wide) }
        #expect(failure?.kind == .dataCorrupted)
        #expect(failure?.path == "code")
        #expect(failure?.what.contains("does not fit in Int32") == true)
    }
}
