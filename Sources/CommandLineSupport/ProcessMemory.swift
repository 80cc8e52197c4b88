#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// This process's memory, as the kernel counts it.
public enum ProcessMemory {
    /// The most resident memory the process has used so far, in bytes.
    public static var peakResidentBytes: Int {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        return usage.ru_maxrss * 1024  // KiB on Linux
        #else
        getrusage(RUSAGE_SELF, &usage)
        return usage.ru_maxrss  // bytes on macOS
        #endif
    }

    /// Resident memory now, in bytes (`VmRSS` from /proc on Linux; the peak elsewhere).
    public static var residentBytes: Int {
        #if canImport(Glibc)
        guard let file = fopen("/proc/self/status", "r") else { return peakResidentBytes }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasPrefix("VmRSS:"), let kib = Int(text.dropFirst(6).filter(\.isNumber)) { return kib * 1024 }
        }
        return peakResidentBytes
        #else
        return peakResidentBytes
        #endif
    }
}
