// Command chronicle is the Chronicle archive tool: many documents in one
// bbolt file, queried and verified without touching the original files.
//
//	chronicle [--db PATH] COMMAND [ARGS...]   run one command
//	chronicle [--db PATH]                     the REPL (stdin a terminal)
//	chronicle [--db PATH] [--bail] < SCRIPT   one command per line
//	chronicle [--db PATH] -c 'COMMAND LINE'   one command line, shell quoting
//
// `chronicle help` lists the commands. The archive is ./chronicle.db unless
// --db or CHRONICLE_DB names another.
//
// # Memory figures
//
// With CHRONICLE_MEMSTATS=FILE in the environment, chronicle samples its
// memory every millisecond while it runs and, at exit, writes one line to
// FILE (created 0600, replaced if present):
//
//	heap_peak_bytes=N go_peak_bytes=N rss_peak_bytes=N gc_cycles=N
//
// The figures are:
//
//   - heap_peak_bytes: the largest Go heap sampled (runtime/metrics
//     /memory/classes/heap/objects:bytes: live objects and dead ones not
//     yet swept);
//   - go_peak_bytes: the most memory the Go runtime held from the system
//     (/memory/classes/total:bytes minus heap/released), heap metadata and
//     stacks included, whether its pages were touched or not;
//   - rss_peak_bytes: the process's peak resident set (VmHWM of
//     /proc/self/status), which also counts the pages of the binary and of
//     the archive file that bbolt maps; unlike the ru_maxrss a parent reads
//     from wait4, it never includes the parent's pages;
//   - gc_cycles: completed GC cycles.
//
// A sample costs about a microsecond; without the variable nothing is
// sampled. `make bench-real` uses it to show the heap of a batch ingest
// beside its RSS.
//
// # CPU profile
//
// With CHRONICLE_CPUPROFILE=FILE, chronicle writes a CPU profile of the
// whole command to FILE (created 0600), for `go tool pprof`.
package main
