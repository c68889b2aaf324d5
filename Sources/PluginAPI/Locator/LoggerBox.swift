/// A logger behind one reference.
final class LoggerBox: Sendable {
    let logger: any ServiceLogger
    init(_ logger: any ServiceLogger) {
        self.logger = logger
    }
}
