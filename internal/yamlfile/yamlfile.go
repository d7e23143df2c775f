// Package yamlfile reads YAML and JSON files strictly into Go values:
// unknown fields are errors, and every error names the file and line.
// The scripted LLM's scripts and the case files of "aguitest test" are
// read with it.
package yamlfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"regexp"
	"strings"

	"github.com/aguitest/aguitest/internal/words"
	yaml "go.yaml.in/yaml/v3"
)

// Decode reads data, named name in errors, into v, strictly (unknown fields
// are errors), and returns the document's root node, for the lines of what
// was read. An empty document is an error, as is a root that is not a
// mapping; what names the document in those messages ("script"). JSON
// syntax errors name the line and column.
func Decode(name, what string, data []byte, v any) (*yaml.Node, error) {
	if err := jsonSyntax(name, data); err != nil {
		return nil, err
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, Err(name, err)
	}
	if len(root.Content) == 0 {
		return nil, fmt.Errorf("%s: empty %s", name, what)
	}
	doc := root.Content[0]
	if doc.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:%d: want a mapping (the %s), not a %s", name, doc.Line, what, KindName(doc))
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(v); err != nil && !errors.Is(err, io.EOF) {
		return nil, Err(name, suggestFields(err, reflect.TypeOf(v)))
	}
	return doc, nil
}

// unknownField is the reader's message for a key no field of a struct
// takes.
var unknownField = regexp.MustCompile(`^line \d+: field (.+) not found in type (\S+)$`)

// suggestFields adds a did-you-mean to the reader's unknown-field messages:
// the field of that type the key most likely misspells, among the keys of
// the types reachable from t.
func suggestFields(err error, t reflect.Type) error {
	var te *yaml.TypeError
	if !errors.As(err, &te) {
		return err
	}
	var keys map[string][]string
	out := &yaml.TypeError{Errors: make([]string, len(te.Errors))}
	for i, m := range te.Errors {
		out.Errors[i] = m
		sub := unknownField.FindStringSubmatch(m)
		if sub == nil {
			continue
		}
		if keys == nil {
			keys = map[string][]string{}
			structKeys(t, keys)
		}
		out.Errors[i] = m + words.DidYouMean(sub[1], keys[sub[2]])
	}
	return out
}

// structKeys records, for each struct type reachable from t, the keys its
// fields take in YAML, by the type's name as the reader's messages give it.
func structKeys(t reflect.Type, seen map[string][]string) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return
	}
	if _, ok := seen[t.String()]; ok {
		return
	}
	seen[t.String()] = nil
	var keys []string
	var walk func(t reflect.Type)
	walk = func(t reflect.Type) {
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			tag := f.Tag.Get("yaml")
			name, opts, _ := strings.Cut(tag, ",")
			if name == "-" {
				continue
			}
			if strings.Contains(","+opts+",", ",inline,") && f.Type.Kind() == reflect.Struct {
				walk(f.Type)
				continue
			}
			if name == "" {
				name = strings.ToLower(f.Name)
			}
			keys = append(keys, name)
			structKeys(f.Type, seen)
		}
	}
	walk(t)
	seen[t.String()] = keys
}

// KindName names a node's kind for a message.
func KindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "list"
	case yaml.ScalarNode:
		return "scalar"
	case yaml.MappingNode:
		return "mapping"
	}
	return "document"
}

// Field returns the value of the key of a mapping node, or nil.
func Field(n *yaml.Node, key string) *yaml.Node {
	if n == nil || n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

// ItemLines returns the line of each item of the list under key in the
// mapping n (nil when there is none).
func ItemLines(n *yaml.Node, key string) []int {
	var lines []int
	if list := Field(n, key); list != nil && list.Kind == yaml.SequenceNode {
		for _, item := range list.Content {
			lines = append(lines, item.Line)
		}
	}
	return lines
}

// jsonSyntax reports a JSON syntax error with line and column when data
// looks like JSON, since the YAML reader words them less clearly.
func jsonSyntax(name string, data []byte) error {
	t := bytes.TrimLeft(data, " \t\r\n\ufeff")
	if len(t) == 0 || t[0] != '{' && t[0] != '[' {
		return nil
	}
	var v any
	err := json.Unmarshal(data, &v)
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return nil
	}
	line, col := 1, 1
	for _, c := range data[:max(0, min(int(se.Offset)-1, len(data)))] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Errorf("%s:%d:%d: %v", name, line, col, se)
}

var (
	yamlLine = regexp.MustCompile(`^(?:yaml: )?line (\d+): `)
	// Go package names in the reader's messages: "in type scripted.Turn".
	goType = regexp.MustCompile(`\b(in|into) (?:type )?[a-z][a-z0-9_]*\.`)
)

// Err rewrites the YAML reader's "line N: msg" errors as "name:N: msg",
// one per line, and an error of UnmarshalYAML that starts "line N: " so.
func Err(name string, err error) error {
	var msgs []string
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs = te.Errors
	} else {
		msgs = []string{err.Error()}
	}
	var errs []error
	for _, m := range msgs {
		m = goType.ReplaceAllString(m, "$1 ")
		if loc := yamlLine.FindStringSubmatch(m); loc != nil {
			errs = append(errs, fmt.Errorf("%s:%s: %s", name, loc[1], m[len(loc[0]):]))
			continue
		}
		errs = append(errs, fmt.Errorf("%s: %s", name, strings.TrimPrefix(m, "yaml: ")))
	}
	return errors.Join(errs...)
}

// Errorf returns an error about node n for an UnmarshalYAML method: the
// reader collects it with the others, and Err names its file and line.
func Errorf(n *yaml.Node, format string, args ...any) error {
	return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %s", n.Line, fmt.Sprintf(format, args...))}}
}

// JSON returns the value of node n as JSON text: mappings as objects,
// sequences as arrays, scalars as their YAML values.
func JSON(n *yaml.Node) (json.RawMessage, error) {
	var v any
	if err := n.Decode(&v); err != nil {
		return nil, Errorf(n, "%v", err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, Errorf(n, "not a JSON value: %v", err)
	}
	return b, nil
}
