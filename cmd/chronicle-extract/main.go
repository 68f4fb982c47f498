package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/casper-chronicle/chronicle/engine/extract"
	_ "github.com/casper-chronicle/chronicle/engine/extract/parsers" // registers the parsers
)

const usage = `usage: chronicle-extract serve | version
  serve    answer chronicle's extraction requests on stdin and stdout
           (chronicle starts it; there is nothing to type)
  version  print the versions of the HTML and mail parsers
`

func main() {
	if len(os.Args) != 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	switch os.Args[1] {
	case "serve":
		if err := extract.Serve(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "chronicle-extract:", err)
			os.Exit(1)
		}
	case "version":
		out, _ := json.Marshal(extract.ParserVersions())
		fmt.Println(string(out))
	case "-h", "--help", "help":
		fmt.Print(usage)
	default:
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
}
