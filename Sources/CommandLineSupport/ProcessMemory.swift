import CMalloc
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// This process's memory, as the kernel counts it.
package enum ProcessMemory {
    /// How a process uses memory, for tuning glibc's allocator to it.
    package enum Workload: Sendable {
        /// A batch that allocates and frees as it goes (`warm`): one malloc arena
        /// for all threads, so a block one thread frees serves the next
        /// allocation on any. Measured on `warm` over 1,000 images (2026-11-23,
        /// 3 runs each): peak RSS 56.2–56.3 MiB with glibc's defaults, 41.6–47.5
        /// with one arena, for about 3 % more wall time.
        case batch
        /// A long-lived process whose memory cache keeps replacing thumbnails (a
        /// list): blocks of 256 KiB and up (a 256 px thumbnail's pixels, a
        /// progressive JPEG's coefficients) are mapped on their own and go back
        /// to the system when freed, and two arenas serve all threads. Measured
        /// on memprofile's thumbnailer strategy (300 items): peak RSS 63.2–66.0
        /// (8 MiB budget) and 81.9–83.5 MiB (32 MiB) with one arena only,
        /// 45.6–45.7 and 68.8–69.1 with this. On `warm` it costs about 12 % more
        /// wall time (large buffers are faulted in afresh each time).
        case longLived
    }

    /// Tunes glibc's allocator for `workload`; a no-op elsewhere. Call it before
    /// the work starts threads: each thread that allocates gets an arena, and
    /// limiting arenas after that comes too late (a call at the start of
    /// `warm`'s `run()` left its peak at 50 MiB).
    package static func tuneAllocator(for workload: Workload) {
        switch workload {
        case .batch:
            cm_limit_arenas(1)
        case .longLived:
            cm_map_blocks_from(256 * 1024)
            cm_limit_arenas(2)
        }
    }

    /// The most resident memory this program has used so far, in bytes:
    /// `VmHWM` from /proc on Linux. Not `getrusage`'s `ru_maxrss`, which a
    /// process started by `posix_spawn` inherits from its parent: the child runs
    /// in the parent's memory until `exec`, and `exec` keeps that peak.
    package static var peakResidentBytes: Int {
        #if canImport(Glibc)
        if let highWater = statusField("VmHWM:") { return highWater }
        #endif
        return peakResidentBytesSinceStart
    }

    /// `getrusage`'s peak, which on Linux includes what a spawning parent used before `exec`.
    private static var peakResidentBytesSinceStart: Int {
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
    package static var residentBytes: Int {
        #if canImport(Glibc)
        return statusField("VmRSS:") ?? peakResidentBytes
        #else
        return peakResidentBytes
        #endif
    }

    #if canImport(Glibc)
    /// A `kB` field of /proc/self/status, in bytes.
    private static func statusField(_ name: String) -> Int? {
        guard let file = fopen("/proc/self/status", "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if text.hasPrefix(name), let kib = Int(text.dropFirst(name.count).filter(\.isNumber)) { return kib * 1024 }
        }
        return nil
    }
    #endif
}
