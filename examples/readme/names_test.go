package readme_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// api is what the library's packages export, read from their source: the
// top-level names of each package, and the fields and methods of each
// type (promoted ones included).
type api struct {
	names map[string]map[string]bool            // package: name
	types map[string]map[string]map[string]bool // package: type: field or method
	embed map[string]map[string][]string        // package: type: embedded types, as pkg.Type
}

// The packages users import, by the name they are used under.
var libraryPackages = []string{"agui", "harness", "golden", "recorder", "replay", "scripted", "conform", "agent", "clock"}

func readAPI(t *testing.T) api {
	t.Helper()
	a := api{names: map[string]map[string]bool{}, types: map[string]map[string]map[string]bool{}, embed: map[string]map[string][]string{}}
	for _, pkg := range libraryPackages {
		a.names[pkg] = map[string]bool{}
		a.types[pkg] = map[string]map[string]bool{}
		a.embed[pkg] = map[string][]string{}
		files, err := filepath.Glob(filepath.Join("../..", pkg, "*.go"))
		require.NoError(t, err)
		require.NotEmpty(t, files, "the files of package %s", pkg)
		fset := token.NewFileSet()
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
			require.NoError(t, err)
			for _, d := range file.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if d.Recv == nil {
						a.names[pkg][d.Name.Name] = true
						continue
					}
					a.member(pkg, receiver(d.Recv.List[0].Type), d.Name.Name)
				case *ast.GenDecl:
					for _, s := range d.Specs {
						switch s := s.(type) {
						case *ast.ValueSpec:
							for _, n := range s.Names {
								a.names[pkg][n.Name] = true
							}
						case *ast.TypeSpec:
							a.names[pkg][s.Name.Name] = true
							a.typeMembers(pkg, s.Name.Name, s.Type)
						}
					}
				}
			}
		}
	}
	return a
}

func (a api) member(pkg, typ, name string) {
	if a.types[pkg][typ] == nil {
		a.types[pkg][typ] = map[string]bool{}
	}
	a.types[pkg][typ][name] = true
}

func (a api) typeMembers(pkg, typ string, e ast.Expr) {
	a.member(pkg, typ, "") // the type exists, members or not
	switch e := e.(type) {
	case *ast.StructType:
		for _, f := range e.Fields.List {
			if len(f.Names) == 0 {
				a.embed[pkg][typ] = append(a.embed[pkg][typ], qualified(pkg, f.Type))
				a.member(pkg, typ, receiver(f.Type))
			}
			for _, n := range f.Names {
				a.member(pkg, typ, n.Name)
			}
		}
	case *ast.InterfaceType:
		for _, m := range e.Methods.List {
			for _, n := range m.Names {
				a.member(pkg, typ, n.Name)
			}
		}
	}
}

// has reports whether type typ of package pkg has the field or method
// name, its own or promoted from an embedded type.
func (a api) has(pkg, typ, name string, depth int) bool {
	if a.types[pkg][typ][name] {
		return true
	}
	if depth > 4 {
		return false
	}
	for _, e := range a.embed[pkg][typ] {
		p, ty, _ := strings.Cut(e, ".")
		if a.has(p, ty, name, depth+1) {
			return true
		}
	}
	return false
}

func receiver(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return receiver(e.X)
	case *ast.IndexExpr:
		return receiver(e.X)
	case *ast.IndexListExpr:
		return receiver(e.X)
	case *ast.SelectorExpr:
		return e.Sel.Name
	case *ast.Ident:
		return e.Name
	}
	return ""
}

func qualified(pkg string, e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return qualified(pkg, e.X)
	case *ast.SelectorExpr:
		if x, ok := e.X.(*ast.Ident); ok {
			return x.Name + "." + e.Sel.Name
		}
	case *ast.Ident:
		return pkg + "." + e.Name
	}
	return ""
}

// commandFlags returns the string literals of the command's source that
// could name a flag: every flag the command defines is one of them.
func commandFlags(t *testing.T) map[string]bool {
	t.Helper()
	return literals(t, "../../cmd/aguitest")
}

// literals returns the string literals of the non-test Go files of dir.
func literals(t *testing.T, dir string) map[string]bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	require.NoError(t, err)
	lits := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.SkipObjectResolution)
		require.NoError(t, err)
		ast.Inspect(file, func(n ast.Node) bool {
			if l, ok := n.(*ast.BasicLit); ok && l.Kind == token.STRING {
				if s, err := strconv.Unquote(l.Value); err == nil {
					lits[s] = true
				}
			}
			return true
		})
	}
	return lits
}

