package agui

import (
	"fmt"
	"strings"
)

// Client names a version of the reference client, HttpAgent of
// @ag-ui/client, that the Reference profile follows. Each version reads a
// response through its own pipeline: SSE framing, compatibility middleware,
// schema checks (the zod schemas of its @ag-ui/core), chunk expansion,
// verifyEvents' ordering rules and the view it ends with. The zero value
// means every supported client: under Strict a stream must be accepted by
// all of them, under Reference it is ClientV100.
type Client string

const (
	// ClientV100 is @ag-ui/client 1.0.0, the newest.
	ClientV100 Client = "1.0.0"
	// ClientV0059 is @ag-ui/client 0.0.59, the version CopilotKit's
	// @copilotkit/react-core 1.74 and @copilotkit/runtime 1.75 pin.
	ClientV0059 Client = "0.0.59"
)

// Clients lists the supported client versions, newest first.
func Clients() []Client { return []Client{ClientV100, ClientV0059} }

// String returns the npm package and version, with who pins it:
// "@ag-ui/client 0.0.59 (pinned by CopilotKit 1.74/1.75)".
func (c Client) String() string {
	switch c {
	case "":
		return "every supported @ag-ui/client"
	case ClientV0059:
		return "@ag-ui/client 0.0.59 (pinned by CopilotKit 1.74/1.75)"
	}
	return "@ag-ui/client " + string(c)
}

// ParseClient parses a client version, "1.0.0" or "0.0.59" (a leading "v"
// and the "@ag-ui/client@" prefix are accepted).
func ParseClient(s string) (Client, error) {
	v := strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(s), "@ag-ui/client@"), "v")
	for _, c := range Clients() {
		if string(c) == v {
			return c, nil
		}
	}
	var names []string
	for _, c := range Clients() {
		names = append(names, string(c))
	}
	return "", fmt.Errorf("unknown client version %q (want %s)", s, strings.Join(names, " or "))
}

// known reports whether c is a supported version (or the zero value).
func (c Client) known() bool {
	if c == "" {
		return true
	}
	for _, k := range Clients() {
		if k == c {
			return true
		}
	}
	return false
}
