// Package served starts an example's agent program once for the tests of
// its package, as a URL agent whose model clients point at a fixed
// address (harness.Options.ModelAddr), where the harness serves each
// case's scripted LLM in turn: a framework that takes many seconds to
// start (langgraphjs dev compiles its graph, Node loads the SDKs) is then
// started once, not once per case.
package served

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/aguitest/aguitest/harness"
)

// Server is a program started by Start.
type Server struct {
	// URL is the program's AG-UI endpoint, for harness.URL.
	URL string
	// ModelAddr is the address its model clients were given, for
	// harness.Options.ModelAddr and conform.Config.ModelAddr.
	ModelAddr string

	cmd     *exec.Cmd
	exited  chan error
	out     *buffer
	release func() // the ports' claims
}

// Start starts name with args in dir, its model clients pointed at a
// free loopback address (OPENAI_BASE_URL, and Bedrock's endpoint
// AWS_ENDPOINT_URL_BEDROCK_RUNTIME with fake credentials and region, as
// harness.Command sets them) and PORT naming a free loopback port, and
// waits up to wait for the program to listen on PORT.
func Start(dir string, wait time.Duration, name string, args ...string) (*Server, error) {
	modelPort, releaseModel, err := harness.FreePort()
	if err != nil {
		return nil, err
	}
	agentPort, releaseAgent, err := harness.FreePort()
	if err != nil {
		releaseModel()
		return nil, err
	}
	model := "127.0.0.1:" + strconv.Itoa(modelPort)
	addr := "127.0.0.1:" + strconv.Itoa(agentPort)
	port := strconv.Itoa(agentPort)
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"OPENAI_BASE_URL=http://"+model+"/v1", "OPENAI_API_KEY=aguitest",
		"AWS_ENDPOINT_URL_BEDROCK_RUNTIME=http://"+model,
		"AWS_ACCESS_KEY_ID=aguitest", "AWS_SECRET_ACCESS_KEY=aguitest", "AWS_REGION=us-east-1",
		"PORT="+port,
	)
	out := &buffer{}
	cmd.Stdout, cmd.Stderr = out, out
	// Its own process group, so that Stop ends what it started too (the
	// dev server langgraphjs starts).
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		releaseModel()
		releaseAgent()
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	s := &Server{URL: "http://" + addr + "/", ModelAddr: model, cmd: cmd, exited: make(chan error, 1), out: out,
		release: func() { releaseModel(); releaseAgent() }}
	go func() { s.exited <- cmd.Wait() }()
	deadline := time.Now().Add(wait)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			return s, nil
		}
		select {
		case err := <-s.exited:
			s.exited <- err
			s.release()
			return nil, fmt.Errorf("%s exited before listening on %s (%v); its output:\n%s", name, addr, err, out.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			s.Stop()
			return nil, fmt.Errorf("%s did not listen on %s within %v; its output:\n%s", name, addr, wait, out.String())
		}
	}
}

// Stop ends the program and its process group: an interrupt, then a kill
// after 5 seconds.
func (s *Server) Stop() {
	pgid := -s.cmd.Process.Pid
	_ = syscall.Kill(pgid, syscall.SIGINT)
	select {
	case err := <-s.exited:
		s.exited <- err
	case <-time.After(5 * time.Second):
		_ = syscall.Kill(pgid, syscall.SIGKILL)
		s.exited <- <-s.exited
	}
	_ = syscall.Kill(pgid, syscall.SIGKILL)
	s.release()
}

// Output returns what the program printed so far.
func (s *Server) Output() string { return s.out.String() }

// Once starts a Server on the first call of Get and keeps it, or the
// error, for the calls after; Stop stops it if it started.
type Once struct {
	Dir  string
	Wait time.Duration
	Name string
	Args []string

	once sync.Once
	srv  *Server
	err  error
}

// Get returns the server, started on the first call.
func (o *Once) Get() (*Server, error) {
	o.once.Do(func() { o.srv, o.err = Start(o.Dir, o.Wait, o.Name, o.Args...) })
	return o.srv, o.err
}

// Stop stops the server if Get started one.
func (o *Once) Stop() {
	o.once.Do(func() { o.err = errors.New("stopped") })
	if o.srv != nil {
		o.srv.Stop()
	}
}

// buffer is a bytes buffer safe for the program's two writers.
type buffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *buffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *buffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}
