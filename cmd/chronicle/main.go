package main

import (
	"os"

	"chronicle/repl"
)

func main() {
	os.Exit(repl.Main(os.Args[1:]))
}
