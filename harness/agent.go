package harness

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/scripted"
)

// Env is what a case gives the agent under test: the scripted LLM, both as
// an OpenAI-compatible base URL and as a Go-native model. Both serve the
// same script, consumed in order, for this case only.
type Env struct {
	// BaseURL is the scripted server's base URL, http://127.0.0.1:PORT/v1.
	// It serves every provider wire (OpenAI Chat Completions and
	// Responses, Anthropic Messages, Gemini): give it to any LLM client
	// as its base URL.
	BaseURL string
	// APIKey is a placeholder key for OpenAI clients that insist on one.
	APIKey string
	// Model is the Go-native scripted model.
	Model *scripted.Model
	// Case is the name of the case.
	Case string
}

// Agent is the agent under test. Make one with Handler, Func, URL or
// Command.
type Agent interface {
	// start prepares the agent for one case; ctx is the case's.
	start(ctx context.Context, env Env) (runner, error)
}

// runner runs the agent once per AG-UI run of a case.
type runner interface {
	// run posts input and hands what it receives to rcv, in order. It
	// returns when the stream ends.
	run(ctx context.Context, input agui.RunAgentInput, rcv receiver) error
	stop()
}

// receiver takes what a run receives. An error from it stops the run.
type receiver struct {
	// response takes the status and Content-Type of an HTTP agent's
	// successful response, before its body.
	response func(status int, contentType string) error
	// event takes each event, with its line in the body (0 when none).
	event func(e agui.Event, line int) error
	// frame takes each frame of the body that holds no event the client
	// can read; the stream goes on after it.
	frame func(fe *agui.FrameError) error
	// losses takes what the client's decoder drops of the protobuf frames
	// read with event e (nil ignores them).
	losses func(e agui.Event, ls []agui.Loss) error
}

// Handler makes an Agent of an http.Handler that serves AG-UI: it answers a
// POST of a RunAgentInput with a server-sent event stream. The handler is
// built for each case from the case's Env and served on a loopback port.
func Handler(build func(env Env) http.Handler) Agent { return handlerAgent{build} }

type handlerAgent struct{ build func(Env) http.Handler }

func (a handlerAgent) start(_ context.Context, env Env) (runner, error) {
	srv := httptest.NewServer(a.build(env))
	return &httpRunner{url: srv.URL, close: srv.Close}, nil
}

// URL makes an Agent of an AG-UI endpoint that is already running. The
// harness cannot point such an agent at the case's scripted LLM: use it
// with cases whose agent needs no model, or whose model the endpoint was
// configured with.
func URL(url string) Agent { return urlAgent(url) }

type urlAgent string

func (a urlAgent) start(context.Context, Env) (runner, error) {
	return &httpRunner{url: string(a), close: func() {}}, nil
}

type httpRunner struct {
	url    string
	close  func()
	accept string // the Accept header; "" asks for server-sent events
}

// setAccept sets the Accept header of an HTTP agent's requests.
func setAccept(r runner, accept string) {
	switch h := r.(type) {
	case *httpRunner:
		h.accept = accept
	case *commandRunner:
		h.accept = accept
	case *sharedRunner:
		h.p.r.accept = accept
	}
}

func (r *httpRunner) stop() { r.close() }

func (r *httpRunner) run(ctx context.Context, input agui.RunAgentInput, rcv receiver) error {
	body, err := json.Marshal(input)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	accept := r.accept
	if accept == "" {
		accept = agui.MediaTypeSSE
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", accept)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("POST %s: %w", r.url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4<<10))
		return fmt.Errorf("POST %s: status %s: %s", r.url, resp.Status, bytes.TrimSpace(b))
	}
	ct := resp.Header.Get("Content-Type")
	if agui.Negotiate(accept) == agui.EncodingProto && ct != agui.MediaTypeProto {
		// Testing the protobuf path was asked for; HttpAgent reads
		// protobuf only under exactly this Content-Type.
		return fmt.Errorf("POST %s: asked for protobuf (Accept: %s), the agent answered Content-Type %q; HttpAgent reads protobuf only under Content-Type %s", r.url, accept, ct, agui.MediaTypeProto)
	}
	if err := rcv.response(resp.StatusCode, ct); err != nil {
		return err
	}
	return readStream(resp.Body, r.url, ct, rcv)
}

