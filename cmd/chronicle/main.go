package main

import (
	"os"

	"github.com/casper-chronicle/chronicle/cmd/internal/climain"
)

func main() {
	os.Exit(climain.Run(os.Args[1:]))
}