// Flags of other programs the documents name (npm, go, curl, gofmt).
var otherFlags = map[string]bool{"prefix": true, "no-audit": true, "no-fund": true, "no-install-recommends": true}

// TestMarkdownNames checks the names of the API and of the command's flags
// the documents mention: pkg.Name exists in that package, pkg.Type.Member
// and Type.Member name a field or method of that type (of any of the
// library's packages, when no package is named), every --flag is a flag
// of the command (but a few of other programs), and "aguitest NAME" typed
// in a code span or at the start of a line names one of its commands, and
// every -aguitest.NAME is a flag of the test binaries.
func TestMarkdownNames(t *testing.T) {
	a := readAPI(t)
	flags := commandFlags(t)
	qualifiedName := regexp.MustCompile(`\b(` + strings.Join(libraryPackages, "|") + `)\.([A-Z][A-Za-z0-9_]*)(?:\.([A-Z][A-Za-z0-9_]*))?`)
	member := regexp.MustCompile(`(?:^|[^A-Za-z0-9_./])([A-Z][A-Za-z0-9_]*)\.([A-Z][A-Za-z0-9_]*)\b`)
	flag := regexp.MustCompile(`(?:^|[\s(\x60\[])--([a-z][a-z0-9-]*)`)
	// A command as it is typed: in a code span, or at the start of a line.
	testFlags := literals(t, "../../internal/testflags")
	testFlag := regexp.MustCompile(`-(aguitest\.[a-z]+)`)
	typed := regexp.MustCompile("\x60aguitest ([a-z]+)")
	typedLine := regexp.MustCompile(`^\s*(?:[A-Z_]+=\S+ )*aguitest ([a-z]+)`)
	checked := 0
	for name, doc := range markdown(t) {
		if name == "CHANGELOG.md" {
			continue // it names what was, and what is gone
		}
		inBlock := false
		for i, line := range strings.Split(doc, "\n") {
			where := name + ":" + strconv.Itoa(i+1)
			if strings.HasPrefix(strings.TrimSpace(line), "```") {
				inBlock = !inBlock
				continue
			}
			for _, m := range qualifiedName.FindAllStringSubmatch(line, -1) {
				checked++
				pkg, n, mem := m[1], m[2], m[3]
				if !a.names[pkg][n] {
					t.Errorf("%s: %s.%s: package %s has no such name", where, pkg, n, pkg)
					continue
				}
				if mem != "" && a.types[pkg][n] != nil && !a.has(pkg, n, mem, 0) {
					t.Errorf("%s: %s.%s.%s: %s.%s has no field or method %s", where, pkg, n, mem, pkg, n, mem)
				}
			}
			for _, m := range member.FindAllStringSubmatch(line, -1) {
				typ, mem := m[1], m[2]
				known, found := false, false
				for _, pkg := range libraryPackages {
					if a.types[pkg][typ] != nil {
						known = true
						found = found || a.has(pkg, typ, mem, 0)
					}
				}
				if known {
					checked++
					if !found {
						t.Errorf("%s: %s.%s: no type %s of the library has a field or method %s", where, typ, mem, typ, mem)
					}
				}
			}
			for _, m := range testFlag.FindAllStringSubmatch(line, -1) {
				checked++
				if !testFlags[m[1]] {
					t.Errorf("%s: -%s: no test binary has such a flag (internal/testflags)", where, m[1])
				}
			}
			commands := typed.FindAllStringSubmatch(line, -1)
			if inBlock {
				commands = append(commands, typedLine.FindAllStringSubmatch(line, -1)...)
			}
			for _, m := range commands {
				checked++
				if !flags[m[1]] {
					t.Errorf("%s: aguitest %s: the aguitest command has no such command", where, m[1])
				}
			}
			if !strings.Contains(line, "aguitest") && !strings.Contains(line, "--") {
				continue
			}
			for _, m := range flag.FindAllStringSubmatch(line, -1) {
				f := m[1]
				if otherFlags[f] {
					continue
				}
				checked++
				if !flags[f] {
					t.Errorf("%s: --%s: the aguitest command has no such flag", where, f)
				}
			}
		}
	}
	if checked == 0 {
		t.Error("the documents name nothing of the API")
	}
}
