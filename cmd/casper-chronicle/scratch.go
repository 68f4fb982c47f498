package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/casper-chronicle/chronicle/engine/receipt"
)

// scratch is the set of files a self-check or benchmark creates in the
// current directory. They must all be absent before it starts (CONTRACT 14) and
// are all removed afterwards.
type scratch struct {
	paths []string
}

// addStory registers a source, its store and ingest receipt, and the query
// receipts of the given questions.
func (s *scratch) addStory(source string, questions ...string) {
	store := source + ".chronicle"
	s.paths = append(s.paths, source, store, store+".receipt")
	for _, q := range questions {
		s.paths = append(s.paths, store+receipt.FileSuffix(receipt.KindQuery, 2, q))
	}
}

var errScratchOccupied = errors.New("scratch file already exists; refusing to touch it")

// claim fails if any scratch path is occupied.
func (s *scratch) claim() error {
	for _, p := range s.paths {
		if _, err := os.Lstat(p); err == nil || !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("%s: %w", p, errScratchOccupied)
		}
	}
	return nil
}

func (s *scratch) cleanup() {
	for _, p := range s.paths {
		os.Remove(p)
	}
}

// quietRun runs one in-process casper-chronicle command and returns its exit
// code and stdout.
func quietRun(args ...string) (int, []byte) {
	var out bytes.Buffer
	code := run(append([]string{"casper-chronicle"}, args...), &out, io.Discard)
	return code, out.Bytes()
}

// settlementOf decodes status and settled from the first stdout line of a
// query.
func settlementOf(stdout []byte) (status string, settled [2]int64, err error) {
	line, _, _ := bytes.Cut(stdout, []byte{'\n'})
	var v struct {
		Status  string `json:"status"`
		Settled struct {
			Num int64 `json:"num"`
			Den int64 `json:"den"`
		} `json:"settled"`
	}
	if err := json.Unmarshal(line, &v); err != nil {
		return "", settled, err
	}
	return v.Status, [2]int64{v.Settled.Num, v.Settled.Den}, nil
}
