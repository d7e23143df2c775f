package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// parseFlags parses a command's flags, placed before, between and after
// its arguments ("aguitest verify run.jsonl --json"; package flag alone
// stops at the first argument), and leaves the arguments as fs.Args. A
// "--" ends the flags: what follows it is arguments, even when it starts
// with "-". It returns -1 when the command should go on; otherwise the
// exit code: 0 after --help, which prints the usage on stdout, and 2 for
// a bad flag, reported on stderr with the usage.
func parseFlags(fs *flag.FlagSet, args []string, usage string, stdout, stderr io.Writer) int {
	if onParse != nil {
		onParse(fs, usage)
	}
	var pos []string
	for {
		err := fs.Parse(args)
		switch {
		case errors.Is(err, flag.ErrHelp):
			fmt.Fprint(stdout, usage)
			return 0
		case err != nil:
			fmt.Fprintf(stderr, "aguitest %s: %v\n\n%s", fs.Name(), err, usage)
			return 2
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			pos = append(pos, rest...)
			break
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
	// Parsing "--" alone sets no flag and leaves pos as fs.Args.
	if err := fs.Parse(append([]string{"--"}, pos...)); err != nil {
		panic(err) // cannot happen: "--" stops the parsing
	}
	return -1
}

// onParse, when set, is shown each command's flag set and usage before
// parsing: the test that holds every usage's flags to its flag set sets
// it.
var onParse func(fs *flag.FlagSet, usage string)

// listFlag is a flag that may be given several times, its values kept in
// order. With commas set, each value is also a comma-separated list:
// "--allow a,b --allow c" gives a, b and c.
type listFlag struct {
	values []string
	commas bool
}

// commaList returns a listFlag whose values are comma-separated lists.
func commaList() listFlag { return listFlag{commas: true} }

func (l *listFlag) String() string {
	if l == nil {
		return ""
	}
	return strings.Join(l.values, ",")
}

func (l *listFlag) Set(s string) error {
	if !l.commas {
		l.values = append(l.values, s)
		return nil
	}
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			l.values = append(l.values, v)
		}
	}
	return nil
}
