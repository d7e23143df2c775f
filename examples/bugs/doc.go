// Package bugs is an AG-UI agent and five copies of it, each a few lines
// off, with a bug reported against a real AG-UI integration:
//
//   - ag-ui #1016 (ag-ui-langgraph): the arguments of parallel calls under
//     the wrong id (WrongID);
//   - ag-ui #1776 (ag-ui-langgraph): parallel calls streamed one after
//     another with no terminator between them merged into the first, the
//     second lost (MergedCalls);
//   - ag-ui #2463 (ag-ui-langgraph): a call whose name and full arguments
//     arrive in one chunk sent as TOOL_CALL_START and TOOL_CALL_END, with no
//     TOOL_CALL_ARGS (FirstChunkArgs);
//   - strands #1346 (ag_ui_strands): only the first of parallel calls to
//     the client's tools sent (FirstClientCall);
//   - microsoft/agent-framework #6009: the results of parallel calls under
//     one message id (SharedResultID).
//
// Its tests run one table of four plain cases (text, two calls to the
// client's tools, two calls to the agent's own, a call with no arguments)
// against each, with exploration on and no golden, no hand-written check
// and no plan written by hand: the correct agent passes under every plan,
// and each bug is caught, its failing plan shrunk to the smallest one. The
// failure reports are kept in testdata/failures, one file per bug.
//
// The agents are here to show what aguitest reports; do not copy the bugs.
package bugs