// readStream reads the events of a response with the given Content-Type
// (which chooses protobuf or server-sent events, as for the client).
func readStream(body io.Reader, name, contentType string, rcv receiver) error {
	rd := agui.NewReader(body, name)
	rd.ContentType = contentType
	var last agui.Event
	for {
		e, err := rd.Next()
		if err == io.EOF {
			if ls := rd.Losses(); ls != nil && rcv.losses != nil {
				return rcv.losses(last, ls) // frames skipped at the end
			}
			return nil
		}
		if err != nil {
			var fe *agui.FrameError
			if errors.As(err, &fe) {
				if err := rcv.frame(fe); err != nil {
					return err
				}
				continue
			}
			return err
		}
		if err := rcv.event(e, rd.Line()); err != nil {
			return err
		}
		last = e
		if ls := rd.Losses(); ls != nil && rcv.losses != nil {
			if err := rcv.losses(e, ls); err != nil {
				return err
			}
		}
	}
}

// Func makes an Agent of a Go function that emits events. The function is
// called once per run; emit returns an error once the harness has stopped
// listening (the function should then return).
func Func(run func(ctx context.Context, env Env, input agui.RunAgentInput, emit func(agui.Event) error) error) Agent {
	return funcAgent{run}
}

type funcAgent struct {
	run func(context.Context, Env, agui.RunAgentInput, func(agui.Event) error) error
}

func (a funcAgent) start(_ context.Context, env Env) (runner, error) {
	return &funcRunner{fn: a.run, env: env}, nil
}

type funcRunner struct {
	fn  func(context.Context, Env, agui.RunAgentInput, func(agui.Event) error) error
	env Env
}

func (r *funcRunner) stop() {}

func (r *funcRunner) run(ctx context.Context, input agui.RunAgentInput, rcv receiver) error {
	return r.fn(ctx, r.env, input, func(e agui.Event) error { return rcv.event(e, 0) })
}

// Command makes an Agent of a program, so that agents written in any
// language are tested the same way. Run, TestAll, an explored case and
// conform.Run keep a program from one case (or plan, or scenario) to the
// next and start another only after a failed run (see Pool); Test and
// RunCase on their own start one for the case. Its environment
// points every provider's client at the case's scripted LLM
// (OPENAI_BASE_URL and OPENAI_API_KEY, ANTHROPIC_BASE_URL and
// ANTHROPIC_API_KEY, GOOGLE_GEMINI_BASE_URL and GEMINI_API_KEY,
// AZURE_OPENAI_ENDPOINT, AZURE_OPENAI_API_KEY and OPENAI_API_VERSION,
// GOOGLE_VERTEX_BASE_URL, AWS_ENDPOINT_URL_BEDROCK_RUNTIME with fake AWS
// credentials and region, OLLAMA_HOST), keeps it from reaching any other
// host (see CommandAgent.AllowHosts), and has
// PORT naming a free loopback port, on which it must serve AG-UI (POST to
// Path, "/" by default). The harness waits until the port accepts
// connections and stops the program when its cases are over. The port is drawn
// from 20000-31999, below the kernel's ephemeral ports, and claimed for
// the machine while the program runs (a lock on a file in
// $TMPDIR/aguitest-ports), so that programs started by other aguitest
// processes at once, such as the test binaries of other packages, never
// get the same one.
func Command(name string, args ...string) *CommandAgent {
	return &CommandAgent{Name: name, Args: args, Path: "/"}
}

