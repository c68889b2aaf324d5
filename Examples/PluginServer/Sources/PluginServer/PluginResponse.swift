import HostKit
import Hummingbird
import RouteContracts

/// The HTTP response for a route plugin's answer, once each value the plugin handed over is checked:
/// a value the server cannot send as it is (a status out of range would stop the process in
/// swift-http-types; a line break in a header would be changed into spaces) is refused, and the
/// request answered 500, never sent altered.
enum PluginResponse {
    /// Why a plugin's answer was refused, untrusted text escaped.
    struct Invalid: Error, CustomStringConvertible {
        let description: String
    }

    /// The response for `answer`, or what is wrong with it.
    static func make(_ answer: RouteResponse) -> Result<Response, Invalid> {
        // A final status: 1xx are interim answers, and swift-http-types traps beyond 999.
        guard (200...599).contains(answer.status) else {
            return .failure(Invalid(description: "status \(answer.status) is not from 200 to 599"))
        }
        guard isFieldValue(answer.contentType) else {
            return .failure(Invalid(description: "Content-Type '\(TerminalText.escaped(answer.contentType))' is not a header field value"))
        }
        return .success(Response(answer))
    }

    /// Whether `value` is a header field value as RFC 9110 (5.5) has it: visible ASCII, spaces and
    /// tabs, and bytes from 0x80, with no space or tab first or last; no control character (a line
    /// break would end the field).
    static func isFieldValue(_ value: String) -> Bool {
        let bytes = value.utf8
        let blank: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 }
        return bytes.allSatisfy { $0 == 0x09 || (0x20...0x7E).contains($0) || $0 >= 0x80 }
            && !(bytes.first.map(blank) ?? false) && !(bytes.last.map(blank) ?? false)
    }
}
