package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
)

// runStdio runs a stdio MCP server and records every line each way.
func runStdio(args []string) error {
	fs := flag.NewFlagSet("stdio", flag.ExitOnError)
	out := fs.String("o", "", "append the records to this `file`")
	fs.Parse(args)
	if *out == "" || fs.NArg() == 0 {
		return errors.New("stdio needs -o FILE and a command")
	}
	f, rec, err := openRecord(*out)
	if err != nil {
		return err
	}
	defer f.Close()

	cmd := exec.Command(fs.Arg(0), fs.Args()[1:]...)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT)
	go func() {
		for s := range sigs {
			cmd.Process.Signal(s)
		}
	}()
	go func() {
		copyLines(stdin, os.Stdin, func(line []byte) { rec.add(record{Dir: "send"}, line) })
		stdin.Close()
	}()
	copyLines(os.Stdout, stdout, func(line []byte) { rec.add(record{Dir: "recv"}, line) })
	err = cmd.Wait()
	if rec.err != nil {
		return fmt.Errorf("recording: %w", rec.err)
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		if ee.ExitCode() < 0 {
			return exitCode(128 + int(ee.Sys().(syscall.WaitStatus).Signal()))
		}
		return exitCode(ee.ExitCode())
	}
	return err
}

// copyLines copies r to w line by line, calling each with every non-empty
// line (without its newline) before it is written on.
func copyLines(w io.Writer, r io.Reader, each func([]byte)) {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			if t := bytes.TrimSpace(line); len(t) > 0 {
				each(t)
			}
			if _, werr := w.Write(line); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}
