// Command scale-bench runs the commands that read a stream (verify, show,
// show --messages, show --html, diff) as whole processes on one long run
// (internal/longrun: steps, text messages of a few fragments, parallel
// calls and their results, a state delta, repeated) at several sizes, and
// prints for each its wall time, CPU time (user + system), peak RSS, the
// ratios of its wall time and of its CPU time to verify's on the same
// file, and the growth exponent of its CPU time between sizes (1.0 is
// linear, 2.0 quadratic). Wall time is what a user waits; CPU time is the
// figure to read on a shared machine, where wall time counts the waits
// for a core, and it counts the work show does on other cores.
//
// Usage (from the repository root):
//
//	go run ./bench/scale [-sizes 10000,100000,1000000] [-bin aguitest] [-timeout 5m]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/aguitest/aguitest/internal/longrun"
)

type result struct {
	wall, cpu time.Duration
	rssKB     int64
	err       string
}

func main() {
	sizes := flag.String("sizes", "10000,100000,1000000", "events in the run, comma separated")
	bin := flag.String("bin", "", "the aguitest binary to time (default: built from ./cmd/aguitest)")
	timeout := flag.Duration("timeout", 5*time.Minute, "give up on one command after this long")
	only := flag.String("commands", "", "the commands to time, comma separated (default: all)")
	flag.Parse()

	dir, err := os.MkdirTemp("", "scale-bench")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if *bin == "" {
		*bin = filepath.Join(dir, "aguitest")
		build := exec.Command("go", "build", "-o", *bin, "./cmd/aguitest")
		build.Stderr = os.Stderr
		if err := build.Run(); err != nil {
			log.Fatalf("go build: %v", err)
		}
	}
	var ns []int
	for _, s := range strings.Split(*sizes, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			log.Fatalf("-sizes: %v", err)
		}
		ns = append(ns, n)
	}
	commands := []struct{ name, args string }{
		{"verify", "verify FILE"},
		{"show", "show FILE"},
		{"show --messages", "show --messages FILE"},
		{"show --html", "show --html OUT FILE"},
		{"diff", "diff FILE FILE"},
	}
	if *only != "" {
		keep := commands[:0]
		for _, c := range commands {
			for _, o := range strings.Split(*only, ",") {
				if strings.TrimSpace(o) == c.name {
					keep = append(keep, c)
				}
			}
		}
		commands = keep
	}

	results := map[string][]result{}
	fmt.Printf("one run of N events (internal/longrun), %s\n\n", *bin)
	for _, n := range ns {
		file := filepath.Join(dir, fmt.Sprintf("run%d.jsonl", n))
		f, err := os.Create(file)
		if err != nil {
			log.Fatal(err)
		}
		count, err := longrun.Write(f, n)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			log.Fatal(err)
		}
		st, _ := os.Stat(file)
		fmt.Printf("N=%d: %d events, %.1f MB\n", n, count, float64(st.Size())/1e6)
		for _, c := range commands {
			args := strings.Fields(strings.NewReplacer("FILE", file, "OUT", filepath.Join(dir, "page.html")).Replace(c.args))
			r := timeOne(*bin, args, *timeout)
			results[c.name] = append(results[c.name], r)
		}
		os.Remove(file)
	}

	fmt.Printf("\n%-16s %9s %9s %9s %9s %11s %10s %9s\n", "command", "events", "wall", "cpu", "peak RSS", "wall÷verify", "cpu÷verify", "exponent")
	for _, c := range commands {
		for i, r := range results[c.name] {
			if r.err != "" {
				fmt.Printf("%-16s %9d %s\n", c.name, ns[i], r.err)
				continue
			}
			ratio, wallRatio := "-", "-"
			if v := results["verify"]; c.name != "verify" && i < len(v) && v[i].err == "" && v[i].cpu > 0 {
				ratio = fmt.Sprintf("%.1fx", r.cpu.Seconds()/v[i].cpu.Seconds())
				wallRatio = fmt.Sprintf("%.1fx", r.wall.Seconds()/v[i].wall.Seconds())
			}
			exp := "-"
			if i > 0 {
				if p := results[c.name][i-1]; p.err == "" && p.cpu > 0 {
					exp = fmt.Sprintf("%.2f", math.Log(r.cpu.Seconds()/p.cpu.Seconds())/math.Log(float64(ns[i])/float64(ns[i-1])))
				}
			}
			fmt.Printf("%-16s %9d %8.2fs %8.2fs %7.0fMB %11s %10s %9s\n", c.name, ns[i], r.wall.Seconds(), r.cpu.Seconds(), float64(r.rssKB)/1024, wallRatio, ratio, exp)
		}
	}
}

// timeOne runs bin with args, its output discarded, and returns its times
// and peak RSS.
func timeOne(bin string, args []string, timeout time.Duration) result {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	if ctx.Err() != nil {
		return result{err: fmt.Sprintf("did not finish in %s", timeout)}
	}
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return result{err: err.Error()}
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		return result{err: fmt.Sprintf("exit %d: %s", code, strings.TrimSpace(stderr.String()))}
	}
	ps := cmd.ProcessState
	r := result{wall: wall, cpu: ps.UserTime() + ps.SystemTime()}
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		r.rssKB = ru.Maxrss
	}
	return r
}