// CommandAgent is an agent run as a program; see Command.
type CommandAgent struct {
	Name string
	Args []string
	// Dir is the program's working directory.
	Dir string
	// Env is added to the program's environment.
	Env []string
	// Path is the AG-UI endpoint's path; "" means "/".
	Path string
	// StartTimeout bounds the wait for the program to listen; 0 means
	// DefaultStartTimeout.
	StartTimeout time.Duration
	// AllowHosts names the hosts other than this machine that the program
	// may reach ("*" for any). Every other attempt is refused and fails
	// the case (ProblemOutbound): the program's HTTP_PROXY and HTTPS_PROXY
	// (and their lowercase forms, and ALL_PROXY) lead to a proxy of the
	// harness that refuses and records each request to another host (a
	// CONNECT for HTTPS), NO_PROXY exempts localhost, 127.0.0.1 and ::1,
	// and NODE_OPTIONS loads a preload into a Node program, whose
	// clients ignore proxy settings, refusing its connections to other
	// hosts before any DNS lookup. A program that opens connections
	// itself and ignores the proxy settings, outside Node (Java, which
	// reads its proxy from system properties; a Go program whose
	// transport sets no Proxy), or a UDP datagram (DNS, statsd), is not
	// seen.
	AllowHosts []string
}

// DefaultStartTimeout is how long a CommandAgent whose StartTimeout is 0
// may take to listen.
const DefaultStartTimeout = 30 * time.Second

func (a *CommandAgent) start(ctx context.Context, env Env) (runner, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	guard, err := newOutboundGuard(a.AllowHosts)
	if err != nil {
		releasePort(port)
		return nil, err
	}
	nodeOptions := os.Getenv("NODE_OPTIONS")
	for _, kv := range a.Env {
		if v, ok := strings.CutPrefix(kv, "NODE_OPTIONS="); ok {
			nodeOptions = v
		}
	}
	root := strings.TrimSuffix(env.BaseURL, "/v1")
	cmd := exec.Command(a.Name, a.Args...)
	cmd.Dir = a.Dir
	cmd.Env = append(append(append(os.Environ(), a.Env...), guard.env(nodeOptions)...),
		// The clouds' and Ollama's clients, pointed at the scripted LLM.
		"AZURE_OPENAI_ENDPOINT="+root, "AZURE_OPENAI_API_KEY="+env.APIKey, "OPENAI_API_VERSION=2024-10-21",
		"GOOGLE_VERTEX_BASE_URL="+root,
		"AWS_ENDPOINT_URL_BEDROCK_RUNTIME="+root, "AWS_ACCESS_KEY_ID=aguitest", "AWS_SECRET_ACCESS_KEY=aguitest", "AWS_REGION=us-east-1",
		"OLLAMA_HOST="+root,
		"OPENAI_BASE_URL="+env.BaseURL,
		"OPENAI_API_KEY="+env.APIKey,
		"ANTHROPIC_BASE_URL="+strings.TrimSuffix(env.BaseURL, "/v1"),
		"ANTHROPIC_API_KEY="+env.APIKey,
		"GOOGLE_GEMINI_BASE_URL="+strings.TrimSuffix(env.BaseURL, "/v1"),
		"GEMINI_API_KEY="+env.APIKey,
		"PORT="+strconv.Itoa(port),
		"AGUITEST_CASE="+env.Case,
	)
	var out lockedBuffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	ownGroup(cmd)
	if err := cmd.Start(); err != nil {
		releasePort(port)
		guard.close()
		return nil, fmt.Errorf("start %s: %w", a.Name, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	r := &commandRunner{
		httpRunner: httpRunner{url: fmt.Sprintf("http://127.0.0.1:%d%s", port, a.Path)},
		cmd:        cmd, exited: exited, out: &out, port: port, guard: guard,
	}
	r.close = r.kill
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	wait := a.StartTimeout
	if wait <= 0 {
		wait = DefaultStartTimeout
	}
	deadline := time.Now().Add(wait)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return r, nil
		}
		select {
		case err := <-exited:
			exited <- err
			releasePort(port)
			guard.close()
			return nil, fmt.Errorf("%s exited before listening on %s (%v); its output:\n%s", a.Name, addr, err, out.String())
		case <-ctx.Done():
			r.kill()
			return nil, fmt.Errorf("%s: %w before it listened on %s; its output:\n%s", a.Name, ctx.Err(), addr, out.String())
		case <-tick.C:
		}
		if time.Now().After(deadline) {
			r.kill()
			return nil, fmt.Errorf("%s did not listen on %s within %v; its output:\n%s", a.Name, addr, wait, out.String())
		}
	}
}

