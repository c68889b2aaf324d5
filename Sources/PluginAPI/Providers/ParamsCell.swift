/// Identity of one params provider on a resolution path, for cycle detection.
final class ParamsCell: Sendable {}
