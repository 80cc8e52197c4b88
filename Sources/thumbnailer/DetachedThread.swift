#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A POSIX thread of its own, for a loop that blocks in `read(2)` (keys, signals): blocking would take
/// one of the few threads Swift concurrency and Dispatch share out.
enum DetachedThread {
    /// Starts `body` on a new detached thread; the thread ends when `body` returns.
    static func start(_ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        #if canImport(Glibc)
        var thread = pthread_t()
        #else
        var thread: pthread_t?
        #endif
        let result = pthread_create(&thread, nil, { context in
            let pointer: UnsafeMutableRawPointer? = context
            Unmanaged<Body>.fromOpaque(pointer!).takeRetainedValue().run()
            return nil
        }, context)
        guard result == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            fatalError("thumbnailer: cannot start a thread (pthread_create: \(String(cString: strerror(result))))")
        }
        #if canImport(Glibc)
        pthread_detach(thread)
        #else
        if let thread { pthread_detach(thread) }
        #endif
    }

    /// The closure, as one pointer for `pthread_create`.
    private final class Body {
        let run: @Sendable () -> Void

        init(_ run: @escaping @Sendable () -> Void) {
            self.run = run
        }
    }
}
