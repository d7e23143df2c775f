package agui

// PushLosses records what the client's decoder dropped of the protobuf
// frames read with e, the event just pushed (Reader.Losses,
// Reader.Losses): each loss is a proto-loss violation of e in the
// Strict profile. The reference client drops them without a complaint, so
// the Reference profile records nothing.
func (v *Verifier) PushLosses(e Event, losses []Loss) []Violation {
	if v.opt.Profile == Reference || len(losses) == 0 {
		return nil
	}
	n := len(v.violations)
	index := max(v.index-1, 0)
	for _, l := range losses {
		msg := l.Reason
		if l.Path != "" {
			msg = "the client's decoder drops " + l.Path + ": " + l.Reason
		}
		v.add(Violation{Index: index, Type: e.typ, Rule: RuleProtoLoss, Message: msg, Field: l.Path,
			MessageID: e.MessageID(), ToolCallID: e.ToolCallID(), StepName: e.StepName(),
			SubagentRunID: e.SubagentRunID(), RunID: e.RunID()})
	}
	return v.violations[n:]
}
