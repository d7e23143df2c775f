package harness

import (
	"context"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"runtime"
	"sync"

	"github.com/aguitest/aguitest/agui"
	"github.com/aguitest/aguitest/internal/fullduplex"
)

// sharedCommand is a CommandAgent whose programs are kept from one case,
// scenario or plan to the next: a program pays its start once, not once
// per plan. Each program's model clients point at a relay of its own, which
// the harness points at the scripted LLM of the plan under way, as it does
// for a URL agent (Options.ModelAddr); a program serves one plan at a
// time, and at most max of them run at once. A program whose run failed
// (it crashed, hung or broke a stream) is stopped and the next plan
// starts another.
type sharedCommand struct {
	a   *CommandAgent
	max int

	mu     sync.Mutex
	cond   *sync.Cond
	free   []*sharedProc
	n      int // programs running, free or not
	closed bool
	starts int // programs started, for tests and benchmarks
}

// sharedProc is one program of a sharedCommand and its relay.
type sharedProc struct {
	r     *commandRunner
	relay *procRelay
}

// Pool returns an agent that runs each case it is given on a program of
// agent kept from an earlier case, and a function that stops the programs
// once the cases are over. A program starts when no kept one is free and
// fewer than programs run (at least one); one whose run failed (it
// crashed, hung or broke a stream) is stopped, and the next case starts
// another. An agent other than a Command agent is returned as it is.
//
// Run, TestAll and conform.Run pool a Command agent themselves, for the
// table or the battery; an explored case keeps its programs from plan to
// plan. Call Pool when you run cases one by one through Test or RunCase,
// to pay a slow program's start once:
//
//	agent, stop := harness.Pool(harness.Command("node", "server.mjs"), 1)
//	defer stop()
//	for _, c := range cases {
//		rep := harness.Options{}.Test(ctx, agent, c)
//		...
//	}
//
// A kept program serves cases one after another, each on its own thread
// with a scripted LLM of its own, its model clients pointed through a
// relay at the case under way; what it remembers of earlier threads, it
// keeps.
func Pool(agent Agent, programs int) (Agent, func()) {
	a, ok := agent.(*CommandAgent)
	if !ok {
		return agent, func() {}
	}
	s := newSharedCommand(a, programs)
	return s, s.close
}

// pool pools a Command agent for a table of cases run under o: as many
// programs as cases or plans may run at once.
func (o Options) pool(agent Agent, cases []Case) (Agent, func()) {
	n := runtime.GOMAXPROCS(0)
	if o.Explore != nil {
		n = max(n, o.Explore.Parallel)
	}
	for _, c := range cases {
		if c.Explore != nil {
			n = max(n, c.Explore.Parallel)
		}
	}
	return Pool(agent, n)
}

func newSharedCommand(a *CommandAgent, most int) *sharedCommand {
	s := &sharedCommand{a: a, max: max(1, most)}
	s.cond = sync.NewCond(&s.mu)
	return s
}

// start hands the plan a program, its relay pointed at env's scripted
// LLM: a free one, or a new one when fewer than max run.
func (s *sharedCommand) start(ctx context.Context, env Env) (runner, error) {
	target, err := url.Parse(env.BaseURL)
	if err != nil {
		return nil, err
	}
	target.Path = ""
	s.mu.Lock()
	for {
		for len(s.free) == 0 && s.n >= s.max {
			s.cond.Wait()
		}
		if len(s.free) == 0 {
			break
		}
		p := s.free[len(s.free)-1]
		s.free = s.free[:len(s.free)-1]
		if p.exited() {
			// It ended while it waited for a case: the next starts anew.
			s.mu.Unlock()
			p.stop()
			s.mu.Lock()
			s.n--
			continue
		}
		s.mu.Unlock()
		p.relay.point(target)
		return &sharedRunner{s: s, p: p}, nil
	}
	s.n++
	s.starts++
	s.mu.Unlock()
	relay, err := newProcRelay(target)
	if err != nil {
		s.gone()
		return nil, err
	}
	penv := env
	penv.BaseURL = relay.url + "/v1"
	r, err := s.a.start(ctx, penv)
	if err != nil {
		relay.close()
		s.gone()
		return nil, err
	}
	return &sharedRunner{s: s, p: &sharedProc{r: r.(*commandRunner), relay: relay}}, nil
}

// gone counts a program out.
func (s *sharedCommand) gone() {
	s.mu.Lock()
	s.n--
	s.cond.Signal()
	s.mu.Unlock()
}

// put takes a program back after a plan: kept for the next when its runs
// went well and it still runs, stopped otherwise.
func (s *sharedCommand) put(p *sharedProc, ok bool) {
	ok = ok && !p.exited()
	s.mu.Lock()
	if ok && !s.closed {
		s.free = append(s.free, p)
		s.cond.Signal()
		s.mu.Unlock()
		return
	}
	s.mu.Unlock()
	p.stop()
	s.gone()
}

// close stops the programs not in use; those in use stop as they come
// back.
func (s *sharedCommand) close() {
	s.mu.Lock()
	s.closed = true
	free := s.free
	s.free = nil
	s.n -= len(free)
	s.mu.Unlock()
	var wg sync.WaitGroup
	for _, p := range free {
		wg.Go(p.stop)
	}
	wg.Wait()
}

// exited reports whether the program has ended.
func (p *sharedProc) exited() bool {
	select {
	case err := <-p.r.exited:
		p.r.exited <- err
		return true
	default:
		return false
	}
}

func (p *sharedProc) stop() {
	p.r.kill()
	p.relay.close()
}

// sharedRunner is a program of a sharedCommand lent to one plan.
type sharedRunner struct {
	s      *sharedCommand
	p      *sharedProc
	failed bool
	once   sync.Once
}

func (r *sharedRunner) run(ctx context.Context, input agui.RunAgentInput, rcv receiver) error {
	err := r.p.r.run(ctx, input, rcv)
	if err != nil {
		r.failed = true
	}
	return err
}

func (r *sharedRunner) stop() { r.once.Do(func() { r.s.put(r.p, !r.failed) }) }

func (r *sharedRunner) outbound() []Outbound { return r.p.r.outbound() }

// procRelay forwards a program's model requests to the scripted LLM of
// the plan under way.
type procRelay struct {
	url string
	srv *http.Server

	mu     sync.Mutex
	target *url.URL
}

func newProcRelay(target *url.URL) (*procRelay, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &procRelay{url: "http://" + ln.Addr().String(), target: target}
	r.srv = &http.Server{Handler: fullduplex.Handler(&httputil.ReverseProxy{
		Rewrite: func(pr *httputil.ProxyRequest) {
			r.mu.Lock()
			t := r.target
			r.mu.Unlock()
			pr.SetURL(t)
		},
		FlushInterval: -1,
		// A plan that ends while the program still asks its model is
		// no news: the plan's report says what matters.
		ErrorLog: log.New(io.Discard, "", 0),
	})}
	go r.srv.Serve(ln)
	return r, nil
}

func (r *procRelay) point(target *url.URL) {
	r.mu.Lock()
	r.target = target
	r.mu.Unlock()
}

func (r *procRelay) close() { r.srv.Close() }
