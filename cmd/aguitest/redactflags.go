package main

import (
	"flag"
	"fmt"
	"os"
	"regexp"

	"github.com/aguitest/aguitest/recorder"
)

// redactHelp documents the redaction flags of record and llm record.
const redactHelp = `Redaction (the recording only; what passes through is untouched). By
default credential headers are dropped, and credentials named as such
(query parameters, JSON and form fields, JSON Patch values, name=value in
text), URL userinfo and credentials of known shapes (gitleaks' ruleset
and the recorder's own: OpenAI, Anthropic, Google, AWS, GitHub, Slack,
Stripe, Hugging Face, Groq, xAI, LangSmith, Pinecone, ... keys, JWTs,
bearer tokens, private keys) are replaced by [REDACTED] wherever they
appear, a key streamed in pieces included:
  --redact PTR          also redact the value at a JSON pointer, in request
                        bodies and events (repeatable), e.g. /forwardedProps/user
  --redact-pattern RE   also redact matches of a regular expression in every
                        string and text (repeatable)
  --redact-rules FILE   also apply the rules of a gitleaks configuration
                        (TOML: [[rules]] with id, regex, keywords, entropy)
  --redact-header NAME  also drop a header (repeatable)
  --keep NAME           do not redact a header, query parameter or field for
                        its name (repeatable), e.g. --keep session
  --redact-off LIST     turn defaults off, comma-separated: all, a rule's id,
                        or any of
                        ` + "%s" + `
`

// redactFlags registers the redaction flags on fs; the returned function
// reads them into a recorder.Redact after parsing.
func redactFlags(fs *flag.FlagSet) func() (recorder.Redact, error) {
	var pointers, patterns, headers, keep listFlag
	fs.Var(&pointers, "redact", "JSON pointer to redact")
	fs.Var(&patterns, "redact-pattern", "regular expression to redact")
	fs.Var(&headers, "redact-header", "header to drop")
	fs.Var(&keep, "keep", "name not to redact")
	off := fs.String("redact-off", "", "defaults to turn off")
	var ruleFiles listFlag
	fs.Var(&ruleFiles, "redact-rules", "gitleaks configuration of further rules")
	return func() (recorder.Redact, error) {
		rd := recorder.Redact{Pointers: pointers.values, Headers: headers.values, Keep: keep.values}
		for _, f := range ruleFiles.values {
			b, err := os.ReadFile(f)
			if err != nil {
				return rd, fmt.Errorf("--redact-rules: %v", err)
			}
			rules, err := recorder.ParseRules(f, b)
			if err != nil {
				return rd, fmt.Errorf("--redact-rules: %v", err)
			}
			rd.Rules = append(rd.Rules, rules...)
		}
		for _, p := range pointers.values {
			if len(p) == 0 || p[0] != '/' {
				return rd, fmt.Errorf("--redact %q is not a JSON pointer (it starts with /)", p)
			}
		}
		for _, p := range patterns.values {
			re, err := regexp.Compile(p)
			if err != nil {
				return rd, fmt.Errorf("--redact-pattern %q: %v", p, err)
			}
			rd.Patterns = append(rd.Patterns, re)
		}
		var err error
		if rd.Off, err = recorder.ParseDefaults(*off); err != nil {
			return rd, fmt.Errorf("--redact-off: %v", err)
		}
		return rd, rd.Validate()
	}
}

// redactUsage is redactHelp with the list of defaults.
func redactUsage() string {
	names := ""
	for i, d := range recorder.Defaults() {
		if i > 0 {
			names += ","
			if i%6 == 0 {
				names += "\n                        "
			} else {
				names += " "
			}
		}
		names += string(d)
	}
	return fmt.Sprintf(redactHelp, names)
}