type commandRunner struct {
	httpRunner
	cmd    *exec.Cmd
	exited chan error
	out    *lockedBuffer
	port   int
	guard  *outboundGuard
}

// outbound returns the program's attempts to reach other hosts since the
// last call.
func (r *commandRunner) outbound() []Outbound { return r.guard.take() }

// kill stops the program and what it started (its process group): an
// interrupt first, as Ctrl-C would, then a kill after 5 seconds.
func (r *commandRunner) kill() {
	_ = signalGroup(r.cmd, os.Interrupt)
	select {
	case err := <-r.exited:
		r.exited <- err
	case <-time.After(5 * time.Second):
		_ = signalGroup(r.cmd, os.Kill)
		r.exited <- <-r.exited
	}
	// Children that outlived the program's interrupt go with it.
	_ = signalGroup(r.cmd, os.Kill)
	releasePort(r.port)
	r.guard.close()
}

func (r *commandRunner) run(ctx context.Context, input agui.RunAgentInput, rcv receiver) error {
	err := r.httpRunner.run(ctx, input, rcv)
	if err != nil {
		if out := tail(r.out.String(), 40); out != "" {
			return fmt.Errorf("%w\nagent output:\n%s", err, out)
		}
		return fmt.Errorf("%w (the agent printed nothing)", err)
	}
	return nil
}

func tail(s string, lines int) string {
	parts := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(parts) > lines {
		parts = parts[len(parts)-lines:]
	}
	return strings.Join(parts, "\n")
}

// freePort returns a loopback port free now, for a program to listen on
// once it has started. It is drawn below the kernel's range of ephemeral
// ports (32768 and up on Linux), from which every port-0 listener (the
// scripted LLMs, the agents of other cases) gets its own: a port taken
// from that range could be handed to one of them before the program binds
// it, and the harness would then talk to the wrong server.
//
// A port handed out stays held until its program has stopped
// (releasePort), so that programs started at once (the plans of an
// explored case, parallel cases) never get the same one; and it is
// claimed for the machine (lockPort), so that neither do programs started
// by another aguitest process, such as another package's test binary.
func freePort() (int, error) {
	portsMu.Lock()
	defer portsMu.Unlock()
	for range 100 {
		port := 20000 + rand.IntN(12000)
		if portsHeld[port] != nil {
			continue
		}
		release, ok := lockPort(port)
		if !ok {
			continue // another aguitest process's program has it
		}
		l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			release()
			continue
		}
		l.Close()
		portsHeld[port] = release
		return port, nil
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	port := l.Addr().(*net.TCPAddr).Port
	release, ok := lockPort(port)
	if !ok {
		release = func() {} // the kernel's pick: held in this process only
	}
	portsHeld[port] = release
	return port, nil
}

// The ports freePort handed out to programs still running, with what ends
// their claim.
var (
	portsMu   sync.Mutex
	portsHeld = map[int]func(){}
)

// releasePort gives back a port of freePort once its program has stopped.
func releasePort(port int) {
	portsMu.Lock()
	defer portsMu.Unlock()
	if release := portsHeld[port]; release != nil {
		release()
	}
	delete(portsHeld, port)
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

var errStopped = errors.New("harness: the run is over")
