// Command mockmodel serves the scripted mock model of package mock on
// 127.0.0.1 for manual runs of an agent CLI, and stops by itself.
//
//	mockmodel -cmd '<shell command>' [-cmd …] [-final text] [-for 5m] [-addr-file f] [-log f]
//
// It prints its base URL on the first line of stdout (and into -addr-file),
// and at exit writes every request it received as JSON lines to -log.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/agentlock/agentlock/e2e/mock"
)

type list []string

func (l *list) String() string     { return fmt.Sprint(*l) }
func (l *list) Set(v string) error { *l = append(*l, v); return nil }

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "mockmodel:", err)
		os.Exit(1)
	}
}

func run() error {
	var cmds list
	flag.Var(&cmds, "cmd", "a shell command for the model to run (repeatable, in order)")
	final := flag.String("final", "Done.", "the model's last answer")
	life := flag.Duration("for", 5*time.Minute, "stop after this long")
	addrFile := flag.String("addr-file", "", "also write the base URL to this file")
	logFile := flag.String("log", "", "write the received requests to this file at exit")
	flag.Parse()

	s, err := mock.Start(mock.Script{Commands: cmds, Final: *final})
	if err != nil {
		return err
	}
	fmt.Println(s.URL())
	if *addrFile != "" {
		if err := os.WriteFile(*addrFile, []byte(s.URL()+"\n"), 0o644); err != nil {
			s.Close()
			return fmt.Errorf("write address: %w", err)
		}
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM)
	select {
	case <-sig:
	case <-time.After(*life):
	}
	if err := s.Close(); err != nil {
		return err
	}
	if *logFile == "" {
		return nil
	}
	f, err := os.Create(*logFile)
	if err != nil {
		return fmt.Errorf("write request log: %w", err)
	}
	enc := json.NewEncoder(f)
	for _, r := range s.Requests() {
		if err := enc.Encode(r); err != nil {
			f.Close()
			return fmt.Errorf("write request log: %w", err)
		}
	}
	return f.Close()
}
