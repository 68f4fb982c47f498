// Command chronicle is the Chronicle archive tool: many documents in one
// bbolt file, queried and verified without touching the original files.
//
//	chronicle [--db PATH] COMMAND [ARGS...]
//
// `chronicle help` lists the commands. The archive is ./chronicle.db unless
// --db or CHRONICLE_DB names another.
package main

import (
	"os"

	"chronicle/repl"
)

func main() {
	env := repl.NewEnv()
	args := os.Args[1:]
	if len(args) == 0 {
		args = []string{"help"}
	}
	os.Exit(repl.Exec(env, args))
}
