package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// The names of the files a directory stands for: recordings, which the
// recorder's middleware (one file per run) and aguitest record write, and
// for the commands that also read streams, these.
var (
	recordingExts = []string{".jsonl"}
	streamExts    = []string{".jsonl", ".json", ".sse", ".pb"}
)

// inputFiles expands the inputs a command was given, in order. A
// directory stands for its files whose names end in one of exts, sorted
// by name: the recorder's middleware names each run's file by the time
// it started, so they come in the order they ran. A pattern of
// filepath.Match (recordings/2026-12-01*.jsonl, quoted so that the shell
// leaves it) that names no file stands for the files and directories it
// matches, sorted. Anything else, "-" included, stands for itself.
func inputFiles(args []string, exts []string) ([]string, error) {
	var out []string
	for _, arg := range args {
		if arg == "-" {
			out = append(out, arg)
			continue
		}
		names := []string{arg}
		if _, err := os.Lstat(arg); err != nil && strings.ContainsAny(arg, "*?[") {
			m, err := filepath.Glob(arg)
			switch {
			case err != nil:
				return nil, fmt.Errorf("%s: %v", arg, err)
			case len(m) == 0:
				return nil, fmt.Errorf("%s: no file matches", arg)
			}
			names = m // sorted
		}
		for _, name := range names {
			fi, err := os.Stat(name)
			if err != nil || !fi.IsDir() {
				out = append(out, name) // opening it says what is wrong
				continue
			}
			files, err := dirFiles(name, exts)
			if err != nil {
				return nil, err
			}
			out = append(out, files...)
		}
	}
	return out, nil
}

// dirFiles returns the files of dir whose names end in one of exts,
// sorted by name.
func dirFiles(dir string, exts []string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var files []string
	for _, e := range entries {
		for _, ext := range exts {
			if !e.IsDir() && strings.HasSuffix(e.Name(), ext) {
				files = append(files, filepath.Join(dir, e.Name()))
				break
			}
		}
	}
	if len(files) == 0 {
		pats := make([]string, len(exts))
		for i, ext := range exts {
			pats[i] = "*" + ext
		}
		return nil, fmt.Errorf("%s: no %s files in it", dir, orList(pats))
	}
	sort.Strings(files)
	return files, nil
}

// orList joins a list as a sentence does: "a", "a or b", "a, b or c".
func orList(list []string) string {
	if len(list) < 2 {
		return strings.Join(list, "")
	}
	return strings.Join(list[:len(list)-1], ", ") + " or " + list[len(list)-1]
}

// inputsName names what inputs a command read, in its messages: the file
// when there is one, else how many files and what was given.
func inputsName(args, files []string) string {
	if len(files) == 1 {
		return files[0]
	}
	return fmt.Sprintf("%s (%s)", plural(len(files), "file"), strings.Join(args, " "))
}
