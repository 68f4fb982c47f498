// Command benchscale measures Chronicle at scale (issue 26, item 5):
// archives of many small real documents, 10,000 and 100,000 by default,
// with SQLite FTS5 (trigram tokenizer) and ripgrep beside it on the same
// files, and prints one markdown table for the README.
//
//	go run ./cmd/benchscale [-docs 10000,100000] [-runs 5] [-bin bin]
//	                        [-work DIR] [-sqlite3 sqlite3] [-no-install] [-keep]
//	go run ./cmd/benchscale -docs N -link DIR
//
// `make bench-scale` builds the commands and runs it (BENCH_SCALE_DOCS sets
// -docs). It
//
//  1. installs what is missing with apt-get (ripgrep, sqlite3, GNU time,
//     Debian's Arabic dictionaries), unless -no-install, and says what to
//     install when a tool is still missing;
//  2. builds, once per largest size (cached under -work, default
//     $TMPDIR/chronicle-bench-scale), a pool of documents from the text of
//     this machine, none of it Go: Python's library, the man pages (every
//     language, gunzipped roff), /usr/share/common-licenses, /usr/share/doc,
//     Debian's Arabic dictionaries and translations, Perl's library and the
//     C headers. Each file is cut at line boundaries into pieces whose
//     target sizes are drawn log-normally (a median of a few KB, a tail to
//     320 KiB; a file smaller than its target stays whole); the median
//     shrinks until the pool holds the largest size. Pieces are strict
//     UTF-8 without NUL, identical ones are dropped, and so is any piece
//     chronicle's own extraction (engine.NewStore) would reject, so every
//     document ingests;
//  3. for each size, takes evenly spaced documents of the pool, links them
//     into a run directory of its own (removed afterwards unless -keep; two
//     runs sharing -work leave each other alone) and times,
//     as whole processes: `chronicle ingest` of the directory (MB/s,
//     documents/s, peak RSS, archive size), the FTS5 load of the same files
//     in one transaction by the sqlite3 shell (readfile()), then for an
//     absent, a rare, a medium and the most common word, three medium words
//     and the 16 most common letters (picked from the documents' own
//     document frequencies): `chronicle find` (--limit 20, and listing every
//     document, which gives its counts), FTS5's count(*) and `rg -F -c`;
//     then `chronicle entity` for the name with the most events (one
//     holding a letter, when there is one), `docs` and `stats`. Each figure
//     is the median of -runs after a warm-up run, which measures peak RSS;
//  4. checks that the counts agree: chronicle's matching documents, FTS5's
//     documents and rg's files, chronicle's matching lines and rg's lines.
//     All three are set to match the same way find does: bytes,
//     case-sensitive, any term (FTS5's trigram table is case_sensitive 1;
//     its index cannot answer terms under 3 characters, which are counted
//     with instr() instead);
//  5. prints the machine, each corpus's make-up (sources, document count,
//     MB, median and p90 size), one table with chronicle / FTS5 / rg
//     columns per size, the terms, and every disagreement.
//
// With -link DIR it only does step 2 and links the N documents a run of
// that size would take into DIR (a new directory), measuring nothing:
// cmd/benchserve builds its archive of the same documents so.
//
// It is not part of `make test`; its unit test covers the cutting, the
// term picking and the median.
package main
