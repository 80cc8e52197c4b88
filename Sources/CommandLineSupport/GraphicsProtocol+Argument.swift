import ArgumentParser
import ThumbnailTerminal

/// `--graphics auto|kitty|sixel|blocks`.
extension GraphicsProtocol: ExpressibleByArgument {}
