package main

import (
	"bytes"
	"flag"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A flag's line in a usage: "  --name ARG   what it does", or "  --name"
// and two spaces for a flag without a value.
var usageFlagLine = regexp.MustCompile(`^ {2,4}(--?[a-z][a-z0-9-]*)( [A-Z][^ ]*)?( {2,}|$)`)

// usageFlags returns the flags a usage documents, each with whether it
// takes a value.
func usageFlags(usage string) map[string]bool {
	out := map[string]bool{}
	for _, line := range strings.Split(usage, "\n") {
		if m := usageFlagLine.FindStringSubmatch(line); m != nil {
			out[strings.TrimLeft(m[1], "-")] = m[2] != ""
		}
	}
	return out
}

// isBool reports whether a flag takes no value.
func isBool(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// Every command's --help documents each flag of its flag set, no other,
// and a value for those that take one.
func TestUsageFlags(t *testing.T) {
	var names [][]string
	for _, c := range commands() {
		if c.name != "llm" {
			names = append(names, []string{c.name})
		}
	}
	names = append(names, []string{"llm", "serve"}, []string{"llm", "record"}, []string{"llm", "replay"})
	defer func() { onParse = nil }()
	for _, name := range names {
		t.Run(strings.Join(name, " "), func(t *testing.T) {
			var fs *flag.FlagSet
			var usage string
			onParse = func(f *flag.FlagSet, u string) { fs, usage = f, u }
			var stdout bytes.Buffer
			code := run(append(name, "--help"), strings.NewReader(""), &stdout, io.Discard)
			require.Equal(t, 0, code)
			require.NotNil(t, fs, "the command parses no flags")
			assert.Equal(t, usage, stdout.String(), "--help prints the usage")
			want := map[string]bool{}
			fs.VisitAll(func(f *flag.Flag) { want[f.Name] = !isBool(f) })
			if diff := cmp.Diff(want, usageFlags(usage)); diff != "" {
				t.Errorf("the usage's flags (-flag set +usage), true for a flag with a value:\n%s", diff)
			}
		})
	}
}

// The three commands that run an agent take it, check it and report on it
// by the same flags.
func TestAgentFlagsShared(t *testing.T) {
	defer func() { onParse = nil }()
	sets := map[string][]string{}
	for _, name := range []string{"explore", "conform", "test"} {
		onParse = func(fs *flag.FlagSet, usage string) {
			for _, f := range (&agentFlags{}).flags() {
				if fs.Lookup(f.name) != nil {
					sets[name] = append(sets[name], f.name)
				}
			}
			assert.Contains(t, usage, agentHelp(map[string]agentDefaults{"explore": exploreDefaults, "conform": conformDefaults, "test": testDefaults}[name]))
		}
		require.Equal(t, 0, run([]string{name, "--help"}, strings.NewReader(""), io.Discard, io.Discard))
	}
	var all []string
	for _, f := range (&agentFlags{}).flags() {
		all = append(all, f.name)
	}
	for name, got := range sets {
		assert.Equal(t, all, got, name)
	}
	for _, want := range []string{"cmd", "url", "llm", "dir", "path", "timeout", "plans", "seed", "record", "profile", "allow", "enable", "json", "junit"} {
		assert.True(t, slices.Contains(all, want), "the agent flags have no --%s", want)
	}
}

// Flags go before, between and after the arguments; "--" ends them.
func TestParseFlags(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		json bool
		want []string
	}{
		{"before", []string{"--json", "a", "b"}, true, []string{"a", "b"}},
		{"after", []string{"a", "b", "--json"}, true, []string{"a", "b"}},
		{"between", []string{"a", "--json", "b"}, true, []string{"a", "b"}},
		{"stdin", []string{"-", "--json"}, true, []string{"-"}},
		{"none", []string{"a"}, false, []string{"a"}},
		{"dashes", []string{"a", "--", "--json", "-x"}, false, []string{"a", "--json", "-x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet("x", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			asJSON := fs.Bool("json", false, "")
			require.Equal(t, -1, parseFlags(fs, tc.args, "usage\n", io.Discard, io.Discard))
			assert.Equal(t, tc.json, *asJSON)
			assert.Equal(t, tc.want, fs.Args())
		})
	}
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var stderr bytes.Buffer
	assert.Equal(t, 2, parseFlags(fs, []string{"a", "--frob"}, "usage\n", io.Discard, &stderr))
	assert.Equal(t, "aguitest x: flag provided but not defined: -frob\n\nusage\n", stderr.String())
}

// A listFlag keeps every value given; with commas, each is a list too.
func TestListFlag(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	var whole listFlag
	rules := commaList()
	fs.Var(&whole, "tool", "")
	fs.Var(&rules, "allow", "")
	require.NoError(t, fs.Parse([]string{"--tool", `a={"x":1,"y":2}`, "--allow", "r1, r2", "--tool", "b", "--allow", "r3,"}))
	assert.Equal(t, []string{`a={"x":1,"y":2}`, "b"}, whole.values)
	assert.Equal(t, []string{"r1", "r2", "r3"}, rules.values)
	assert.Equal(t, "r1,r2,r3", rules.String())
}

// Whatever the arguments, parseFlags does not panic, keeps the arguments
// in their order, and sets the flags as package flag does when they all
// come first.
func FuzzParseFlags(f *testing.F) {
	f.Add("a\x00--json\x00b")
	f.Add("--n\x003\x00-\x00--\x00--json")
	f.Add("--s\x00--\x00x\x00--json")
	f.Fuzz(func(t *testing.T, joined string) {
		args := strings.Split(joined, "\x00")
		newFS := func() (*flag.FlagSet, *bool, *int, *string) {
			fs := flag.NewFlagSet("x", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			return fs, fs.Bool("json", false, ""), fs.Int("n", 0, ""), fs.String("s", "", "")
		}
		fs, j, n, s := newFS()
		if parseFlags(fs, args, "", io.Discard, io.Discard) != -1 {
			return
		}
		pos := fs.Args()
		// The same flags, first, then the arguments after "--": the
		// flags are what is left of args without the arguments (told
		// apart when each is there once).
		flags := slices.Clone(args)
		for _, p := range pos {
			i := slices.Index(flags, p)
			if i < 0 {
				t.Fatalf("argument %q is not among %q", p, args)
			}
			if slices.Index(flags[i+1:], p) >= 0 {
				return
			}
			flags = slices.Delete(flags, i, i+1)
		}
		fs2, j2, n2, s2 := newFS()
		if err := fs2.Parse(flags); err != nil || fs2.NArg() > 0 {
			t.Fatalf("%q: the flags alone, %q, do not parse: %v, arguments %q", args, flags, err, fs2.Args())
		}
		if *j != *j2 || *n != *n2 || *s != *s2 {
			t.Errorf("%q: got json=%v n=%d s=%q, flags first give %v %d %q", args, *j, *n, *s, *j2, *n2, *s2)
		}
	})
}

// A flag whose name and value are too long for the help's column has its
// help on the next line, at the column.
func TestAgentHelpLongFlag(t *testing.T) {
	var b strings.Builder
	indent := strings.Repeat(" ", helpColumn)
	for _, f := range []agentFlag{{"client-behaviour", "NAME", nil, "what the client does\nafter a failed tool"}, {"path", "PATH", nil, "the path"}} {
		name := "--" + f.name + " " + f.arg
		b.WriteString(helpLine(name, f.help))
	}
	assert.Equal(t, "  --client-behaviour NAME\n"+indent+"what the client does\n"+indent+"after a failed tool\n"+
		"  --path PATH         the path\n", b.String())
	assert.Equal(t, map[string]bool{"client-behaviour": true, "path": true}, usageFlags(b.String()))
}
