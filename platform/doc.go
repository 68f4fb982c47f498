// Package platform is what Chronicle asks of the operating system that
// differs between them, behind one small function each, so that no other
// package calls syscall for it:
//
//   - LockHolder names the process holding an archive's lock, for the
//     one-line "archive busy" error (Linux reads /proc/locks; elsewhere
//     it cannot tell and says nothing);
//   - ProcessAlive tells whether a process still runs, so that the
//     temporary file of an archive creation killed half-way is removed
//     and a live one's is kept;
//   - ChildMaxRSS is the peak resident set of a finished child process,
//     for the benchmarks;
//   - Replace runs another executable in place of this process (exec),
//     where the system can: `chronicle ingest` hands itself to the
//     binary that links the mail and web page parsers.
//
// Which files are read as documents (regular files only, never a FIFO or
// a device) is db/fileio's OpenRegular, split the same way.
package platform
