// A child process for the disk-cache tests: it hammers a cache directory so
// the tests can kill it, limit it or run several at once. Not a product.
//
//   cache-torture write-loop DIR LIMIT SEED     store (whole or streamed in pieces) and read forever (until
//                                               killed); says "stored" after the first
//   cache-torture write-n DIR LIMIT COUNT SEED  store COUNT entries, read each back, exit 0
//   cache-torture file-size-limit DIR           with RLIMIT_FSIZE at 64 KiB, a 1 MiB store, whole or
//                                               streamed, must fail cleanly
//   cache-torture full-disk ROOT                on an empty 400 KiB tmpfs at ROOT: a full disk's steps
//                                               (see FullDisk.swift)
//   cache-torture evict-one DIR                 store a, b, c (20 ms apart; the limit holds three), say
//                                               "stored", wait for the file DIR/go, store d (evicting
//                                               one), print the keys left
//   cache-torture read DIR KEY                  read KEY's entry (a hit marks it used), print "hit" or "miss"
import ThumbnailKit

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Deterministic entry bytes for a key, so any reader can check what it got.
func payload(for key: String, size: Int) -> [UInt8] {
    var state = key.utf8.reduce(UInt64(14_695_981_039_346_656_037)) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 }
    return (0..<size).map { _ in
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return UInt8(truncatingIfNeeded: state >> 56)
    }
}

/// Writes a line to stdout unbuffered, so a parent polling the output sees it at once.
func announce(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
}

/// Stores `bytes` the way a download does: a writer fed in 16 KiB pieces, then committed.
func storeStreamed(_ bytes: [UInt8], forKey key: String, in namespace: DiskCache.Namespace, cache: DiskCache) throws {
    let writer = try cache.makeEntryWriter(forKey: key, in: namespace, metadata: DiskCacheMetadata(url: key))
    for start in stride(from: 0, to: bytes.count, by: 16 * 1024) {
        try bytes[start..<min(bytes.count, start + 16 * 1024)].withUnsafeBytes { try writer.append($0) }
    }
    try writer.commit()
}

func fail(_ message: String) -> Never {
    print("cache-torture: \(message)")
    exit(2)
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else { fail("usage: see the comment at the top of main.swift") }
let directory = arguments[2]

switch arguments[1] {
case "write-loop":
    guard arguments.count == 5, let limit = Int(arguments[3]), var seed = UInt64(arguments[4]) else { fail("bad arguments") }
    let cache = try DiskCache(directory: directory, sizeLimit: limit)
    var stores = 0
    while true {
        seed = seed &* 6364136223846793005 &+ 1
        let key = "key-\(seed % 40)"
        let size = Int(seed >> 40) % 200_000
        let namespace: DiskCache.Namespace = seed % 2 == 0 ? .originals : .thumbnails
        if seed % 3 == 0 {
            try storeStreamed(payload(for: key, size: size), forKey: key, in: namespace, cache: cache)
        } else {
            try cache.store(payload(for: key, size: size), forKey: key, in: namespace)
        }
        _ = try cache.entry(forKey: "key-\((seed >> 8) % 40)", in: .originals)
        _ = try cache.openEntry(forKey: "key-\((seed >> 16) % 40)", in: .originals)
        stores += 1
        if stores == 1 { announce("stored") }  // the parent kills it only after this
    }

case "write-n":
    guard arguments.count == 6, let limit = Int(arguments[3]), let count = Int(arguments[4]), let seed = Int(arguments[5])
    else { fail("bad arguments") }
    let cache = try DiskCache(directory: directory, sizeLimit: limit)
    for n in 0..<count {
        let key = "process-\(seed)-entry-\(n)"
        let bytes = payload(for: key, size: 1_000 + (n * 7_919) % 60_000)
        try cache.store(bytes, forKey: key, in: .originals, metadata: DiskCacheMetadata(url: key))
        // Another process may already have evicted it, but what is read must be whole.
        if let entry = try cache.entry(forKey: key, in: .originals), entry.bytes != bytes {
            fail("read back different bytes for \(key)")
        }
    }
    print("done")

case "file-size-limit":
    signal(SIGXFSZ, SIG_IGN)  // let write() fail with EFBIG instead of killing the process
    var limit = rlimit(rlim_cur: 64 * 1024, rlim_max: 64 * 1024)
    guard setrlimit(Int32(RLIMIT_FSIZE.rawValue), &limit) == 0 else { fail("setrlimit failed") }
    let cache = try DiskCache(directory: directory, sizeLimit: 100 << 20)
    try cache.store(payload(for: "small", size: 1_000), forKey: "small", in: .originals)
    do {
        try cache.store(payload(for: "big", size: 1 << 20), forKey: "big", in: .originals)
        fail("a 1 MiB entry was stored past a 64 KiB file size limit")
    } catch let error as DiskCacheError {
        guard case .storageFull(_, .fileSizeLimit) = error else { fail("unexpected \(error)") }
        print("storageFull: \(error)")
    }
    do {
        try storeStreamed(payload(for: "big", size: 1 << 20), forKey: "big", in: .originals, cache: cache)
        fail("a 1 MiB entry was streamed past a 64 KiB file size limit")
    } catch let error as DiskCacheError {
        guard case .storageFull(_, .fileSizeLimit) = error else { fail("unexpected \(error)") }
        print("streamed storageFull: \(error)")
    }
    guard try cache.entry(forKey: "big", in: .originals) == nil,
          try cache.entry(forKey: "small", in: .originals)?.bytes == payload(for: "small", size: 1_000)
    else { fail("the cache is not as it was") }

case "full-disk":
    try runFullDisk(root: directory)

case "evict-one":
    let size = 100_000  // about 100 KiB on disk: three fit the limit, four do not
    let cache = try DiskCache(directory: directory, sizeLimit: 350_000)
    for key in ["a", "b", "c"] {
        try cache.store(payload(for: key, size: size), forKey: key, in: .originals)
        usleep(20_000)  // apart by more than the file system's timestamp granularity
    }
    announce("stored")
    var waited = 0
    while access("\(directory)/go", F_OK) != 0 {
        guard waited < 60_000 else { fail("no go after 60 s") }
        usleep(1_000)
        waited += 1
    }
    try cache.store(payload(for: "d", size: size), forKey: "d", in: .originals)
    print(["a", "b", "c", "d"].filter { cache.containsEntry(forKey: $0, in: .originals) }.joined(separator: " "))

case "read":
    guard arguments.count == 4 else { fail("bad arguments") }
    let cache = try DiskCache(directory: directory)
    print(try cache.entry(forKey: arguments[3], in: .originals) == nil ? "miss" : "hit")

default:
    fail("unknown mode \(arguments[1])")
}
