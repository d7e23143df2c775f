package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	btypes "github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	ollama "github.com/ollama/ollama/api"
)

// The clients of the wires of Bedrock and Ollama.

// copiedBodies sends each request's body from a copy of its own: the
// AWS SDK closes the body it hands net/http while net/http may still read
// it, which breaks a stream from a server on the same machine now and
// then (scripted's TestBedrockSDKClosedBodyRace).
type copiedBodies struct{}

func (copiedBodies) RoundTrip(r *http.Request) (*http.Response, error) {
	if r.Body != nil && r.Body != http.NoBody {
		b, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return nil, err
		}
		r = r.Clone(r.Context())
		r.Body = io.NopCloser(bytes.NewReader(b))
	}
	return http.DefaultTransport.RoundTrip(r)
}

var bedrockClients = map[string]*bedrockruntime.Client{}

// readBedrockGo reads a turn with ConverseStream, joining each toolUse
// block's input by its index.
func readBedrockGo(ctx context.Context, root string, t turn) (int, error) {
	c, ok := bedrockClients[root]
	if !ok {
		c = bedrockruntime.New(bedrockruntime.Options{Region: "us-east-1", BaseEndpoint: aws.String(root), Retryer: aws.NopRetryer{},
			HTTPClient: &http.Client{Transport: copiedBodies{}},
			Credentials: aws.CredentialsProviderFunc(func(context.Context) (aws.Credentials, error) {
				return aws.Credentials{AccessKeyID: "AKIDBENCH", SecretAccessKey: "bench"}, nil
			})})
		bedrockClients[root] = c
	}
	out, err := c.ConverseStream(ctx, &bedrockruntime.ConverseStreamInput{ModelId: aws.String("claude-bench"),
		Messages: []btypes.Message{{Role: btypes.ConversationRoleUser, Content: []btypes.ContentBlock{&btypes.ContentBlockMemberText{Value: t.user}}}}})
	if err != nil {
		return 0, err
	}
	st := out.GetStream()
	defer st.Close()
	n := 0
	names, args := map[int32]string{}, map[int32]string{}
	for ev := range st.Events() {
		n++
		switch v := ev.(type) {
		case *btypes.ConverseStreamOutputMemberContentBlockStart:
			if tu, ok := v.Value.Start.(*btypes.ContentBlockStartMemberToolUse); ok {
				names[*v.Value.ContentBlockIndex] = *tu.Value.Name
			}
		case *btypes.ConverseStreamOutputMemberContentBlockDelta:
			if d, ok := v.Value.Delta.(*btypes.ContentBlockDeltaMemberToolUse); ok {
				args[*v.Value.ContentBlockIndex] += aws.ToString(d.Value.Input)
			}
		}
	}
	if err := st.Err(); err != nil {
		return n, err
	}
	var idx []int
	for i := range names {
		idx = append(idx, int(i))
	}
	sort.Ints(idx)
	var ns, as []string
	for _, i := range idx {
		ns, as = append(ns, names[int32(i)]), append(as, canonical(args[int32(i)]))
	}
	return n, checkCalls(t, ns, as, true)
}

var ollamaClients = map[string]*ollama.Client{}

// readOllamaGo reads a turn with Ollama's client; calls arrive whole.
func readOllamaGo(ctx context.Context, root string, t turn) (int, error) {
	c, ok := ollamaClients[root]
	if !ok {
		u, _ := url.Parse(root)
		c = ollama.NewClient(u, http.DefaultClient)
		ollamaClients[root] = c
	}
	n := 0
	done := false
	var names, args []string
	err := c.Chat(ctx, &ollama.ChatRequest{Model: "llama-bench", Messages: []ollama.Message{{Role: "user", Content: t.user}}}, func(r ollama.ChatResponse) error {
		n++
		for _, tc := range r.Message.ToolCalls {
			b, _ := json.Marshal(tc.Function.Arguments)
			names, args = append(names, tc.Function.Name), append(args, canonical(string(b)))
		}
		done = done || r.Done
		return nil
	})
	if err == nil && !done {
		err = errors.New("the stream ended without its done line")
	}
	if err != nil {
		return n, err
	}
	return n, checkCalls(t, names, args, true)
}

// rawEventstream streams a turn with net/http and counts the messages of
// the event stream (their preludes: each message's total length).
func rawEventstream(ctx context.Context, root string, t turn) (int, error) {
	b, _ := json.Marshal(map[string]any{"messages": []map[string]any{{"role": "user", "content": []map[string]string{{"text": t.user}}}}})
	req, _ := http.NewRequestWithContext(ctx, "POST", root+"/model/claude-bench/converse-stream", bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKIDBENCH/20260101/us-east-1/bedrock/aws4_request, SignedHeaders=host, Signature=0")
	resp, err := raw.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		return 0, fmt.Errorf("status %d: %s", resp.StatusCode, b)
	}
	br := bufio.NewReaderSize(resp.Body, 64<<10)
	n := 0
	var prelude [4]byte
	for {
		if _, err := io.ReadFull(br, prelude[:]); err != nil {
			if errors.Is(err, io.EOF) {
				return n, nil
			}
			return n, err
		}
		total := int(prelude[0])<<24 | int(prelude[1])<<16 | int(prelude[2])<<8 | int(prelude[3])
		if total < 16 {
			return n, fmt.Errorf("a message of %d bytes", total)
		}
		if _, err := br.Discard(total - 4); err != nil {
			return n, err
		}
		n++
	}
}

// rawNDJSON streams a turn on Ollama's chat API and counts its lines.
func rawNDJSON(ctx context.Context, root string, t turn) (int, error) {
	b, _ := json.Marshal(map[string]any{"model": "llama-bench", "stream": true, "messages": []map[string]string{{"role": "user", "content": t.user}}})
	req, _ := http.NewRequestWithContext(ctx, "POST", root+"/api/chat", bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	resp, err := raw.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		return 0, fmt.Errorf("status %d: %s", resp.StatusCode, b)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	n := 0
	for sc.Scan() {
		if len(sc.Bytes()) > 0 {
			n++
		}
	}
	return n, sc.Err()
}
