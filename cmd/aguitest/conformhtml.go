package main

import (
	_ "embed"
	"fmt"
	"html/template"
	"os"
	"strings"

	"github.com/aguitest/aguitest/conform"
)

// The conform page is one self-contained file, as show's: the results, and
// each failing scenario's problems and the timeline of its runs, drawn as
// "aguitest show --html" draws a recording.
//
//go:embed conform.html.tmpl
var conformPageText string

var conformTmpl = template.Must(template.Must(pageTmpl.Clone()).New("conform").Parse(conformPageText))

type conformPage struct {
	Title, Summary string
	Bad            bool
	Rows           []conformRow
	Failures       []conformFailure
}

type conformRow struct {
	Name, Status, First, Anchor string
}

type conformFailure struct {
	Name, Anchor, Doc string
	Problems          []string
	Runs              []htmlRun
}

// writeConformHTML writes the page of a report to file.
func writeConformHTML(file, server string, rep *conform.Report) error {
	page := conformPage{
		Title: "aguitest conform: " + server,
		Summary: fmt.Sprintf("%s in %.1fs, profile %s: %d passed, %d failed, %d skipped", plural(len(rep.Results), "scenario"), rep.Duration.Seconds(), rep.Profile,
			rep.Count(conform.Pass), rep.Count(conform.Fail), rep.Count(conform.Skip)),
		Bad: rep.Failed(),
	}
	if rep.Err != nil {
		page.Summary += "; stopped: " + rep.Err.Error()
	}
	for i, r := range rep.Results {
		row := conformRow{Name: r.Name, Status: string(r.Status)}
		switch r.Status {
		case conform.Fail:
			row.Anchor = fmt.Sprintf("scenario-%d", i+1)
			if len(r.Problems) > 0 {
				row.First, _, _ = strings.Cut(r.Problems[0].Text, "\n")
			}
			f := conformFailure{Name: r.Name, Anchor: row.Anchor, Doc: r.Doc}
			for _, p := range r.Problems {
				f.Problems = append(f.Problems, p.Text)
			}
			if r.Recording != "" {
				if runs, err := htmlRunsOf(r.Recording, rep.Profile); err == nil {
					for n := range runs {
						runs[n].Anchor = fmt.Sprintf("%s-run-%d", row.Anchor, n+1)
					}
					f.Runs = append(f.Runs, runs...)
				} else {
					f.Problems = append(f.Problems, "the recording cannot be read: "+err.Error())
				}
			}
			page.Failures = append(page.Failures, f)
		case conform.Skip:
			row.First = r.Reason
		case conform.Pass:
			if len(r.Notes) > 0 {
				row.First = r.Notes[0]
			}
		}
		page.Rows = append(page.Rows, row)
	}
	f, err := os.Create(file)
	if err != nil {
		return err
	}
	err = conformTmpl.ExecuteTemplate(f, "conform", page)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
