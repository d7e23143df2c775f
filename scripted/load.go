package scripted

import (
	"fmt"
	"os"

	yaml "go.yaml.in/yaml/v3"

	"github.com/aguitest/aguitest/internal/yamlfile"
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
	var s Script
	doc, err := yamlfile.Decode(name, "script", data, &s)
	if err != nil {
		return Script{}, err
	}
	if len(s.Turns) == 0 {
		return Script{}, fmt.Errorf("%s:%d: the script has no turns", name, doc.Line)
	}
	s.Locate(name, yamlfile.ItemLines(doc, "turns"))
	if err := s.Validate(); err != nil {
		return Script{}, err
	}
	return s, nil
}

// Locate records where s was read from: the file, and the line of each
// of its turns, in order. Load and Parse locate the scripts they read; a
// reader of a file that holds a script among other things (the case files
// of "aguitest test") locates it so, and then Validate, Check and the
// server name file:line in their errors as for a loaded script.
func (s *Script) Locate(file string, turnLines []int) {
	s.source = file
	s.lines = append([]int(nil), turnLines...)
}

// UnmarshalYAML reads a duration, naming its line when it is invalid.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if err := d.UnmarshalText([]byte(n.Value)); err != nil {
		return fmt.Errorf("line %d: %v", n.Line, err)
	}
	return nil
}
