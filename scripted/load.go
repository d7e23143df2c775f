package scripted

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Load reads a script file, YAML or JSON (JSON is YAML too), and validates
// it. Every error names the file and line.
func Load(path string) (Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Script{}, err
	}
	return Parse(path, data)
}

// Parse reads a script from data, named name in errors, and validates it.
// Unknown fields are errors; every error reads "name:line: ...".
func Parse(name string, data []byte) (Script, error) {
	if err := jsonSyntax(name, data); err != nil {
		return Script{}, err
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return Script{}, yamlErr(name, err)
	}
	if len(root.Content) == 0 {
		return Script{}, fmt.Errorf("%s: empty script: want a mapping with turns", name)
	}
	doc := root.Content[0]
	if doc.Kind != yaml.MappingNode {
		return Script{}, fmt.Errorf("%s:%d: want a mapping with turns, not a %s", name, doc.Line, kindName(doc))
	}
	var s Script
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&s); err != nil && !errors.Is(err, io.EOF) {
		return Script{}, yamlErr(name, err)
	}
	if len(s.Turns) == 0 {
		return Script{}, fmt.Errorf("%s:%d: the script has no turns", name, doc.Line)
	}
	s.source = name
	for i := 0; i+1 < len(doc.Content); i += 2 {
		if doc.Content[i].Value == "turns" && doc.Content[i+1].Kind == yaml.SequenceNode {
			for _, t := range doc.Content[i+1].Content {
				s.lines = append(s.lines, t.Line)
			}
		}
	}
	if err := s.Validate(); err != nil {
		return Script{}, err
	}
	return s, nil
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.SequenceNode:
		return "list"
	case yaml.ScalarNode:
		return "scalar"
	}
	return "document"
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

var yamlLine = regexp.MustCompile(`^(?:yaml: )?line (\d+): `)

// yamlErr rewrites the reader's "line N: msg" errors as "name:N: msg".
func yamlErr(name string, err error) error {
	var msgs []string
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs = te.Errors
	} else {
		msgs = []string{err.Error()}
	}
	var errs []error
	for _, m := range msgs {
		m = strings.NewReplacer("in type scripted.", "in ", "into scripted.", "into ").Replace(m)
		if loc := yamlLine.FindStringSubmatch(m); loc != nil {
			errs = append(errs, fmt.Errorf("%s:%s: %s", name, loc[1], m[len(loc[0]):]))
			continue
		}
		errs = append(errs, fmt.Errorf("%s: %s", name, strings.TrimPrefix(m, "yaml: ")))
	}
	return errors.Join(errs...)
}

// UnmarshalYAML reads a duration, naming its line when it is invalid.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if err := d.UnmarshalText([]byte(n.Value)); err != nil {
		return fmt.Errorf("line %d: %v", n.Line, err)
	}
	return nil
}
