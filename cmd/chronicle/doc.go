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
package main
