// Package benchtest holds what the benchmarks of every detector and
// backend share: generated crawls (Crawl, Scale on both generators),
// latency and throughput of fleet detectors, the records benchmark of
// threshold indexes (Records) and CPU timers. It runs no test itself.
package benchtest
