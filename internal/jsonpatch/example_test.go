package jsonpatch_test

import (
	"fmt"

	"github.com/aguitest/aguitest/internal/jsonpatch"
)

func ExampleApply() {
	state := []byte(`{"tasks":[{"id":"T1"}],"n":1}`)
	next, err := jsonpatch.Apply(state, []byte(`[{"op":"add","path":"/tasks/-","value":{"id":"T2"}},{"op":"replace","path":"/n","value":2}]`))
	fmt.Println(string(next), err)
	// A patch that does not apply leaves the client's state as it was.
	_, err = jsonpatch.Apply(state, []byte(`[{"op":"replace","path":"/n","value":3},{"op":"remove","path":"/missing"}]`))
	fmt.Println(err)
	// Output:
	// {"tasks":[{"id":"T1"},{"id":"T2"}],"n":2} <nil>
	// operation 1: OPERATION_PATH_UNRESOLVABLE: Cannot perform the operation at a path that does not exist
}
