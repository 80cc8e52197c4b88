// Throughput of MemoryCache and DiskCache (a benchmark, not a test).
print("cache-benchmark: not written yet")
