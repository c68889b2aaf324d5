import CSandbox
import Glibc

/// A seccomp-BPF program made from ``SystemCallRule``s: it checks the architecture first (a call
/// made through another ABI ends the process), then each rule's calls in order, and allows what no
/// rule refused.
package struct SeccompFilter {
    /// The program's instructions.
    package private(set) var program: [sandbox_filter_instruction] = []

    // Classic BPF opcodes and seccomp's return values (linux/filter.h, linux/seccomp.h).
    private static let loadWord: UInt16 = 0x20, jumpIfEqual: UInt16 = 0x15, jumpIfAtLeast: UInt16 = 0x35
    private static let and: UInt16 = 0x54, ret: UInt16 = 0x06, jumpAlways: UInt16 = 0x05
    private static let allow: UInt32 = 0x7fff_0000, killProcess: UInt32 = 0x8000_0000, errno: UInt32 = 0x0005_0000
    // Offsets in `struct seccomp_data`: the call's number, the architecture, then six 64-bit arguments.
    private static let numberOffset: UInt32 = 0, architectureOffset: UInt32 = 4
    private static func argumentOffset(_ index: Int) -> UInt32 { 16 + 8 * UInt32(index) }

    /// The filter for `rules`; throws if this architecture is one the filter does not know.
    package init(_ rules: [SystemCallRule]) throws(SandboxError) {
        let architecture = sandbox_audit_architecture()
        guard architecture != 0 else { throw SandboxError(layer: .systemCallFilter, reason: "no filter for this architecture") }
        emit(Self.loadWord, k: Self.architectureOffset)
        emit(Self.jumpIfEqual, jt: 1, jf: 0, k: architecture)
        emit(Self.ret, k: Self.killProcess)
        #if arch(x86_64)
        // x32 calls are numbered from 0x40000000: another table of the same calls, refused whole.
        emit(Self.loadWord, k: Self.numberOffset)
        emit(Self.jumpIfAtLeast, jt: 0, jf: 1, k: 0x4000_0000)
        emit(Self.ret, k: Self.errno | UInt32(EPERM))
        #endif
        // The frequent calls first, each one comparison, allowed; then the rules.
        emit(Self.loadWord, k: Self.numberOffset)
        let refused = Self.numbers(of: rules)
        let frequent = SystemCallRule.frequent.map { sandbox_system_call($0) }.filter { $0 >= 0 && !refused.contains($0) }
        for (position, number) in frequent.enumerated() {
            emit(Self.jumpIfEqual, jt: UInt8(frequent.count - position), jf: 0, k: UInt32(number))
        }
        // None matched: past the allow, to the rules.
        emit(Self.jumpAlways, k: 1)
        emit(Self.ret, k: Self.allow)
        for rule in rules {
            for name in rule.calls {
                let number = sandbox_system_call(name)
                guard number >= 0 else { continue }
                add(UInt32(number), rule.condition, refusal: Self.errno | UInt32(rule.error))
            }
        }
        emit(Self.ret, k: Self.allow)
    }

    /// The numbers of the calls `rules` name: never among the frequent ones allowed first (none is; this keeps it so).
    private static func numbers(of rules: [SystemCallRule]) -> Set<Int32> {
        Set(rules.flatMap(\.calls).map { sandbox_system_call($0) })
    }

    /// One call's block: load its number; if it is not `number`, jump past the block; else refuse, or
    /// (a condition that lets it through) go on to the next block: a call several rules name passes
    /// each of them. The last instruction of the program allows what no rule refused.
    private mutating func add(_ number: UInt32, _ condition: SystemCallRule.Condition, refusal: UInt32) {
        var body: [sandbox_filter_instruction] = []
        func instruction(_ code: UInt16, jt: UInt8 = 0, jf: UInt8 = 0, k: UInt32) {
            body.append(sandbox_filter_instruction(code: code, jt: jt, jf: jf, k: k))
        }
        switch condition {
        case .always:
            instruction(Self.ret, k: refusal)
        case let .argumentMatches(index, mask, value):
            instruction(Self.loadWord, k: Self.argumentOffset(index))
            instruction(Self.and, k: mask)
            instruction(Self.jumpIfEqual, jt: 0, jf: 1, k: value)
            instruction(Self.ret, k: refusal)
        case let .argumentIsNoneOf(index, mask, values):
            instruction(Self.loadWord, k: Self.argumentOffset(index))
            instruction(Self.and, k: mask)
            // Each match jumps over the rest of the matches and the refusal, to the next rule.
            for (position, value) in values.enumerated() {
                instruction(Self.jumpIfEqual, jt: UInt8(values.count - position), jf: 0, k: value)
            }
            instruction(Self.ret, k: refusal)
        }
        emit(Self.loadWord, k: Self.numberOffset)
        emit(Self.jumpIfEqual, jt: 0, jf: UInt8(body.count), k: number)
        program += body
    }

    private mutating func emit(_ code: UInt16, jt: UInt8 = 0, jf: UInt8 = 0, k: UInt32) {
        program.append(sandbox_filter_instruction(code: code, jt: jt, jf: jf, k: k))
    }

    /// Installs it on every thread of this process (after `no_new_privs`, which an unprivileged process needs first).
    package func install() throws(SandboxError) {
        let result = program.withUnsafeBufferPointer { instructions in
            instructions.baseAddress.map { sandbox_install_filter($0, UInt16(instructions.count)) } ?? -EINVAL
        }
        guard result == 0 else { throw SandboxError(layer: .systemCallFilter, reason: "seccomp: \(String(cString: strerror(-result)))") }
    }
}
