#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Prints to stderr with one `write(2)` a call: unbuffered, safe from any
/// thread, and no shared `FILE *` (which strict concurrency rightly refuses).
package enum StandardError {
    package static func print(_ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, $0.count) }
            guard written > 0 else { return }
            offset += written
        }
    }
}

