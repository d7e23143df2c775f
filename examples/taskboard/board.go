package taskboard

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Board is the shared state of the example: columns holding tasks. It is
// the AG-UI state the client sends in RunAgentInput.state and the agent
// changes with STATE_DELTA (JSON Patch) as its tools run.
type Board struct {
	Columns []Column `json:"columns"`
	// NextID numbers the next task added: "T<NextID>".
	NextID int `json:"nextId"`
}

// Column is one column of the board.
type Column struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	Tasks []Task `json:"tasks"`
}

// Task is one card on the board.
type Task struct {
	ID    string `json:"id"`
	Title string `json:"title"`
}

// NewBoard returns the board an agent starts from when the client's state
// holds none: three empty columns.
func NewBoard() Board {
	return Board{
		Columns: []Column{
			{ID: "todo", Title: "To do", Tasks: []Task{}},
			{ID: "doing", Title: "Doing", Tasks: []Task{}},
			{ID: "done", Title: "Done", Tasks: []Task{}},
		},
		NextID: 1,
	}
}

// parseBoard reads the client's state. ok is false when the state holds no
// board (absent, {} or another shape): the agent then starts from NewBoard
// and must publish it with a snapshot before its deltas mean anything.
func parseBoard(state json.RawMessage) (b Board, ok bool) {
	if len(state) == 0 || json.Unmarshal(state, &b) != nil || len(b.Columns) == 0 {
		return NewBoard(), false
	}
	ok = true
	for i := range b.Columns {
		if b.Columns[i].Tasks == nil {
			// A null list cannot take "/tasks/-" in a patch; the
			// snapshot published next fixes the client's copy.
			b.Columns[i].Tasks = []Task{}
			ok = false
		}
	}
	if b.NextID < 1 {
		b.NextID = 1
		ok = false
	}
	return b, ok
}

// op is one JSON Patch (RFC 6902) operation.
type op struct {
	Op    string `json:"op"`
	From  string `json:"from,omitempty"`
	Path  string `json:"path"`
	Value any    `json:"value,omitempty"`
}

// toolError is a tool failure reported to the model as the call's result,
// so that it can tell the user; it changes nothing on the board.
type toolError string

func (e toolError) Error() string { return string(e) }

func (b *Board) column(id string) (int, error) {
	for i, c := range b.Columns {
		if c.ID == id {
			return i, nil
		}
	}
	return 0, toolError(fmt.Sprintf("no column %q", id))
}

func (b *Board) find(id string) (col, pos int, err error) {
	for i, c := range b.Columns {
		for j, t := range c.Tasks {
			if t.ID == id {
				return i, j, nil
			}
		}
	}
	return 0, 0, toolError(fmt.Sprintf("no task %q", id))
}

func taskPath(col, pos int) string {
	return "/columns/" + strconv.Itoa(col) + "/tasks/" + strconv.Itoa(pos)
}

// The arguments of the four board tools.
type (
	addArgs struct {
		Title  string `json:"title"`
		Column string `json:"column"`
	}
	moveArgs struct {
		ID string `json:"id"`
		To string `json:"to"`
	}
	renameArgs struct {
		ID    string `json:"id"`
		Title string `json:"title"`
	}
	removeArgs struct {
		ID string `json:"id"`
	}
)

// apply runs a board tool on b. It returns the JSON Patch that takes the
// client's copy of the board to the new one, and the task concerned, which
// becomes the call's result. On error b is unchanged.
func (b *Board) apply(tool string, args string) ([]op, Task, error) {
	decode := func(v any) error {
		if err := json.Unmarshal([]byte(args), v); err != nil {
			return toolError("arguments are not valid: " + err.Error())
		}
		return nil
	}
	switch tool {
	case "add_task":
		var a addArgs
		if err := decode(&a); err != nil {
			return nil, Task{}, err
		}
		if a.Title == "" {
			return nil, Task{}, toolError("a task needs a title")
		}
		if a.Column == "" {
			a.Column = "todo"
		}
		i, err := b.column(a.Column)
		if err != nil {
			return nil, Task{}, err
		}
		t := Task{ID: "T" + strconv.Itoa(b.NextID), Title: a.Title}
		b.Columns[i].Tasks = append(b.Columns[i].Tasks, t)
		b.NextID++
		return []op{
			{Op: "add", Path: "/columns/" + strconv.Itoa(i) + "/tasks/-", Value: t},
			{Op: "replace", Path: "/nextId", Value: b.NextID},
		}, t, nil
	case "move_task":
		var a moveArgs
		if err := decode(&a); err != nil {
			return nil, Task{}, err
		}
		i, j, err := b.find(a.ID)
		if err != nil {
			return nil, Task{}, err
		}
		to, err := b.column(a.To)
		if err != nil {
			return nil, Task{}, err
		}
		t := b.Columns[i].Tasks[j]
		if to == i {
			return nil, t, nil // already there: nothing to patch
		}
		b.Columns[i].Tasks = append(b.Columns[i].Tasks[:j], b.Columns[i].Tasks[j+1:]...)
		b.Columns[to].Tasks = append(b.Columns[to].Tasks, t)
		return []op{{Op: "move", From: taskPath(i, j), Path: "/columns/" + strconv.Itoa(to) + "/tasks/-"}}, t, nil
	case "rename_task":
		var a renameArgs
		if err := decode(&a); err != nil {
			return nil, Task{}, err
		}
		if a.Title == "" {
			return nil, Task{}, toolError("a task needs a title")
		}
		i, j, err := b.find(a.ID)
		if err != nil {
			return nil, Task{}, err
		}
		b.Columns[i].Tasks[j].Title = a.Title
		return []op{{Op: "replace", Path: taskPath(i, j) + "/title", Value: a.Title}}, b.Columns[i].Tasks[j], nil
	case "remove_task":
		var a removeArgs
		if err := decode(&a); err != nil {
			return nil, Task{}, err
		}
		i, j, err := b.find(a.ID)
		if err != nil {
			return nil, Task{}, err
		}
		t := b.Columns[i].Tasks[j]
		b.Columns[i].Tasks = append(b.Columns[i].Tasks[:j], b.Columns[i].Tasks[j+1:]...)
		return []op{{Op: "remove", Path: taskPath(i, j)}}, t, nil
	}
	return nil, Task{}, toolError(fmt.Sprintf("no tool %q", tool))
}
