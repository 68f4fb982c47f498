// Command benchreal measures Chronicle on real text (issue 13): corpora
// nobody here generated, the real binaries, and ripgrep beside them.
//
//	go run ./cmd/benchreal [-work DIR] [-mb 40] [-full-mb 400] [-ar-mb 150]
//	                       [-runs 5] [-corpora spec14,en,ar] [-bin bin]
//
// `make bench-real` builds the commands and runs it. It
//
//  0. with "spec14" in -corpora (the default; `-corpora spec14` runs it
//     alone, in about a second): writes the 5,000,096-byte corpus of CONTRACT
//     14, runs every command of both binaries on it (casper-chronicle
//     --benchmark, ingest, query, find, claim, verify; chronicle ingest,
//     show, query, claim, find, entity, settle, verify of each receipt
//     kind, receipts, claims, check, export, reindex, migrate, import...)
//     and prints a table of their peak RSS against issue 13's 16 MiB
//     target, with chronicle's Go heap peak beside it (CHRONICLE_MEMSTATS,
//     from a second run on a snapshot of the files as they were: the
//     sampler adds about half a MiB of RSS that the measured run must not
//     count);
//  1. installs what is missing with apt-get (ripgrep, Debian's Arabic
//     dictionaries: hunspell-ar, aspell-ar, aspell-ar-large, mythes-ar,
//     dict-freedict-ara-eng), unless -no-install;
//  2. builds the corpora under -work (default $TMPDIR/chronicle-bench-real,
//     cached between runs): "en", English and code from /usr/share/doc
//     (.gz decompressed), the man pages (roff text) and the Go source tree;
//     "ar", Debian's Arabic word lists, thesaurus and Arabic-English
//     dictionary, the Arabic UI translations (.mo files parsed, msgstr
//     kept), then sentences drawn from those words up to -ar-mb. Each is
//     cut into ~1 MB documents of valid UTF-8 (cut at a newline, never
//     inside a character; NUL bytes and invalid sequences dropped), at two
//     sizes: -mb and the full corpus capped at -full-mb (0 skips a size);
//  3. ingests each into a fresh archive with bin/chronicle and copies of
//     the same files into plain stores with `bin/casper-chronicle ingest`
//     (one process per file), -ingest-runs rounds of each, alternated
//     (chronicle, casper-chronicle, chronicle, …: a VM whose speed drifts
//     during the run weighs on both), reporting the median wall time and
//     CPU time (user + system) of each, MB/s, archive/sources, peak RSS
//     and, for the batch ingest, its Go heap peak beside its RSS (from
//     CHRONICLE_MEMSTATS in the same run, whose sampler adds about half a
//     MiB to that RSS: the heap follows the documents, RSS also counts the
//     archive file that bbolt maps);
//  4. runs a query set picked from the corpus's word frequencies (absent,
//     rare, medium, common, 1- and 2-byte, Arabic, multi-term up to 16
//     terms), each as `chronicle find TERMS --json --limit 20` and
//     `rg -F -c -e T…` over the same files (whole processes, warm cache,
//     median of -runs), and checks that chronicle's total matching lines
//     (an untimed run with no practical limit) equal the sum of rg's counts;
//  5. prints one table per corpus and size, then the median and worst
//     ratio, ingest MB/s beside casper-chronicle's, archive/sources and
//     peak RSS, and at the end the memory of every batch ingest side by
//     side.
//
// Peak RSS is the child's ru_maxrss, taken under GNU time (/usr/bin/time)
// or, without it, through benchreal started again as a small helper: the
// kernel counts the parent's resident pages at the fork and exec in the
// child's peak, so a child started by this grown process would measure
// this process.
//
// It is not part of `make test`; its unit test only covers the cutting and
// term-picking helpers.
package main
